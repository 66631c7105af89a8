/**
 * What srun does with its tasks' output and error, as -o, -e, -l and
 * --open-mode set it up (lib/step/task-output.ts reads the names): srun's
 * own streams, a file srun opens, one task's alone, /dev/null, or each
 * task's own file, which its node's slurmstepd opened (the step request
 * names them; Node writes into them what the task prints).
 *
 * With -l every line is prefixed with its task's id, padded to the width of
 * the largest ("%*d: ", write_labelled_message), so a line that arrives in
 * pieces is held until its newline (or the end of the step) and labelled
 * once; the last line without a newline gets one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { strerrorText } from '../host/os-names.js';
import type { StepOutputPlan, TaskOutputPlan } from '../step/task-output.js';
import type { CommandConsole } from './console.js';

type Stream = 'stdout' | 'stderr';

/** Where one piece of output goes. */
interface Sink {
  write(data: Buffer): void;
  /** Digits of the task ids its labels are padded to. */
  labelWidth: number;
}

/** The digits of the largest task id of n tasks (step_io.c _wid). */
export function labelWidth(n: number): number {
  return String(Math.max(0, n - 1)).length;
}

/** O_CREAT|O_WRONLY|O_APPEND, and O_TRUNC unless appending (launch_common_set_stdio_fds). */
function fileFlags(append: boolean): number {
  const { O_CREAT, O_WRONLY, O_APPEND, O_TRUNC } = fs.constants;
  return O_CREAT | O_WRONLY | O_APPEND | (append ? 0 : O_TRUNC);
}

function writeAll(fd: number, data: Buffer): void {
  for (let off = 0; off < data.length; ) off += fs.writeSync(fd, data, off);
}

export interface SrunOutputSettings {
  label: boolean;
  ntasks: number;
  /** srun's working directory: the files it opens itself are relative to it. */
  cwd: string;
  /**
   * Each node's tasks and the files its slurmstepd opened for them
   * (nodeOutputFiles: the names the step request carries).
   */
  nodes: { gtids: number[]; files: string[] }[];
  append: boolean;
  /** 24.11: srun makes the missing directories of a file it opens. */
  makesParents: boolean;
}

export class SrunOutput {
  private readonly fds: number[] = [];
  private readonly local = new Map<Stream, Sink>();
  /** Each task's files on its node (per-task names): [stdout's, stderr's], '' for none, and the node's task count. */
  private readonly taskFiles = new Map<number, { files: [string, string]; nodeTasks: number }>();
  private readonly fileSinks = new Map<string, Sink>();
  private readonly partial = new Map<string, { sink: Sink; gtid: number; data: Buffer }>();
  private ended = false;

  constructor(
    private readonly plan: StepOutputPlan,
    private readonly settings: SrunOutputSettings,
    private readonly console: CommandConsole,
  ) {
    for (const node of settings.nodes)
      node.gtids.forEach((gtid, i) => this.taskFiles.set(gtid, { files: [node.files[2 * i] ?? '', node.files[2 * i + 1] ?? ''], nodeTasks: node.gtids.length }));
  }

  /**
   * srun opens the files it writes itself (IO_ALL with a name): the output's,
   * then the error's unless it shares the output's. The failure as srun
   * prints it ("Could not open stdout file: ..."), or undefined.
   */
  open(): string | undefined {
    const width = labelWidth(this.settings.ntasks);
    for (const stream of ['stdout', 'stderr'] as const) {
      if (stream === 'stderr' && this.plan.errSharesOut) {
        this.local.set('stderr', this.local.get('stdout')!);
        continue;
      }
      const p = this.plan[stream];
      if (p.kind === 'all' && p.file !== undefined) {
        const fd = this.openLocal(p.file);
        if (typeof fd === 'string') return `Could not open ${stream} file: ${fd}`;
        this.fds.push(fd);
        this.local.set(stream, this.fileSink(fd, path.resolve(this.settings.cwd, p.file), width));
      } else {
        this.local.set(stream, { write: (d) => (stream === 'stdout' ? this.console.stdout(d) : this.console.stderr(d)), labelWidth: width });
      }
    }
    return undefined;
  }

