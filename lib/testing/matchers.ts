/**
 * Assertions that read like the questions plugin authors ask of a run.
 * Each is a matcher in the shape vitest's (and jest's) expect.extend takes;
 * `plugstack/testing/vitest` installs them. A failure shows the calls,
 * problems or tasks that are there instead.
 */
import {
  formatCall,
  isRunResult,
  matchesFilter,
  runCalls,
  runExitCode,
  runProblems,
  runTasks,
  sameHook,
  samePlugin,
  taskEnv,
  type CallFilter,
  type RunCall,
  type RunProblem,
  type RunResult,
} from './calls.js';

export interface MatcherContext {
  isNot?: boolean;
}

export interface MatcherResult {
  pass: boolean;
  message: () => string;
}

/** Where a problem happened: any field given must match. */
export interface ProblemFilter {
  plugin?: string;
  hook?: string;
  task?: number;
  node?: number;
}

const MAX_LINES = 40;

function list(lines: string[], empty: string): string {
  if (lines.length === 0) return `  ${empty}`;
  const shown = lines.slice(0, MAX_LINES).map((l) => `  ${l}`);
  if (lines.length > MAX_LINES) shown.push(`  ... and ${lines.length - MAX_LINES} more`);
  return shown.join('\n');
}

function where(f: object): string {
  const parts = Object.entries(f).filter(([, v]) => v !== undefined).map(([k, v]) => `${k} ${v}`);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

function notARun(received: unknown): MatcherResult {
  return { pass: false, message: () => `expected the result of srun, sbatch, salloc, launchStep, prolog or epilog, got ${typeof received}` };
}

function formatProblem(p: RunProblem): string {
  const at = [p.context, p.node !== undefined ? `node ${p.node}` : '', p.task !== undefined ? `task ${p.task}` : ''].filter(Boolean).join(', ');
  return `${p.code} (${at})${p.plugin ? ` ${p.plugin}` : ''}${p.hook ? ` ${p.hook}` : ''}: ${p.message}`;
}

export const matchers = {
  /** A call of this plugin's hook happened (in the task, node, context given; with the rc given). */
  toHaveCalled(this: MatcherContext, received: unknown, plugin: string, hook: string, filter: CallFilter = {}): MatcherResult {
    if (!isRunResult(received)) return notARun(received);
    const calls = runCalls(received);
    const ofPlugin = calls.filter((c) => samePlugin(c.plugin, plugin));
    const found = ofPlugin.filter((c) => sameHook(c.hook, hook) && matchesFilter(c, filter));
    const shown: RunCall[] = this.isNot ? found : ofPlugin.length ? ofPlugin : calls;
    return {
      pass: found.length > 0,
      message: () =>
        `expected ${plugin}'s ${hook}${where(filter)} ${this.isNot ? 'not ' : ''}to be called; ${
          this.isNot ? 'it was' : ofPlugin.length ? `the calls of ${plugin} were` : `${plugin} made no call; all calls were`
        }:\n${list(shown.map(formatCall), 'no calls')}`,
    };
  },

  /** The task's environment, as it printed it with `env` or `printenv`, has NAME (with this value). */
  toHaveTaskEnv(this: MatcherContext, received: unknown, task: number, name: string, value?: string | RegExp): MatcherResult {
    if (!isRunResult(received)) return notARun(received);
    const env = taskEnv(received, task);
    const actual = env?.[name];
    const pass = actual !== undefined && (value === undefined || (typeof value === 'string' ? actual === value : value.test(actual)));
    const want = value === undefined ? name : `${name}=${value}`;
    return {
      pass,
      message: () =>
        env === undefined
          ? `expected task ${task} to exist; the tasks are ${runTasks(received).map((t) => t.task).join(', ') || 'none'}`
          : `expected task ${task}'s environment ${this.isNot ? 'not ' : ''}to have ${want}; ${
              actual === undefined ? `${name} is not set` : `${name}=${actual}`
            } (read from what the task printed: run \`env\` or \`printenv\` as its command)`,
    };
  },

  /** A problem with this code (PLUGIN_CRASHED, PLUGIN_INIT_FAILED, ...) is in the result, where given. */
  toHaveFailedWith(this: MatcherContext, received: unknown, code: string, filter: ProblemFilter = {}): MatcherResult {
    if (!isRunResult(received)) return notARun(received);
    const problems = runProblems(received);
    const found = problems.filter(
      (p) =>
        p.code === code &&
        (filter.plugin === undefined || (p.plugin !== undefined && samePlugin(p.plugin, filter.plugin))) &&
        (filter.hook === undefined || (p.hook !== undefined && sameHook(p.hook, filter.hook))) &&
        (filter.task === undefined || p.task === filter.task) &&
        (filter.node === undefined || p.node === filter.node),
    );
    const failed = runCalls(received).filter((c) => c.rc !== undefined && c.rc < 0);
    return {
      pass: found.length > 0,
      message: () =>
        `expected ${this.isNot ? 'no' : 'a'} ${code} problem${where(filter)}; the problems were:\n${list(
          (this.isNot ? found : problems).map(formatProblem),
          'none',
        )}\nand the calls that returned < 0:\n${list(failed.map(formatCall), 'none')}`,
    };
  },

  /** The command exits with this status (a step: its exit code; a prolog/epilog: the helper's status). */
  toHaveExitCode(this: MatcherContext, received: unknown, code: number): MatcherResult {
    if (!isRunResult(received)) return notARun(received);
    const actual = runExitCode(received);
    const tasks = runTasks(received).map((t) => `task ${t.task}: ${t.signal ?? `exit ${t.exitCode}`}`);
    const problems = runProblems(received).filter((p) => p.severity === 'error').map(formatProblem);
    return {
      pass: actual === code,
      message: () =>
        `expected exit code ${this.isNot ? 'not ' : ''}${code}, got ${actual}; tasks:\n${list(tasks, 'none')}\nerrors:\n${list(problems, 'none')}`,
    };
  },

  /** The task exited with this code, or was killed by this signal ('SIGSEGV'). */
  toHaveTaskExit(this: MatcherContext, received: unknown, task: number, expected: number | string): MatcherResult {
    if (!isRunResult(received)) return notARun(received);
    const t = runTasks(received).find((x) => x.task === task);
    const actual = t ? (t.signal ?? t.exitCode) : undefined;
    return {
      pass: t !== undefined && actual === expected,
      message: () =>
        `expected task ${task} ${this.isNot ? 'not ' : ''}to end with ${expected}; ${t ? `it ended with ${actual}` : 'there is no such task'}\ncalls of the task:\n${list(
          runCalls(received).filter((c) => c.task === task).map(formatCall),
          'none',
        )}`,
    };
  },

  /** A plugin (or Slurm's code) logged a line matching this text or pattern. */
  toHaveLogged(this: MatcherContext, received: unknown, pattern: string | RegExp, filter: { plugin?: string } = {}): MatcherResult {
    if (!isRunResult(received)) return notARun(received);
    const lines = logLines(received).filter((l) => filter.plugin === undefined || (l.plugin !== undefined && samePlugin(l.plugin, filter.plugin)));
    const found = lines.filter((l) => (typeof pattern === 'string' ? l.message.includes(pattern) : pattern.test(l.message)));
    return {
      pass: found.length > 0,
      message: () => `expected a log line ${this.isNot ? 'not ' : ''}matching ${String(pattern)}${where(filter)}; the lines were:\n${list(
        (this.isNot ? found : lines).map((l) => `${l.level}: ${l.message}`),
        'none',
      )}`,
    };
  },
};

function logLines(r: RunResult): { level: string; message: string; plugin?: string }[] {
  if ('client' in r) return [...r.client.log, ...r.jobScripts.flatMap((j) => j.log), ...r.steps.flatMap((s) => s.log)];
  return r.log;
}

/** The matchers' types, for `declare module 'vitest' { interface Assertion<T> extends PlugstackMatchers<T> {} }`. */
export interface PlugstackMatchers<R = unknown> {
  toHaveCalled(plugin: string, hook: string, filter?: CallFilter): R;
  toHaveTaskEnv(task: number, name: string, value?: string | RegExp): R;
  toHaveFailedWith(code: string, filter?: ProblemFilter): R;
  toHaveExitCode(code: number): R;
  toHaveTaskExit(task: number, expected: number | string): R;
  toHaveLogged(pattern: string | RegExp, filter?: { plugin?: string }): R;
}

export type { RunResult } from './calls.js';
