/**
 * srun's standard input, copied to every slurmstepd that has a task to
 * read it (srun's IO sends each node the same stream). A string or buffer
 * is handed to each as it is; a stream is read once and written to each
 * node's host as fast as the slowest one takes it, so a node that reads
 * nothing holds the input up only once its own buffers (slurmstepd's,
 * task_stdin.h) are full; a node whose host has ended no longer counts.
 */
import { stream } from '../lazy-modules.js';

export interface Feeds {
  has(nodeId: number): boolean;
  get(nodeId: number): string | Buffer | NodeJS.ReadableStream | undefined;
  /** The step has ended: the input is let go (a terminal or pipe is no longer read). */
  close(): void;
}

export function fanOut(source: string | Buffer | NodeJS.ReadableStream | undefined, nodes: number[]): Feeds {
  const map = new Map<number, string | Buffer | NodeJS.ReadableStream>();
  if (source === undefined || typeof source === 'string' || Buffer.isBuffer(source)) {
    // No input: every fed task sees EOF at once, as under `srun < /dev/null`.
    for (const n of nodes) map.set(n, source ?? '');
    return { has: (n) => map.has(n), get: (n) => map.get(n), close: () => {} };
  }
  let waiting = 0;
  const outs = nodes.map((n) => {
    const p = new (stream().PassThrough)();
    map.set(n, p);
    // Blocked until it drains, or until it is gone (its host ended).
    let blocked = false;
    const unblock = () => {
      if (!blocked) return;
      blocked = false;
      if (--waiting === 0) source.resume();
    };
    p.on('drain', unblock);
    p.on('close', unblock);
    return {
      p,
      write(chunk: Buffer) {
        if (p.destroyed || p.writableEnded) return;
        if (!p.write(chunk) && !blocked) {
          blocked = true;
          waiting++;
        }
      },
    };
  });
  const onData = (chunk: Buffer) => {
    for (const o of outs) o.write(chunk);
    if (waiting > 0) source.pause();
  };
  const onEnd = () => {
    for (const { p } of outs) if (!p.destroyed) p.end();
  };
  source.on('data', onData);
  source.once('end', onEnd);
  source.once('error', onEnd);
  if (!outs.length) source.pause();
  return {
    has: (n) => map.has(n),
    get: (n) => map.get(n),
    close: () => {
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('error', onEnd);
      source.pause();
      for (const { p } of outs) p.destroy();
    },
  };
}
