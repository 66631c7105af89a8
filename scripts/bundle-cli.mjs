#!/usr/bin/env node
// The command line in one file: dist/cli/main.bundle.js, made from what tsc
// emitted (dist/cli/main.js and everything it imports). Node 20 has no
// compile cache for ES modules, and resolving, reading and compiling ~90
// modules is most of what `plugstack` costs before it does anything; one
// module costs a fraction of that. bin/plugstack.js uses the bundle only
// when it is newer than dist/cli/main.js (a tsc run without this script
// leaves it stale, and then the modules are used). Without rolldown (a
// development dependency) nothing is bundled and the modules are used.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const input = path.join(root, 'dist', 'cli', 'main.js');
const output = path.join(root, 'dist', 'cli', 'main.bundle.js');

let rolldown;
try {
  ({ rolldown } = await import('rolldown'));
} catch {
  fs.rmSync(output, { force: true });
  console.error('bundle-cli: rolldown is not installed; the command line runs from the modules in dist/');
  process.exit(0);
}
const bundle = await rolldown({
  input,
  platform: 'node',
  // Node's own modules, and node-gyp-build (required at run time, next to the package).
  external: [/^node:/, 'node-gyp-build'],
  logLevel: 'warn',
});
// The bundle sits where main.js does, so paths taken from import.meta.url
// (the package root, package.json) mean the same in both.
await bundle.write({ file: output, format: 'esm', codeSplitting: false, sourcemap: false });
await bundle.close();
