/**
 * The job prolog and epilog around a command's job, as slurmd runs them
 * with the default PrologFlags: the prolog on a node when the job's first
 * step (or batch script) is launched there, the epilog on every node of the
 * job once it has ended. Whether SPANK takes part at all is what slurmd
 * learned scanning plugstack.conf: some plugin defines job_prolog /
 * job_epilog. A failing prolog or epilog drains the node.
 */
import fs from 'node:fs';
import path from 'node:path';
import { jobScriptEnvironment, prestartJobScript, runJobScript, type SpareOwner } from '../daemon/job-script.js';
import type { JobCredential, JobScriptMode, JobScriptOptions, JobScriptResult } from '../daemon/types.js';
import { endedJobInfo, jobInfo, jobTimes, type JobEnding, type JobInfo } from './job-info.js';
import type { HostHandle } from '../host/host-process.js';
import type { SpareHost } from '../host/spare-host.js';
import { scanStack, type SlurmdScan } from './slurmd-scan.js';
import type { CommandStack } from '../commands/srun.js';
import type { Job } from './jobs.js';
import type { StepResult } from '../step/types.js';
import { compressCounts } from '../step/layout.js';

/**
 * The job's end, its srun steps given (not the batch step): each step's exit
 * code is the highest its nodes' slurmstepds reported (_step_partial_comp),
 * and the job's derived exit code the highest of its steps' (step_mgr.c).
 * A command's job cancelled or past its time limit says so (cut).
 */
export function jobEnd(exitStatus: number, sruns: readonly StepResult[], state?: 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TIMEOUT'): JobEnding {
  let derivedExitCode = 0;
  for (const step of sruns) for (const node of step.nodes) derivedExitCode = Math.max(derivedExitCode, node.exitCode >>> 0);
  const cut = state === 'CANCELLED' || state === 'TIMEOUT' ? state : undefined;
  return { exitStatus, derivedExitCode, ...(cut ? { cut } : {}) };
}

export const PROLOG_DRAIN_REASON = 'Prolog error';
export const EPILOG_DRAIN_REASON = 'Epilog error';

/** Each job's scan as this process knows it (a command asks up to four times per job). */
const jobScans = new WeakMap<Job, SlurmdScan>();

/**
 * slurmd's scan of plugstack.conf (slurmd-scan.ts), done once per job (the
 * job's slurmds started before it) and kept in the job's directory for the
 * sruns inside; read from there once per command.
 */
async function slurmdScan(stack: CommandStack, job: Job, owner?: HostOwner): Promise<SlurmdScan> {
  const known = jobScans.get(job);
  if (known) return known;
  const file = path.join(job.dir, 'slurmd-scan.json');
  let scan: SlurmdScan | undefined;
  // Looked for first: a read that fails (a new job's usual case) costs an exception.
  if (fs.existsSync(file))
    try {
      scan = JSON.parse(fs.readFileSync(file, 'utf8')) as SlurmdScan;
    } catch {
      // being written
    }
  if (!scan) {
    scan = await scanStack(stack, owner);
    fs.writeFileSync(file, JSON.stringify(scan));
  }
  jobScans.set(job, scan);
  return scan;
}

/** The file whose creation claims a node's prolog. */
function prologClaim(job: Job, node: string): string {
  return path.join(job.dir, `prolog-${node}`);
}

/** The first caller for a node gets true: that one runs the node's prolog. */
function claimProlog(job: Job, node: string): boolean {
  try {
    fs.writeFileSync(prologClaim(job, node), '', { flag: 'wx' });
    return true;
  } catch {
    return false;
  }
}

/** Who owns the helper processes (the command's control). */
export interface HostOwner {
  track(handle: HostHandle): HostHandle;
  /** A helper's process started ahead (prestartPrologs, prestartEpilogs), if any. */
  spare?(key: string): SpareHost | undefined;
}

export interface JobScriptContext {
  /** The command that owns the helpers: they end with it. */
  owner?: HostOwner;
  uid: number;
  gid: number;
  workDir: string;
  /** The job-control environment the command hands over (option variables included). */
  jobControlEnv: Record<string, string>;
  timeoutMs?: number;
}

/** When each job ended, as its first epilog fixed it. */
const jobEndTimes = new WeakMap<Job, number>();

/**
 * When the job ended, in seconds (the end time an epilog's credential
 * carries): the first epilog of the job (or its process started ahead)
 * fixes it, so every node's epilog gets the same. The epilogs all run in
 * the command that made the job (an srun inside a job runs none).
 */
function jobEndTime(job: Job): number {
  let end = jobEndTimes.get(job);
  if (end === undefined) jobEndTimes.set(job, (end = Math.floor(Date.now() / 1000)));
  return end;
}

/** What the job's credential carries (job-info.ts keeps the job's record): its task count, times, files. */
function credential(job: Job, mode: JobScriptMode): JobCredential {
  // The job's CPUs on its nodes where it has them whole (SLURM_JOB_CPUS_PER_NODE).
  const cpus = {
    ...(job.cpusPerNode ? { cpusPerNode: compressCounts(job.cpusPerNode) } : {}),
    ...(job.account !== undefined ? { account: job.account } : {}),
  };
  const d = job.description;
  if (!d) return cpus;
  const { start, end } = jobTimes(d);
  return {
    ...cpus,
    batch: d.batch,
    startTime: start,
    endTime: mode === 'epilog' ? jobEndTime(job) : end,
    stdIn: d.stdIn,
    stdOut: d.stdOut,
    stdErr: d.stdErr,
  };
}

