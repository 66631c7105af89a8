#!/usr/bin/env node
// The plugstack command line; see lib/cli/main.ts. This is the package's
// `bin`. It runs from the bundle scripts/bundle-cli.mjs makes (one script,
// with a code cache, loads far faster than ninety modules;
// bin/bundle-loader.cjs) when that is newer than what tsc emitted, from the
// modules otherwise.
//
// CommonJS: a script Node loads as CommonJS spares every command the start
// of Node's ES module loader (a few ms of each short command, measured in
// README's Speed section). bin/plugstack.js is kept for those who run that
// file: it loads this one.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const cli = path.join(__dirname, '..', 'dist', 'cli');
const stat = (name) => fs.statSync(path.join(cli, name), { throwIfNoEntry: false });
const argv = process.argv.slice(2);
const bundle = stat('main.bundle.cjs');

async function run() {
  if (bundle !== undefined && bundle.mtimeMs >= (stat('main.js')?.mtimeMs ?? Infinity)) {
    const { runBundle } = require('./bundle-loader.cjs');
    return runBundle(path.join(cli, 'main.bundle.cjs'), bundle, argv);
  }
  const { main } = await import(require('node:url').pathToFileURL(path.join(cli, 'main.js')).href);
  return main(argv);
}

run().then((code) => {
  process.exitCode = code;
});
