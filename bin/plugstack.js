#!/usr/bin/env node
// The plugstack command line; see lib/cli/main.ts. It runs from the bundle
// scripts/bundle-cli.mjs makes (one module loads faster than ninety) when
// that is newer than what tsc emitted, from the modules otherwise.
import fs from 'node:fs';

const mtime = (name) => fs.statSync(new URL(`../dist/cli/${name}`, import.meta.url), { throwIfNoEntry: false })?.mtimeMs;
const bundled = mtime('main.bundle.js');
const { main } = bundled !== undefined && bundled >= (mtime('main.js') ?? Infinity) ? await import('../dist/cli/main.bundle.js') : await import('../dist/cli/main.js');

process.exitCode = await main(process.argv.slice(2));
