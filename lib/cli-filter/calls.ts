/**
 * What the cli_filter plugins of one command did, read from its client
 * host's events: every hook call with its arguments, result, the options
 * set before and after it, and the log lines and problems it produced; and
 * what cli_filter/syslog would have sent to syslog.
 */
import type { HostEvent, LogEvent, ProblemEvent } from '../host/protocol.js';
import type { CommandName } from '../commands/types.js';

export type CliFilterHook = 'setup_defaults' | 'pre_submit' | 'post_submit';

/** The options that are set, by name, with what slurm_option_get prints (null for its NULL). */
export type CliFilterOptions = Record<string, string | null>;

export interface CliFilterCall {
  /** The plugin as slurm.conf names it: "cli_filter/lua". */
  plugin: string;
  command: CommandName;
  hook: CliFilterHook;
  /** setup_defaults: the pass (sbatch's first is early). */
  early?: boolean;
  /** pre_submit and post_submit: the het job component. */
  offset?: number;
  /** post_submit: the job and step (NO_VAL, 4294967294, for sbatch and salloc). */
  jobId?: number;
  stepId?: number;
  /** setup_defaults and pre_submit: the result (non-zero ends the command). */
  rc?: number;
  /** setup_defaults and pre_submit: the options set before and after the call. */
  before?: CliFilterOptions;
  after?: CliFilterOptions;
  /** Lines logged during the call (the script's slurm.log_* included). */
  log: { source: 'slurm' | 'plugin'; level: string; message: string }[];
  /** What Slurm passes over in silence (Lua errors, arity, non-numeric results, refused sets). */
  problems: { severity: 'error' | 'warning'; code: string; message: string; file?: string; line?: number }[];
}

export interface SyslogLine {
  plugin: string;
  ident: string;
  priority: string;
  message: string;
}

function options(list: { name: string; value: string | null }[] | undefined): CliFilterOptions | undefined {
  if (!list) return undefined;
  return Object.fromEntries(list.map((o) => [o.name, o.value]));
}

/** The cli_filter calls and syslog lines in a client's events, in order. */
export function cliFilterCalls(
  events: readonly HostEvent[],
  command: CommandName,
): { calls: CliFilterCall[]; syslog: SyslogLine[] } {
  const plugins = new Map<number, string>();
  const calls: CliFilterCall[] = [];
  const syslog: SyslogLine[] = [];
  let open: { log: LogEvent[]; problems: ProblemEvent[] } | undefined;
  for (const e of events) {
    switch (e.t) {
      case 'line':
        if (e.kind === 'cli_filter') plugins.set(e.ref, e.configPath);
        break;
      case 'enter':
        if (plugins.has(e.ref) && e.hook.startsWith('cli_filter_p_')) open = { log: [], problems: [] };
        break;
      case 'log':
        open?.log.push(e);
        break;
      case 'problem':
        open?.problems.push(e);
        break;
      case 'syslog':
        syslog.push({ plugin: plugins.get(e.ref) ?? String(e.ref), ident: e.ident, priority: e.priority, message: e.message });
        break;
      case 'cliFilter': {
        const call: CliFilterCall = {
          plugin: plugins.get(e.ref) ?? String(e.ref),
          command,
          hook: e.hook,
          log: (open?.log ?? []).map((l) => ({ source: l.source, level: l.level, message: l.msg })),
          problems: (open?.problems ?? []).map((p) => ({
            severity: p.severity,
            code: p.code,
            message: p.message,
            ...(p.file !== undefined ? { file: p.file } : {}),
            ...(p.line !== undefined ? { line: p.line } : {}),
          })),
        };
        for (const k of ['early', 'offset', 'jobId', 'stepId', 'rc'] as const) if (e[k] !== undefined) (call as unknown as Record<string, unknown>)[k] = e[k];
        const before = options(e.before);
        const after = options(e.after);
        if (before) call.before = before;
        if (after) call.after = after;
        calls.push(call);
        open = undefined;
        break;
      }
      default:
        break;
    }
  }
  return { calls, syslog };
}
