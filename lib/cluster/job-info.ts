/**
 * The job record slurmctld keeps for a job, as slurm_load_job hands it to a
 * plugin (slurm_job_info_t). The command that creates a job describes it
 * once (describeJob: what srun, sbatch or salloc put in their request, as
 * slurmctld stores it); jobInfo() turns a job into the record, keyed by
 * Slurm's own field names, which every process of the job is sent with its
 * request (a step's slurmstepd, srun's local_user_init) and answers
 * slurm_load_job from. A batch step and the sruns inside it read the same
 * job.json, so they see the same record; while any of its processes runs,
 * the job is RUNNING.
 *
 * Fields that Slurm fills and plugstack does not (accounting, GRES, TRES
 * strings, job resources, ...) are 0 or NULL; README.md lists what is filled.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { native } from '../native/binding.js';
import type { JobInfo } from '../host/protocol.generated.js';
import { releaseRules } from '../releases.generated.js';
import { signalText } from '../commands/console.js';
import { searchPath } from './search-path.js';
import { compressHostlist } from '../step/layout.js';

export type { JobInfo };

/** What the command that created the job asked for, as slurmctld stores it. */
export interface JobDescription {
  /** Seconds since the epoch; the job starts at once in plugstack. */
  submitTime: number;
  name: string | null;
  workDir: string;
  /** The program as srun was given it, or sbatch's script as it found it; null for salloc and --wrap. */
  command: string | null;
  batch: boolean;
  stdIn: string | null;
  stdOut: string | null;
  stdErr: string | null;
  cpusPerTask: number;
  userId: number;
  groupId: number;
  userName: string;
  /** The host and session the request came from. */
  allocNode: string;
  allocSid: number;
  /** Minutes, or INFINITE. */
  timeLimit: number;
}

const INFINITE = 0xffffffff;
/** Slurm's NO_VAL (0xfffffffe): "no value" in a uint32_t. */
export const NO_VAL = 0xfffffffe;
const JOB_RUNNING = 1;
/** details->nice is stored with this offset (nice 0). */
const NICE_OFFSET = 0x80000000;
/** priority/basic's first job after slurmctld starts (TOP_PRIORITY - 1). */
const FIRST_PRIORITY = 0xffff0000 - 1;
/** slurmctld sets the end of a job without a limit a year after its start. */
const YEAR_SECONDS = 365 * 24 * 60 * 60;

/** What differs between the releases in the record: the protocol version the job's steps start with. */
function release(slurmVersion: string): { protocolVersion: number } {
  return releaseRules(slurmVersion).identity;
}

/** The session of this process (field 6 of /proc/self/stat), as getsid(0): read once, as Node never calls setsid. */
let ownSession: number | undefined;
function sessionId(): number {
  return (ownSession ??= readSessionId());
}

function readSessionId(): number {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]) || 0;
  } catch {
    return 0;
  }
}

export interface DescribeJob {
  command: 'srun' | 'sbatch' | 'salloc';
  /** The command's positional arguments: srun's program, sbatch's script, salloc's command (default: the shell). */
  argv: readonly string[];
  cwd: string;
  env: Record<string, string | undefined>;
  jobName?: string;
  chdir?: string;
  output?: string;
  error?: string;
  /** sbatch -i. */
  input?: string;
  cpusPerTask?: number;
  timeLimitMs?: number;
  /** sbatch --wrap. */
  wrap?: boolean;
  /** salloc --no-shell. */
  noShell?: boolean;
}

