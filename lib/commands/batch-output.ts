/**
 * A batch job's output file(s), as the batch step's two pipes fill them.
 *
 * In Slurm the batch script writes into the file itself (slurmstepd opens
 * it and gives the script the descriptor), so when stdout and stderr share
 * one file, each write() of a program lands whole: an srun inside the job
 * writes whole lines and none is torn. Here the script's output reaches Node
 * in chunks from two pipes, cut anywhere; a shared file therefore takes each
 * stream's output a whole line at a time, so a stdout line is never split by
 * a stderr chunk. What is left without a newline goes out at the end.
 */
import fs from 'node:fs';

export class BatchOutput {
  private readonly pending: Record<'stdout' | 'stderr', Buffer> = { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) };
  private readonly shared: boolean;

  constructor(
    readonly stdoutFile: string,
    readonly stderrFile: string,
  ) {
    this.shared = stdoutFile === stderrFile;
  }

  /** Output of the script (and of what it runs) on one of its streams. */
  write(stream: 'stdout' | 'stderr', data: Buffer): void {
    const file = stream === 'stdout' ? this.stdoutFile : this.stderrFile;
    if (!this.shared) {
      fs.appendFileSync(file, data);
      return;
    }
    const all = this.pending[stream].length ? Buffer.concat([this.pending[stream], data]) : data;
    const end = all.lastIndexOf(0x0a) + 1;
    if (end > 0) fs.appendFileSync(file, all.subarray(0, end));
    this.pending[stream] = Buffer.from(all.subarray(end));
  }

  /** A whole line slurmstepd logs into the job's error output. */
  log(line: string): void {
    fs.appendFileSync(this.stderrFile, line);
  }

  /** The step has ended: what each stream left without a newline. */
  flush(): void {
    for (const stream of ['stdout', 'stderr'] as const) {
      if (!this.pending[stream].length) continue;
      fs.appendFileSync(stream === 'stdout' ? this.stdoutFile : this.stderrFile, this.pending[stream]);
      this.pending[stream] = Buffer.alloc(0);
    }
  }
}
