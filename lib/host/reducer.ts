/**
 * The one reducer: what a host process did in plugin code, folded from its
 * events in the order they came. Every role (check's inspect hosts, a
 * step's stepd hosts, the client, slurmd, the prolog/epilog helper) is read
 * through it, so a call, an item read, a log line or a problem looks the
 * same whoever reports it; each role then adds what only it has (tasks,
 * options, the client's answers) from the same events.
 */
import type { HostEvent, LineEvent, PluginEvent } from './protocol.js';

/** A plugin line of the config and what loading it gave. */
export interface ReducedPlugin {
  ref: number;
  configPath: string;
  file: string;
  line: number;
  required: boolean;
  args: string[];
  /** The outcome of loading it, once reported. */
  loaded?: PluginEvent;
}

/** One call into plugin code. */
export interface ReducedCall {
  ref: number;
  /** The plugin's path as written in the config. */
  plugin: string;
  hook: string;
  /** The process that made the call: the host, or a task child. */
  pid: number;
  /** The task (local id) a per-task callback ran for. */
  task?: number;
  rc?: number;
  /** Microseconds; absent when the call never returned. */
  us?: number;
  /** When the call started: microseconds of the system's monotonic clock (process.hrtime's), comparable across processes. */
  at?: number;
  /** option_cb: which option, its value and where it came from. */
  option?: string;
  value?: string;
  source?: string;
  remote?: number;
}

export interface ReducedItem {
  plugin: string;
  hook: string;
  item: string | number;
  rc: number;
  value?: unknown;
}

export interface ReducedEnv {
  plugin: string;
  hook: string;
  op: 'get' | 'set' | 'unset' | 'job_control_get' | 'job_control_set' | 'job_control_unset';
  name: string | null;
  value?: string;
  rc: number;
  task?: number;
}

export interface ReducedLog {
  source: 'slurm' | 'plugin';
  level: string;
  message: string;
  plugin?: string;
  hook?: string;
  bare?: boolean;
}

export interface ReducedProblem {
  severity: 'error' | 'warning';
  code: string;
  message: string;
  file?: string;
  line?: number;
  plugin?: string;
  hook?: string;
  rc?: number;
  option?: string;
  command?: 'srun' | 'sbatch' | 'salloc';
  /** The libslurm function a LIBSLURM_* problem is about. */
  function?: string;
}

/** A process plugin code started (spawned) or that was still there at the end (left). */
export interface ReducedProcess {
  pid: number;
  command: string;
  pgid: number;
  sid: number;
  plugin?: string;
  hook?: string;
  task?: number;
}

export class HostReducer {
  readonly plugins = new Map<number, ReducedPlugin>();
  readonly calls: ReducedCall[] = [];
  readonly items: ReducedItem[] = [];
  readonly env: ReducedEnv[] = [];
  readonly log: ReducedLog[] = [];
  readonly problems: ReducedProblem[] = [];
  readonly spawned: ReducedProcess[] = [];
  readonly left: ReducedProcess[] = [];
  readonly descriptorsLeft: { fd: number; target: string; plugin?: string; hook?: string; task?: number }[] = [];
  /** Calls entered and not yet left, per process, innermost last. */
  readonly open = new Map<number, ReducedCall[]>();
  hostPid = -1;

  /** The plugin's path as written in the config (its ref when unknown). */
  plugin(ref: number | undefined): string {
    return ref === undefined || ref < 0 ? '' : (this.plugins.get(ref)?.configPath ?? String(ref));
  }

  /** The call innermost in plugin code in a process, if any. */
  running(pid: number = this.hostPid): ReducedCall | undefined {
    const list = this.open.get(pid);
    return list?.[list.length - 1];
  }