/** The record of a job srun, sbatch or salloc is about to create. */
export function describeJob(d: DescribeJob): JobDescription {
  const workDir = path.resolve(d.cwd, d.chdir ?? '.');
  const uid = process.getuid!();
  const first = d.argv[0];
  let command: string | null = null;
  let name: string | null = d.jobName ?? null;
  if (d.command === 'srun' && first !== undefined) {
    // srun sends its program as given (it looks it up only for --test-only and --bcast).
    command = first;
    name ??= path.basename(first);
  } else if (d.command === 'sbatch') {
    // --wrap has no script argument.
    // sbatch's search for its script (opt.c): the working directory first,
    // no access test; a name it does not find stays as given.
    if (first !== undefined) command = searchPath(workDir, first, { cwdLast: false, accessMode: fs.constants.R_OK, testExec: false, pathVar: d.env.PATH }) ?? first;
    // A script read from standard input names no job: sbatch sends "sbatch".
    name ??= first !== undefined ? path.basename(first) : d.wrap ? 'wrap' : 'sbatch';
  } else if (d.command === 'salloc') {
    // salloc's opt.c: -J, else "no-shell" for an allocation alone, else
    // "interactive" whatever its command (a real 22.05's scontrol said so).
    name ??= d.noShell ? 'no-shell' : 'interactive';
  }
  // sbatch makes its -i, -o and -e paths absolute against its working
  // directory, the script's input /dev/null without -i; srun and salloc
  // send none.
  const full = (file: string | undefined) => (file === undefined ? null : path.resolve(workDir, file));
  const batch = d.command === 'sbatch';
  return {
    submitTime: Math.floor(Date.now() / 1000),
    name,
    workDir,
    command,
    batch,
    stdIn: batch ? (full(d.input) ?? '/dev/null') : null,
    stdOut: batch ? full(d.output) : null,
    stdErr: batch ? full(d.error) : null,
    cpusPerTask: d.cpusPerTask ?? 1,
    userId: uid,
    groupId: process.getgid!(),
    userName: native().userByUid(uid)?.name ?? String(uid),
    allocNode: os.hostname().split('.')[0]!,
    allocSid: sessionId(),
    timeLimit: d.timeLimitMs === undefined ? INFINITE : Math.ceil(d.timeLimitMs / 60_000),
  };
}

/** node_inx: pairs of first and last index of the job's nodes in the cluster's node table. */
function nodeIndexPairs(job: JobShape): number[] {
  // A job from before the table's indices were kept: plugstack's own node names' numbers.
  const index = job.nodeIndex ?? job.nodes.map((n, i) => Number(/(\d+)$/.exec(n)?.[1] ?? i));
  const pairs: number[] = [];
  for (const n of [...index].sort((a, b) => a - b)) {
    if (pairs.length && pairs[pairs.length - 1] === n - 1) pairs[pairs.length - 1] = n;
    else if (!(pairs.length && pairs[pairs.length - 1] === n)) pairs.push(n, n);
  }
  return pairs;
}

export interface JobShape {
  id: number;
  nodes: readonly string[];
  nodeIndex?: readonly number[];
  ntasks?: number;
  partition: string;
  clusterName: string;
  description: JobDescription;
  /** A task of a job array: array_job_id and array_task_id (0 and NO_VAL otherwise). */
  array?: { jobId: number; taskId: number };
}

/** The job's start and end as slurmctld sets them (seconds): it starts at once, ends at its time limit, a year later without one. */
export function jobTimes(d: JobDescription): { start: number; end: number } {
  const start = d.submitTime;
  return { start, end: d.timeLimit === INFINITE ? start + YEAR_SECONDS : start + d.timeLimit * 60 };
}

/** The record slurm_load_job answers with while the job runs, for the emulated release. */
export function jobInfo(job: JobShape, slurmVersion: string): JobInfo {
  const d = job.description;
  const numNodes = job.nodes.length;
  const cpus = (job.ntasks ?? numNodes) * d.cpusPerTask;
  const { start, end } = jobTimes(d);
  return {
    job_id: job.id,
    array_job_id: job.array?.jobId ?? 0,
    array_task_id: job.array?.taskId ?? NO_VAL,
    user_id: d.userId,
    user_name: d.userName,
    group_id: d.groupId,
    name: d.name,
    partition: job.partition,
    cluster: job.clusterName,
    nodes: compressHostlist([...job.nodes]),
    node_inx: nodeIndexPairs(job),
    num_nodes: numNodes,
    num_cpus: cpus,
    // A running job without -n reports its node count.
    num_tasks: job.ntasks ?? numNodes,
    cpus_per_task: d.cpusPerTask,
    time_limit: d.timeLimit,
    submit_time: d.submitTime,
    eligible_time: d.submitTime,
    accrue_time: d.submitTime,
    start_time: start,
    end_time: end,
    work_dir: d.workDir,
    command: d.command,
    std_in: d.stdIn,
    std_out: d.stdOut,
    std_err: d.stdErr,
    batch_flag: d.batch ? 1 : 0,
    batch_host: job.nodes[0] ?? '',
    alloc_node: d.allocNode,
    alloc_sid: d.allocSid,
    job_state: JOB_RUNNING,
    state_reason: 0,
    exit_code: 0,
    derived_ec: 0,
    priority: FIRST_PRIORITY,
    nice: NICE_OFFSET,
    requeue: 1,
    restart_cnt: 0,
    start_protocol_ver: release(slurmVersion).protocolVersion,
  };
}

/** slurm.h's job states and reasons a job's end sets (enum job_states, enum job_state_reason). */
const JOB_COMPLETE = 3;
const JOB_CANCELLED = 4;
const JOB_FAILED = 5;
const JOB_TIMEOUT = 6;
/** The flag of a job whose epilogs are running. */
const JOB_COMPLETING = 0x8000;
const FAIL_EXIT_CODE = 24;
const FAIL_TIMEOUT = 25;

