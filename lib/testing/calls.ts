/**
 * The questions plugin authors ask of a run, answered from any result
 * (srun/sbatch/salloc, launchStep, prolog/epilog): every call into plugin
 * code in one list, every problem, each task's output and status.
 */
import path from 'node:path';
import type { Problem } from '../check/types.js';
import type { CommandResult } from '../commands/types.js';
import type { JobScriptResult } from '../daemon/types.js';
import type { StepResult, TaskResult } from '../step/types.js';

export type RunResult = CommandResult | StepResult | JobScriptResult;

/** One call into plugin code, wherever it happened. */
export interface RunCall {
  plugin: string;
  hook: string;
  context: string;
  /** Which process: "srun", "node0 stepd", "task 3", "prolog node0". */
  where: string;
  node?: number;
  task?: number;
  rc?: number;
  us?: number;
}

export interface RunProblem extends Problem {
  node?: number;
  task?: number;
}

/** Which calls to look at: any field given must match. */
export interface CallFilter {
  task?: number;
  node?: number;
  context?: string;
  rc?: number;
}

function isCommand(r: RunResult): r is CommandResult {
  return 'client' in r && 'steps' in r;
}
function isStep(r: RunResult): r is StepResult {
  return 'nodes' in r && 'tasks' in r && 'stepId' in r;
}
function isJobScript(r: RunResult): r is JobScriptResult {
  return 'mode' in r && 'environment' in r;
}

export function isRunResult(value: unknown): value is RunResult {
  if (!value || typeof value !== 'object') return false;
  const r = value as RunResult;
  return isCommand(r) || isStep(r) || isJobScript(r);
}

function stepCalls(step: StepResult): RunCall[] {
  return step.calls.map((c) => {
    const call: RunCall = { plugin: c.plugin, hook: c.hook, context: 'remote', where: c.role === 'task' ? `task ${c.task}` : `node${c.node} stepd`, node: c.node };
    if (c.task !== undefined) call.task = c.task;
    if (c.rc !== undefined) call.rc = c.rc;
    if (c.us !== undefined) call.us = c.us;
    return call;
  });
}

function jobScriptCalls(js: JobScriptResult): RunCall[] {
  return js.calls.map((c) => {
    const call: RunCall = { plugin: c.plugin, hook: c.hook, context: 'job_script', where: `${js.mode} ${js.node}` };
    if (c.rc !== undefined) call.rc = c.rc;
    if (c.us !== undefined) call.us = c.us;
    return call;
  });
}

export function runCalls(r: RunResult): RunCall[] {
  if (isStep(r)) return stepCalls(r);
  if (isJobScript(r)) return jobScriptCalls(r);
  const client = r.client.calls.map((c) => {
    const call: RunCall = { plugin: c.plugin, hook: c.hook, context: c.context, where: r.command };
    if (c.rc !== undefined) call.rc = c.rc;
    if (c.us !== undefined) call.us = c.us;
    return call;
  });
  return [...client, ...r.jobScripts.flatMap(jobScriptCalls), ...r.steps.flatMap(stepCalls)];
}

export function runProblems(r: RunResult): RunProblem[] {
  if (isStep(r) || isJobScript(r)) return r.problems;
  return [...r.client.problems, ...r.jobScripts.flatMap((j) => j.problems), ...r.steps.flatMap((s) => s.problems)];
}

export function runTasks(r: RunResult): TaskResult[] {
  if (isStep(r)) return r.tasks;
  if (isJobScript(r)) return [];
  return r.steps.flatMap((s) => s.tasks);
}

export function runExitCode(r: RunResult): number | null {
  if (isJobScript(r)) return r.status;
  return r.exitCode;
}

/** A plugin named as the author knows it: its path, file name, or file name without .so. */
export function samePlugin(path_: string, name: string): boolean {
  const base = path.basename(path_);
  return path_ === name || base === name || base.replace(/\.so$/, '') === name;
}

/** A hook named with or without slurm_spank_. */
export function sameHook(hook: string, name: string): boolean {
  return hook === name || hook === `slurm_spank_${name}`;
}

export function matchesFilter(c: RunCall, f: CallFilter): boolean {
  return (
    (f.task === undefined || c.task === f.task) &&
    (f.node === undefined || c.node === f.node) &&
    (f.context === undefined || c.context === f.context) &&
    (f.rc === undefined || c.rc === f.rc)
  );
}

export function formatCall(c: RunCall): string {
  const rc = c.rc === undefined ? 'no rc' : `rc ${c.rc}`;
  return `${c.where.padEnd(14)} ${c.context.padEnd(10)} ${path.basename(c.plugin)} ${c.hook} (${rc}${c.task !== undefined ? `, task ${c.task}` : ''})`;
}

/** The environment a task printed with `env` or `printenv` (NAME=VALUE per line, or NUL-separated with -0). */
export function taskEnv(r: RunResult, task: number): Record<string, string> | undefined {
  const t = runTasks(r).find((x) => x.task === task);
  if (!t) return undefined;
  const sep = t.stdout.includes('\0') ? '\0' : '\n';
  const env: Record<string, string> = {};
  for (const line of t.stdout.split(sep)) {
    const eq = line.indexOf('=');
    if (eq > 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(line.slice(0, eq))) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return env;
}
