/**
 * What a timeline shows, taken from a result: one lane per process (the
 * srun/sbatch/salloc client, each node's slurmstepd, each task, each
 * prolog or epilog helper, slurmd), each call into plugin code a bar, each
 * problem a mark, each task's life from fork to reaping.
 */
import type { Problem } from '../check/types.js';
import type { CommandResult } from '../commands/types.js';
import type { JobScriptResult } from '../daemon/types.js';
import type { ProcessHookCall, ProcessRecord } from '../host/process-record.js';
import type { StepResult } from '../step/types.js';

export type LaneKind = 'client' | 'stepd' | 'task' | 'prolog' | 'epilog' | 'slurmd';

export interface TimelineBar {
  plugin: string;
  hook: string;
  /** Start, in microseconds of the monotonic clock; absent when the host did not say. */
  at?: number;
  /** Duration; absent when the call never returned. */
  us?: number;
  rc?: number;
  /** The task a per-task callback ran for. */
  task?: number;
  /** rc < 0: the call failed as Slurm counts failure. */
  failed: boolean;
}

export interface TimelineMark {
  severity: 'error' | 'warning';
  code: string;
  message: string;
  plugin?: string;
  hook?: string;
  /** Where on the lane: the start of the call it belongs to, when known. */
  at?: number;
}

export interface TimelineLane {
  kind: LaneKind;
  label: string;
  /** A longer description for the hover text. */
  title: string;
  bars: TimelineBar[];
  marks: TimelineMark[];
  /** A task's life: fork to reaping, and how it ended. */
  life?: { start?: number; end?: number; status: string; ok: boolean };
}

export interface TimelineModel {
  title: string;
  /** The outcome in a few words: "exit 0", "exit 1, 2 problems". */
  outcome: string;
  lanes: TimelineLane[];
}

/** Anything a timeline can be drawn for. */
export type TimelineSource = CommandResult | StepResult | JobScriptResult | (ProcessRecord & { node?: string });

const BATCH_STEP = 0xfffffffb;

function bar(c: { plugin: string; hook: string; at?: number; us?: number; rc?: number; task?: number }): TimelineBar {
  const b: TimelineBar = { plugin: c.plugin, hook: c.hook, failed: c.rc !== undefined && c.rc < 0 };
  if (c.at !== undefined) b.at = c.at;
  if (c.us !== undefined) b.us = c.us;
  if (c.rc !== undefined) b.rc = c.rc;
  if (c.task !== undefined) b.task = c.task;
  return b;
}

function mark(p: Problem, bars: TimelineBar[]): TimelineMark {
  const m: TimelineMark = { severity: p.severity, code: p.code, message: p.message };
  if (p.plugin !== undefined) m.plugin = p.plugin;
  if (p.hook !== undefined) m.hook = p.hook;
  // The last call of that plugin and hook on the lane; a call that never
  // returned is the likeliest (a crash or hang is pinned on it).
  const match = [...bars].reverse().find((b) => b.plugin === p.plugin && p.hook !== undefined && hookMatches(b.hook, p.hook));
  if (match?.at !== undefined) m.at = match.us === undefined ? match.at : match.at + match.us;
  return m;
}

function hookMatches(callHook: string, problemHook: string): boolean {
  return callHook === problemHook || callHook === `slurm_spank_${problemHook}` || `slurm_spank_${callHook}` === problemHook;
}

function statusText(t: StepResult['tasks'][number]): string {
  if (t.signal) return t.signal;
  if (t.exitCode !== null) return `exit ${t.exitCode}`;
  return 'not reaped';
}

function stepName(step: StepResult): string {
  return step.stepId === BATCH_STEP ? `${step.jobId}.batch` : `${step.jobId}.${step.stepId}`;
}

