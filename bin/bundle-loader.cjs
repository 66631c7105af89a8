// Loads the command line's bundle (dist/cli/main.bundle.cjs, made by
// scripts/bundle-cli.mjs) with a V8 code cache: Node 20 has no compile
// cache of its own, and compiling the bundle's functions is a large part of
// what a short command costs. The cache is made after a command has run
// (so it holds every function that command compiled) and kept in the
// user's private state directory (lib/cluster/state-dir.ts: owned by the
// user, closed to others — a code cache is code), one per command (each
// compiles its own functions), named by the Node version and the bundle's
// size and time; V8 checks it against the source
// and its flags, and one it rejects is made again. Anything that goes wrong
// with the cache only costs the compile.
//
// CommonJS, as is the state directory's code it loads (dist/cluster/
// state-dir.cjs, bundled from lib/cluster/state-dir.ts by
// scripts/bundle-cli.mjs): required synchronously, it spares the command
// Node's ES module loader for two more imports (a few ms of each command).
'use strict';
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const vm = require('node:vm');

const COMMANDS = new Set(['run', 'batch', 'alloc', 'prolog', 'epilog', 'check', 'help', 'cc']);

function cacheFile(stat, command) {
  // Only a directory checked private, as the jobs' is.
  const { stateDir } = require('../dist/cluster/state-dir.cjs');
  return path.join(stateDir('cache'), `cli-${command}-${process.version}-${process.arch}-${stat.size}-${Math.trunc(stat.mtimeMs)}.v8`);
}

/** A cache file of ours that nobody else can have written. */
function readCache(file) {
  try {
    const st = fs.lstatSync(file);
    if (!st.isFile() || st.uid !== process.getuid() || (st.mode & 0o022) !== 0) return undefined;
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

function writeCache(file, command, data) {
  try {
    // The same command's caches of other bundles or Node versions go.
    for (const old of fs.readdirSync(path.dirname(file)))
      if (old.startsWith(`cli-${command}-`) && old !== path.basename(file)) fs.rmSync(path.join(path.dirname(file), old), { force: true });
    const tmp = `${file}.${process.pid}`;
    fs.writeFileSync(tmp, data, { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch {
    // no cache this time
  }
}

/** Runs main(argv) from the bundle; resolves with its exit status. */
async function runBundle(bundle, stat, argv) {
  const command = COMMANDS.has(argv[0]) ? argv[0] : 'other';
  let file;
  try {
    file = cacheFile(stat, command);
  } catch {
    // no usable state directory: no cache
  }
  const cachedData = file ? readCache(file) : undefined;
  const script = new vm.Script(Module.wrap(fs.readFileSync(bundle, 'utf8')), { filename: bundle, ...(cachedData ? { cachedData } : {}) });
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, Module.createRequire(bundle), module, bundle, path.dirname(bundle));
  const code = await module.exports.main(argv);
  if (file && (!cachedData || script.cachedDataRejected)) writeCache(file, command, script.createCachedData());
  return code;
}

module.exports = { runBundle };
