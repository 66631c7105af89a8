#!/usr/bin/env node
// The command line in one file: dist/cli/main.bundle.cjs, made from what
// tsc emitted (dist/cli/main.js and everything it imports). Node 20 has no
// compile cache, and resolving, reading and compiling ~90 modules is most of
// what `plugstack` costs before it does anything; one script costs a
// fraction of that, and as CommonJS it can be compiled with a V8 code cache
// (bin/bundle-loader.cjs). bin/plugstack.cjs uses the bundle only when it is
// newer than dist/cli/main.js (a tsc run without this script leaves it
// stale, and then the modules are used). Without rolldown (a development
// dependency) nothing is bundled and the modules are used.
//
// The state directory's code (dist/cluster/state-dir.js, where the code
// cache is kept) is bundled too, as dist/cluster/state-dir.cjs, for the
// loader to require before it compiles the bundle; it is written first, so
// a bundle newer than main.js always has it beside it.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const input = path.join(root, 'dist', 'cli', 'main.js');
const output = path.join(root, 'dist', 'cli', 'main.bundle.cjs');
const stateDirOutput = path.join(root, 'dist', 'cluster', 'state-dir.cjs');
// An ES module bundle of an earlier build.
fs.rmSync(path.join(root, 'dist', 'cli', 'main.bundle.js'), { force: true });

let rolldown;
try {
  ({ rolldown } = await import('rolldown'));
} catch {
  fs.rmSync(output, { force: true });
  fs.rmSync(stateDirOutput, { force: true });
  console.error('bundle-cli: rolldown is not installed; the command line runs from the modules in dist/');
  process.exit(0);
}
// Every command reads the whole bundle first: without comments it is 15%
// smaller, and in ASCII alone (non-ASCII characters escaped) it is one byte
// per character for Node's decoder and for V8. A single non-ASCII character
// made the whole 480 KB a two-byte string: reading it took 1.5 ms instead of
// 0.5 (measured alone).
const OUTPUT = { format: 'cjs', codeSplitting: false, sourcemap: false, comments: false, charset: 'ascii' };
const stateDir = await rolldown({ input: path.join(root, 'dist', 'cluster', 'state-dir.js'), platform: 'node', external: [/^node:/], logLevel: 'warn' });
await stateDir.write({ file: stateDirOutput, ...OUTPUT });
await stateDir.close();
const bundle = await rolldown({
  input,
  platform: 'node',
  // Node's own modules. node-gyp-build is bundled too: required from the
  // package, resolving and compiling its two files (no code cache) cost each
  // command ~1.5 ms; in the bundle it finds the addon from the same package
  // root, with the same rules (build/Release, then prebuilds/).
  external: [/^node:/],
  logLevel: 'warn',
});
// The bundle sits where main.js does, so paths taken from import.meta.url
// (the package root, package.json; __filename in the bundle) mean the same
// in both.
await bundle.write({ file: output, ...OUTPUT });
await bundle.close();