function options(job: Job, node: string, ctx: JobScriptContext, mode: JobScriptMode): JobScriptOptions {
  return {
    jobId: job.id,
    uid: ctx.uid,
    gid: ctx.gid,
    node,
    nodes: job.nodes,
    workDir: ctx.workDir,
    jobControlEnv: ctx.jobControlEnv,
    partition: job.partition,
    // The job's (-n of the command that made it), also for an srun inside it.
    ...(job.ntasks !== undefined ? { ntasks: job.ntasks } : {}),
    // slurmd's slurm.conf, as its slurmstepds have it (none: none).
    ...(job.slurmdEnv ? { slurmConf: job.slurmdEnv.SLURM_CONF ?? null } : {}),
    credential: credential(job, mode),
    ...(ctx.timeoutMs !== undefined ? { timeoutMs: ctx.timeoutMs } : {}),
  };
}

/**
 * A helper's options with slurmd's environment for it, made once per
 * command, job, node and exit status: the process started ahead
 * (prestartPrologs, prestartEpilogs) and the run that takes it have the
 * same, and the environment is not built twice.
 */
const helperOptionsMade = new WeakMap<JobScriptContext, Map<string, { stack: CommandStack; options: JobScriptOptions }>>();
function helperOptions(stack: CommandStack, job: Job, node: string, ctx: JobScriptContext, mode: JobScriptMode, end?: JobEnding): JobScriptOptions {
  let made = helperOptionsMade.get(ctx);
  if (!made) helperOptionsMade.set(ctx, (made = new Map()));
  const key = `${job.id} ${mode} ${node} ${end ? `${end.exitStatus} ${end.derivedExitCode}` : ''}`;
  const kept = made.get(key);
  if (kept && kept.stack === stack) return kept.options;
  const o = { ...options(job, node, ctx, mode), ...(end ? { exitStatus: end.exitStatus, derivedExitCode: end.derivedExitCode } : {}) };
  o.environment = jobScriptEnvironment(stack, mode, o);
  made.set(key, { stack, options: o });
  return o;
}

/** The record slurm_load_job answers with while the job runs, as its steps get it (none for a job.json from before records were kept). */
function runningRecord(stack: CommandStack, job: Job): JobInfo | undefined {
  return job.description && jobInfo({ ...job, description: job.description }, stack.slurmVersion);
}

/**
 * Prologs for the nodes a launch is about to use that have not had theirs.
 * whileRunning is called once they have their requests (or there are none).
 */
export async function runPrologs(stack: CommandStack, job: Job, nodes: string[], ctx: JobScriptContext, whileRunning?: () => void): Promise<JobScriptResult[]> {
  if (!(await slurmdScan(stack, job, ctx.owner)).prolog) {
    whileRunning?.();
    return [];
  }
  const mine = nodes.filter((n) => claimProlog(job, n));
  const record = runningRecord(stack, job);
  const runs = Promise.all(mine.map((node) => runJobScript(stack, 'prolog', helperOptions(stack, job, node, ctx, 'prolog'), ctx.owner, record)));
  whileRunning?.();
  return runs;
}

/**
 * Starts the processes of the prologs runPrologs will run for these nodes
 * (spare-host.ts), while the command's own calls go on; each gets its
 * request when runPrologs runs it.
 */
export async function prestartPrologs(stack: CommandStack, job: Job, nodes: string[], ctx: JobScriptContext, spares: SpareOwner): Promise<void> {
  if (!(await slurmdScan(stack, job, ctx.owner)).prolog) return;
  for (const node of nodes)
    if (!fs.existsSync(prologClaim(job, node))) prestartJobScript(stack, 'prolog', helperOptions(stack, job, node, ctx, 'prolog'), spares);
}

/** Starts the processes of the job's epilogs (spare-host.ts), for runEpilogs with the same exit status. */
export async function prestartEpilogs(stack: CommandStack, job: Job, end: JobEnding, ctx: JobScriptContext, spares: SpareOwner): Promise<void> {
  if (!(await slurmdScan(stack, job, ctx.owner)).epilog) return;
  for (const node of job.nodes) prestartJobScript(stack, 'epilog', helperOptions(stack, job, node, ctx, 'epilog', end), spares);
}

/** Epilogs on every node of the job, once it has ended so. */
export async function runEpilogs(stack: CommandStack, job: Job, end: JobEnding, ctx: JobScriptContext): Promise<JobScriptResult[]> {
  if (!(await slurmdScan(stack, job, ctx.owner)).epilog) return [];
  const running = runningRecord(stack, job);
  const record = running && endedJobInfo(running, end, jobEndTime(job), stack.slurmVersion);
  return Promise.all(job.nodes.map((node) => runJobScript(stack, 'epilog', helperOptions(stack, job, node, ctx, 'epilog', end), ctx.owner, record)));
}

/**
 * The nodes slurmctld drains for these runs, with its reasons: a node
 * drained already keeps its first reason (a failed prolog's, when the
 * epilog then fails too: as a real 24.11 showed it).
 */
export function drainedBy(runs: JobScriptResult[]): { node: string; reason: string }[] {
  const drained = new Map<string, string>();
  for (const r of runs) if (!r.ok && !drained.has(r.node)) drained.set(r.node, r.mode === 'prolog' ? PROLOG_DRAIN_REASON : EPILOG_DRAIN_REASON);
  return [...drained].map(([node, reason]) => ({ node, reason }));
}
