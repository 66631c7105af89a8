#!/usr/bin/env node
// The plugstack command line; see lib/cli/main.ts. It runs from the bundle
// scripts/bundle-cli.mjs makes (one script, with a code cache, loads far
// faster than ninety modules; bin/bundle-loader.cjs) when that is newer than
// what tsc emitted, from the modules otherwise.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const stat = (name) => fs.statSync(fileURLToPath(new URL(`../dist/cli/${name}`, import.meta.url)), { throwIfNoEntry: false });
const bundle = stat('main.bundle.cjs');
const argv = process.argv.slice(2);
if (bundle !== undefined && bundle.mtimeMs >= (stat('main.js')?.mtimeMs ?? Infinity)) {
  // Required, not imported: CommonJS loads without the ES module loader's round.
  const { runBundle } = createRequire(import.meta.url)('./bundle-loader.cjs');
  process.exitCode = await runBundle(fileURLToPath(new URL('../dist/cli/main.bundle.cjs', import.meta.url)), bundle, argv);
} else {
  const { main } = await import('../dist/cli/main.js');
  process.exitCode = await main(argv);
}
