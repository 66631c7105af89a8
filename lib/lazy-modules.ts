/**
 * Node's modules that most commands never use, loaded when first used. The
 * command line's bundle requires every module imported at the top of a
 * file when it starts, and a command pays for each, needed or not:
 * node:child_process ~0.8 ms (it brings dgram and Node's IPC serialisation
 * with it; a plugstack run spawns nothing through Node, its hosts come from
 * the zygote), node:stream ~1.5 ms (only a stream piped into a host's input
 * needs it, and Node's own process.stdout, which a command that prints
 * nothing never makes). Measured alone, after Node's own start.
 */
import type * as ChildProcesses from 'node:child_process';
import { createRequire } from 'node:module';
import type * as Streams from 'node:stream';

const require = createRequire(import.meta.url);

function lazy<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}

export const childProcess = lazy<typeof ChildProcesses>('node:child_process');
export const stream = lazy<typeof Streams>('node:stream');
