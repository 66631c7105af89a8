/** How the CLI writes results: JSON, timelines, and streams that may close. */
import fs from 'node:fs';
import { ownWriteBrokePipe } from '../cluster/control.js';
import { renderTimeline, type TimelineSource } from '../timeline/index.js';

export type Out = { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream };

/** A result as JSON: output bytes are left out (their text is there as stdout/stderr). */
export function toJson(value: unknown): string {
  return (
    JSON.stringify(
      value,
      (_key, v: unknown) => {
        if (v && typeof v === 'object' && (v as { type?: unknown }).type === 'Buffer' && Array.isArray((v as { data?: unknown }).data)) return undefined;
        return v;
      },
      2,
    ) + '\n'
  );
}

/** Writes the timeline of `result` to `file`; says so on stderr when it cannot. */
export function writeTimeline(file: string | undefined, result: TimelineSource, out: Out): boolean {
  if (file === undefined) return true;
  try {
    fs.writeFileSync(file, renderTimeline(result));
    return true;
  } catch (error) {
    out.stderr.write(`plugstack: cannot write the timeline to ${file}: ${(error as Error).message}\n`);
    return false;
  }
}

const quieted = new WeakSet<object>();

/**
 * A reader that goes away (`plugstack check x | head -1`) ends our output,
 * not the command: writes after that are dropped instead of raising EPIPE.
 */
export function quietOnClosedPipe(stream: NodeJS.WritableStream): void {
  if (quieted.has(stream)) return;
  quieted.add(stream);
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') return ownWriteBrokePipe();
    if (error.code === 'ERR_STREAM_DESTROYED') return;
    throw error;
  });
}

/**
 * out, each stream quieted (above) when it is first used: Node makes
 * process.stdout and process.stderr (a stream each, and node:stream with
 * them) only when they are first asked for, and a command that prints
 * nothing never needs them.
 */
export function quietly(out: Out): Out {
  return {
    get stdout() {
      quietOnClosedPipe(out.stdout);
      return out.stdout;
    },
    get stderr() {
      quietOnClosedPipe(out.stderr);
      return out.stderr;
    },
  };
}
