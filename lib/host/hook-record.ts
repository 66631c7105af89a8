/**
 * What one host process did in plugin code, for the roles that are a
 * single process (slurmd, the prolog/epilog helper): calls, item reads,
 * environment operations, log lines and problems, with plugins named by
 * their path as written in the config.
 */
import type { Problem } from '../check/types.js';
import type { SpankContext } from '../spank.js';
import type { HostEvent } from './events.js';
import type { HostRun } from './host-process.js';

export interface ProcessHookCall {
  plugin: string;
  hook: string;
  rc?: number;
  /** Microseconds; absent when the call never returned. */
  us?: number;
}

export interface ProcessItemRead {
  plugin: string;
  hook: string;
  item: string | number;
  rc: number;
  value?: unknown;
}

export interface ProcessEnvOperation {
  plugin: string;
  hook: string;
  op: string;
  name: string | null;
  value?: string;
  rc: number;
}

export interface ProcessLogLine {
  source: 'slurm' | 'plugin';
  level: string;
  message: string;
  plugin?: string;
  hook?: string;
}

export interface ProcessRecord {
  calls: ProcessHookCall[];
  items: ProcessItemRead[];
  env: ProcessEnvOperation[];
  log: ProcessLogLine[];
  problems: Problem[];
}

export class HookRecorder {
  readonly record: ProcessRecord = { calls: [], items: [], env: [], log: [], problems: [] };
  private readonly plugins = new Map<number, string>();

  constructor(private readonly context: SpankContext) {}

  plugin(ref: number | undefined): string {
    return ref === undefined ? '' : (this.plugins.get(ref) ?? String(ref));
  }

  add(e: HostEvent): void {
    const r = this.record;
    switch (e.t) {
      case 'line':
        this.plugins.set(e.ref, e.configPath);
        break;
      case 'leave': {
        const call: ProcessHookCall = { plugin: this.plugin(e.ref), hook: e.hook, us: e.us };
        if (e.rc !== undefined) call.rc = e.rc;
        r.calls.push(call);
        break;
      }
      case 'item': {
        const read: ProcessItemRead = { plugin: this.plugin(e.ref), hook: e.hook, item: e.item, rc: e.rc };
        if ('value' in e) read.value = e.value;
        r.items.push(read);
        break;
      }
      case 'env': {
        const op: ProcessEnvOperation = { plugin: this.plugin(e.ref), hook: e.hook, op: e.op, name: e.name, rc: e.rc };
        if (e.value !== undefined) op.value = e.value;
        r.env.push(op);
        break;
      }
      case 'log': {
        const line: ProcessLogLine = { source: e.source, level: e.level, message: e.msg };
        if (e.ref !== undefined) line.plugin = this.plugin(e.ref);
        if (e.hook !== undefined) line.hook = e.hook;
        r.log.push(line);
        break;
      }
      case 'problem':
      case 'warning': {
        const p: Problem = { severity: e.t === 'warning' ? 'warning' : e.severity, code: e.code, message: e.message, context: this.context };
        if (e.ref !== undefined) p.plugin = this.plugin(e.ref);
        if (e.hook !== undefined) p.hook = e.hook;
        if (e.t === 'problem') {
          if (e.rc !== undefined) p.rc = e.rc;
          if (e.file !== undefined) p.file = e.file;
          if (e.line !== undefined) p.line = e.line;
        }
        r.problems.push(p);
        break;
      }
      default:
        break;
    }
  }

  /** A host that crashed, exited or hung: the problem, pinned on the plugin code that was running. */
  addFault(run: HostRun, who: string): void {
    const fault = run.fault;
    if (!fault) return;
    const code =
      fault.kind === 'signal'
        ? 'PLUGIN_CRASHED'
        : fault.kind === 'timeout'
          ? 'PLUGIN_TIMEOUT'
          : fault.kind === 'exit'
            ? fault.exitCode === 127 && /symbol lookup error/.test(run.stderr)
              ? 'PLUGIN_UNDEFINED_SYMBOL'
              : 'PLUGIN_EXITED'
            : 'HOST_PROTOCOL';
    const inPlugin = fault.ref !== undefined;
    const p: Problem = {
      severity: 'error',
      code: inPlugin || fault.kind === 'timeout' ? code : 'HOST_FAILED',
      message: `${who}${inPlugin ? `: ${this.plugin(fault.ref)} in ${fault.hook}` : ''}: ${fault.message}`,
      context: this.context,
    };
    if (inPlugin) p.plugin = this.plugin(fault.ref);
    if (fault.hook !== undefined) p.hook = fault.hook;
    if (fault.signal) p.signal = fault.signal;
    this.record.problems.push(p);
  }
}