/**
 * How a job ended, as slurmctld tells slurmd for its epilog and keeps in
 * its record: the job's raw exit status (srun's own job's step's, the batch
 * script's, salloc's command's), its derived exit code (the highest of its
 * srun steps': job-scripts.ts jobEnd), or its cancellation or time limit.
 */
export interface JobEnding {
  exitStatus: number;
  derivedExitCode: number;
  /** Cancelled (job_signal) or past its time limit (_job_timed_out) before any exit status came. */
  cut?: 'CANCELLED' | 'TIMEOUT';
}

/**
 * The record while the job's epilogs run, as slurmctld's _job_complete
 * leaves it: COMPLETING with the state its exit status gives — a non-zero
 * exit FAILED with reason FAIL_EXIT_CODE, a signal FAILED with the
 * release's reason (releases.json libslurm.signalledJobReason: 22.05's
 * FAIL_LAUNCH, 24.11's FAIL_SIGNAL, which also describes it in state_desc
 * as 'RaisedSignal:9(Killed)'), else COMPLETE — the status as
 * exit_code, the derived exit code, and the end time. A job cancelled
 * (job_signal) or past its time limit (job_time_limit, reason FAIL_TIMEOUT)
 * has finished before its script or step reports; _job_complete then only
 * fills in the exit code that was still 0. A real 22.05 and 24.11 gave a batch job
 * cancelled while its script slept CANCELLED, exit code 15 (SIGTERM),
 * reason 0, and one past its time limit TIMEOUT, 15, FAIL_TIMEOUT.
 */
export function endedJobInfo(running: JobInfo, end: JobEnding, endTime: number, slurmVersion: string): JobInfo {
  const status = end.exitStatus >>> 0;
  const signalled = (status & 0x7f) !== 0 && (status & 0x7f) !== 0x7f;
  const ended = { ...running, end_time: endTime, derived_ec: end.derivedExitCode >>> 0 };
  if (end.cut === 'CANCELLED') return { ...ended, job_state: JOB_CANCELLED | JOB_COMPLETING, exit_code: status };
  if (end.cut === 'TIMEOUT') return { ...ended, job_state: JOB_TIMEOUT | JOB_COMPLETING, state_reason: FAIL_TIMEOUT, exit_code: status };
  const rules = releaseRules(slurmVersion).libslurm;
  if (signalled) {
    const signal = status & 0x7f;
    const described = rules.signalledJobDescribed ? { state_desc: `RaisedSignal:${signal}(${signalText(signal)})` } : {};
    return { ...ended, job_state: JOB_FAILED | JOB_COMPLETING, state_reason: rules.signalledJobReason, exit_code: status, ...described };
  }
  const [state, reason] = (status >> 8) & 0xff ? [JOB_FAILED, FAIL_EXIT_CODE] : [JOB_COMPLETE, running.state_reason ?? 0];
  return { ...ended, job_state: state | JOB_COMPLETING, state_reason: reason, exit_code: status };
}

/** The record of a job plugstack created (a job.json from before records were kept gets a stand-in). */
export function jobRecordOf(
  job: { id: number; nodes: readonly string[]; ntasks?: number; partition: string; clusterName: string; description?: JobDescription; array?: { jobId: number; taskId: number } },
  slurmVersion: string,
  fallback: Parameters<typeof stepJobDescription>[0],
): JobInfo {
  return jobInfo({ ...job, description: job.description ?? stepJobDescription(fallback) }, slurmVersion);
}

/** A stand-in description for a step launched without a plugstack job (Plugstack#launchStep). */
export function stepJobDescription(s: {
  uid: number;
  gid: number;
  user?: string;
  argv: readonly string[];
  cwd: string;
  jobName?: string;
  cpusPerTask?: number;
}): JobDescription {
  return {
    submitTime: Math.floor(Date.now() / 1000),
    name: s.jobName ?? path.basename(s.argv[0]!),
    workDir: s.cwd,
    command: s.argv[0]!,
    batch: false,
    stdIn: null,
    stdOut: null,
    stdErr: null,
    cpusPerTask: s.cpusPerTask ?? 1,
    userId: s.uid,
    groupId: s.gid,
    userName: s.user ?? native().userByUid(s.uid)?.name ?? String(s.uid),
    allocNode: os.hostname().split('.')[0]!,
    allocSid: sessionId(),
    timeLimit: INFINITE,
  };
}
