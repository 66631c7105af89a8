/**
 * node:child_process, loaded the first time something spawns through Node.
 * Most commands never do (their hosts are forked by the zygote), and
 * loading the module costs every command ~0.8 ms (it brings dgram and
 * Node's IPC serialisation with it; measured in README's Speed section).
 * The command line's bundle would otherwise load it at its start, as it
 * does every module imported at the top of a file.
 */
import type * as ChildProcesses from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let loaded: typeof ChildProcesses | undefined;

export function childProcess(): typeof ChildProcesses {
  return (loaded ??= require('node:child_process') as typeof ChildProcesses);
}