  add(e: HostEvent): void {
    switch (e.t) {
      case 'hello':
        this.hostPid = e.pid;
        break;
      case 'line':
        this.addLine(e);
        break;
      case 'plugin': {
        const p = this.plugins.get(e.ref);
        if (p) p.loaded = e;
        break;
      }
      case 'enter': {
        const call: ReducedCall = { ref: e.ref, plugin: this.plugin(e.ref), hook: e.hook, pid: e.pid };
        if (e.task !== undefined) call.task = e.task;
        if (e.at !== undefined) call.at = e.at;
        if (e.option !== undefined) call.option = e.option;
        if (e.value !== undefined) call.value = e.value;
        if (e.source !== undefined) call.source = e.source;
        if (e.remote !== undefined) call.remote = e.remote;
        const list = this.open.get(e.pid) ?? [];
        list.push(call);
        this.open.set(e.pid, list);
        break;
      }
      case 'leave': {
        const call = this.open.get(e.pid)?.pop() ?? { ref: e.ref, plugin: this.plugin(e.ref), hook: e.hook, pid: e.pid };
        call.us = e.us;
        if (e.rc !== undefined) call.rc = e.rc;
        this.calls.push(call);
        break;
      }
      case 'item': {
        const read: ReducedItem = { plugin: this.plugin(e.ref), hook: e.hook, item: e.item, rc: e.rc };
        if ('value' in e) read.value = e.value;
        this.items.push(read);
        break;
      }
      case 'env': {
        const op: ReducedEnv = { plugin: this.plugin(e.ref), hook: e.hook, op: e.op, name: e.name, rc: e.rc };
        if (e.value !== undefined) op.value = e.value;
        if (e.task !== undefined) op.task = e.task;
        this.env.push(op);
        break;
      }
      case 'log': {
        const line: ReducedLog = { source: e.source, level: e.level, message: e.msg };
        if (e.ref !== undefined) line.plugin = this.plugin(e.ref);
        if (e.hook !== undefined) line.hook = e.hook;
        if (e.bare) line.bare = true;
        this.log.push(line);
        break;
      }
      case 'problem': {
        const p: ReducedProblem = { severity: e.severity, code: e.code, message: e.message };
        if (e.ref !== undefined) p.plugin = this.plugin(e.ref);
        for (const k of ['file', 'line', 'hook', 'rc', 'option', 'command', 'function'] as const)
          if (e[k] !== undefined) (p as unknown as Record<string, unknown>)[k] = e[k];
        this.problems.push(p);
        break;
      }
      case 'warning': {
        const p: ReducedProblem = { severity: 'warning', code: e.code, message: e.message };
        if (e.ref !== undefined) p.plugin = this.plugin(e.ref);
        if (e.hook !== undefined) p.hook = e.hook;
        this.problems.push(p);
        break;
      }
      case 'spawned':
        this.spawned.push(this.process(e));
        break;
      case 'left':
        this.left.push(this.attribute(this.process(e)));
        break;
      case 'fd_left': {
        const d: HostReducer['descriptorsLeft'][number] = { fd: e.fd, target: e.target };
        if (e.ref !== undefined) d.plugin = this.plugin(e.ref);
        if (e.hook !== undefined) d.hook = e.hook;
        if (e.task !== undefined) d.task = e.task;
        this.descriptorsLeft.push(d);
        break;
      }
      default:
        break;
    }
  }

  private addLine(e: LineEvent): void {
    this.plugins.set(e.ref, {
      ref: e.ref,
      configPath: e.configPath,
      file: e.file,
      line: e.line,
      required: e.required,
      args: e.args,
    });
  }

  /**
   * Who started a process found left behind: the plugin code that was seen
   * starting it, or the one that started its session or process group (a
   * daemon forked twice after setsid is not the process that was seen).
   */
  private attribute(p: ReducedProcess): ReducedProcess {
    const origin =
      this.spawned.find((s) => s.pid === p.pid) ??
      this.spawned.find((s) => s.pid === p.sid) ??
      this.spawned.find((s) => s.pid === p.pgid);
    if (origin?.plugin !== undefined) p.plugin = origin.plugin;
    if (origin?.hook !== undefined) p.hook = origin.hook;
    if (origin?.task !== undefined) p.task = origin.task;
    return p;
  }

  private process(e: { pid: number; command: string; pgid: number; sid: number; ref?: number; hook?: string; task?: number }): ReducedProcess {
    const p: ReducedProcess = { pid: e.pid, command: e.command, pgid: e.pgid, sid: e.sid };
    if (e.ref !== undefined) p.plugin = this.plugin(e.ref);
    if (e.hook !== undefined) p.hook = e.hook;
    if (e.task !== undefined) p.task = e.task;
    return p;
  }
}