  private openLocal(file: string): number | string {
    const full = path.resolve(this.settings.cwd, file);
    const flags = fileFlags(this.settings.append);
    try {
      return fs.openSync(full, flags, 0o644);
    } catch (error) {
      if (!(this.settings.makesParents && (error as NodeJS.ErrnoException).code === 'ENOENT')) return strerrorText(error);
    }
    // mkdirpath(path, 0755, false): every missing directory above the file.
    try {
      fs.mkdirSync(path.dirname(full), { recursive: true, mode: 0o755 });
    } catch {
      // A part that is not a directory shows in the open that follows.
    }
    try {
      return fs.openSync(full, flags, 0o644);
    } catch (error) {
      return strerrorText(error);
    }
  }

  /** Bytes a task wrote on one of its streams. */
  write(gtid: number, stream: Stream, data: Buffer): void {
    if (this.ended) return;
    const sink = this.sinkOf(gtid, stream);
    if (!sink) return;
    if (!this.settings.label) return sink.write(data);
    const key = `${gtid}\u0000${stream}`;
    const held = this.partial.get(key);
    const bytes = held ? Buffer.concat([held.data, data]) : data;
    const end = bytes.lastIndexOf(0x0a) + 1;
    if (end < bytes.length) this.partial.set(key, { sink, gtid, data: bytes.subarray(end) });
    else this.partial.delete(key);
    if (end === 0) return;
    const prefix = Buffer.from(`${String(gtid).padStart(sink.labelWidth)}: `);
    const out: Buffer[] = [];
    for (let start = 0; start < end; ) {
      const nl = bytes.indexOf(0x0a, start);
      out.push(prefix, bytes.subarray(start, nl + 1));
      start = nl + 1;
    }
    sink.write(Buffer.concat(out));
  }

  /** The step has ended: a labelled last line without a newline gets one, and the files are closed (once). */
  end(): void {
    if (this.ended) return;
    for (const { sink, gtid, data } of this.partial.values())
      sink.write(Buffer.concat([Buffer.from(`${String(gtid).padStart(sink.labelWidth)}: `), data, Buffer.from('\n')]));
    this.partial.clear();
    this.ended = true;
    for (const fd of this.fds.splice(0)) {
      try {
        fs.closeSync(fd);
      } catch {
        // Its writes were checked as they went; a close cannot lose more here.
      }
    }
  }

  /** Where a task's stream goes: undefined for /dev/null. */
  private sinkOf(gtid: number, stream: Stream): Sink | undefined {
    // An error that shares the output's descriptor follows the output's plan.
    const p: TaskOutputPlan = stream === 'stderr' && this.plan.errSharesOut ? this.plan.stdout : this.plan[stream];
    switch (p.kind) {
      case 'all':
        return this.local.get(stream);
      case 'one':
        return gtid === p.task ? this.local.get(stream) : undefined;
      case 'none':
        return undefined;
      case 'perTask':
      case 'file': {
        const task = this.taskFiles.get(gtid);
        const file = task?.files[stream === 'stdout' ? 0 : 1];
        return task && file ? this.taskFile(file, task.nodeTasks) : undefined;
      }
    }
  }

  /**
   * A file the task's slurmstepd opened: written at its end from here on.
   * slurmstepd's local client pads the labels to its node's task count.
   */
  private taskFile(file: string, nodeTasks: number): Sink {
    const key = `${nodeTasks}\u0000${file}`;
    let sink = this.fileSinks.get(key);
    if (!sink) {
      const width = labelWidth(nodeTasks);
      try {
        const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND);
        this.fds.push(fd);
        sink = this.fileSink(fd, file, width);
      } catch (error) {
        // Removed or replaced since slurmstepd opened it: what the task writes is lost, and said so once.
        this.lost(file, error);
        sink = { write: () => {}, labelWidth: width };
      }
      this.fileSinks.set(key, sink);
    }
    return sink;
  }

  /** Writes into a file; one that fails (a full disk) is said once, and what follows is dropped. */
  private fileSink(fd: number, file: string, width: number): Sink {
    let failed = false;
    return {
      labelWidth: width,
      write: (d) => {
        if (failed) return;
        try {
          writeAll(fd, d);
        } catch (error) {
          failed = true;
          this.lost(file, error);
        }
      },
    };
  }

  private lost(file: string, error: unknown): void {
    this.console.log('error', `could not write the tasks' output into ${file}: ${strerrorText(error)}`, 'plugstack');
  }
}