function stepLanes(step: StepResult): TimelineLane[] {
  const lanes: TimelineLane[] = [];
  const name = stepName(step);
  for (const node of [...step.nodes].sort((a, b) => a.node - b.node)) {
    const bars = step.calls.filter((c) => c.node === node.node && c.role === 'stepd').map(bar);
    const problems = step.problems.filter((p) => p.node === node.node && p.task === undefined);
    const failed = node.failedAt ? `, stopped at ${node.failedAt}` : '';
    lanes.push({
      kind: 'stepd',
      label: `${name} ${node.name} stepd`,
      title: `slurmstepd of step ${name} on ${node.name} (remote context)${failed}${node.diedIn ? `, died in ${node.diedIn}` : ''}`,
      bars,
      marks: problems.map((p) => mark(p, bars)),
    });
    for (const t of step.tasks.filter((x) => x.node === node.node)) {
      const taskBars = step.calls.filter((c) => c.role === 'task' && c.task === t.task).map(bar);
      const taskProblems = step.problems.filter((p) => p.task === t.task && p.node === node.node);
      const life: NonNullable<TimelineLane['life']> = { status: statusText(t), ok: t.status === 0 };
      if (t.forkedAt !== undefined) life.start = t.forkedAt;
      if (t.reapedAt !== undefined) life.end = t.reapedAt;
      lanes.push({
        kind: 'task',
        label: `  task ${t.task}`,
        title: `task ${t.task} of step ${name} on ${node.name} (pid ${t.pid}${t.exec ? `, ${t.exec}` : ''}): ${life.status}`,
        bars: taskBars,
        marks: taskProblems.map((p) => mark(p, [...taskBars, ...bars])),
        life,
      });
    }
  }
  return lanes;
}

function processLane(kind: LaneKind, label: string, title: string, record: { calls: ProcessHookCall[]; problems: Problem[] }): TimelineLane {
  const bars = record.calls.map(bar);
  return { kind, label, title, bars, marks: record.problems.map((p) => mark(p, bars)) };
}

function jobScriptLane(js: JobScriptResult): TimelineLane {
  const how = js.signal ? `killed by ${js.signal}` : js.timedOut ? 'timed out' : `status ${js.status}`;
  return processLane(js.mode, `${js.mode} ${js.node}`, `SPANK ${js.mode} of job ${js.jobId} on ${js.node} (job_script context): ${how}`, js);
}

function isCommand(r: TimelineSource): r is CommandResult {
  return 'client' in r && 'steps' in r;
}
function isStep(r: TimelineSource): r is StepResult {
  return 'nodes' in r && 'tasks' in r && 'stepId' in r;
}
function isJobScript(r: TimelineSource): r is JobScriptResult {
  return 'mode' in r && 'jobId' in r && 'environment' in r;
}

function countProblems(lanes: TimelineLane[]): string {
  const n = lanes.reduce((s, l) => s + l.marks.filter((m) => m.severity === 'error').length, 0);
  return n === 0 ? '' : `, ${n} error${n === 1 ? '' : 's'}`;
}

/** The lanes of a result, in the order the processes run. */
export function timelineModel(result: TimelineSource): TimelineModel {
  if (isCommand(result)) {
    const c = result.client;
    const lanes: TimelineLane[] = [
      {
        ...processLane('client', result.command, `${result.command} (${c.context} context)${c.stoppedAt ? `, stopped at ${c.stoppedAt}` : ''}`, c),
      },
    ];
    // Prologs run before the first step on a node, epilogs after the job.
    for (const js of result.jobScripts.filter((j) => j.mode === 'prolog')) lanes.push(jobScriptLane(js));
    for (const step of result.steps) lanes.push(...stepLanes(step));
    for (const js of result.jobScripts.filter((j) => j.mode === 'epilog')) lanes.push(jobScriptLane(js));
    const job = result.job ? ` job ${result.job.jobId} ${result.job.state}` : '';
    return {
      title: `${result.command} ${result.args.join(' ')}`,
      outcome: `exit ${result.exitCode}${job}${countProblems(lanes)}`,
      lanes,
    };
  }
  if (isStep(result)) {
    const lanes = stepLanes(result);
    return { title: `step ${stepName(result)}`, outcome: `${result.ok ? 'ok' : 'failed'}, exit code ${result.exitCode}${countProblems(lanes)}`, lanes };
  }
  if (isJobScript(result)) {
    const lanes = [jobScriptLane(result)];
    return { title: `${result.mode} of job ${result.jobId} on ${result.node}`, outcome: `${result.ok ? 'ok' : 'failed'}${countProblems(lanes)}`, lanes };
  }
  const lanes = [processLane('slurmd', `slurmd ${result.node ?? ''}`.trim(), `slurmd${result.node ? ` on ${result.node}` : ''} (slurmd context)`, result)];
  return { title: 'slurmd', outcome: countProblems(lanes).slice(2) || 'ok', lanes };
}
