/**
 * Job arrays (sbatch -a/--array), as slurmctld takes them: the index
 * expression checked against MaxArraySize (and SchedulerParameters'
 * max_array_tasks), the tasks it names, and the variables every task's
 * batch job gets.
 *
 * The expression (slurmctld's _valid_array_inx and _parse_array_tok, the
 * same in 22.05 and 24.11): comma-separated items, empty ones skipped, each
 * `N`, `N-M` or `N-M:S`, optionally in brackets, followed by nothing or by
 * a `%`; numbers are read as strtol reads them (no digits: 0), so `%4`
 * alone is index 0. An index must be below MaxArraySize, a range must not
 * run backwards, a step must be at least 1 and below MaxArraySize. The
 * step in the variables is the number after the first `:` of the whole
 * expression and the throttle the number after its first `%` (atoi), as
 * _create_job_array reads them.
 *
 * How a real cluster runs the tasks, seen on Debian's 22.05 (one node,
 * select/linear, so one task at a time): in index order, the first ones
 * split off the array's record with new job ids as they start, the last
 * one keeping the id sbatch printed (`--array=1-3` as job 1: task 1 is job
 * 2, task 2 job 3, task 3 job 1).
 */
import type { SlurmConf } from '../config/slurm-conf.js';
import type { ArrayTaskRecord, JobRecord } from '../commands/types.js';

/** slurm.conf's MaxArraySize when it is not set (both releases). */
export const DEFAULT_MAX_ARRAY_SIZE = 1001;

export interface JobArray {
  /** The expression as sbatch sent it. */
  spec: string;
  /** The task ids, in the order they run (ascending). */
  tasks: number[];
  /** What SLURM_ARRAY_TASK_STEP says. */
  step: number;
  /** `%N`: at most N tasks at once (plugstack runs one at a time anyway). */
  throttle?: number;
}

/** One task of an array: which array, which index. */
export interface ArrayTask {
  jobId: number;
  taskId: number;
}

/** strtol in base 10: the number at the start (after blanks and a sign) and where it ended; no digits: 0, where it started. */
function strtol(s: string, at: number): { value: number; end: number } {
  const m = /^[ \t\n\v\f\r]*([+-]?)(\d+)/.exec(s.slice(at));
  if (!m) return { value: 0, end: at };
  const value = Number(m[2]) * (m[1] === '-' ? -1 : 1);
  return { value, end: at + m[0].length };
}

/** atoi: strtol's number, 0 when there is none. */
function atoi(s: string): number {
  return strtol(s, 0).value;
}

/** One comma-separated item: adds its indices, or returns false. */
function parseItem(tok: string, max: number, into: Set<number>): boolean {
  let at = tok[0] === '[' ? 1 : 0;
  const first = strtol(tok, at);
  at = first.end;
  if (tok[at] === ']') at++;
  if (first.value < 0) return false;
  const ends = (i: number) => i >= tok.length || tok[i] === '%';
  let last = first.value;
  let step = 1;
  if (tok[at] === '-') {
    const l = strtol(tok, at + 1);
    last = l.value;
    at = l.end;
    if (tok[at] === ']') at++;
    if (tok[at] === ':') {
      const s = strtol(tok, at + 1);
      step = s.value;
      at = s.end;
      if (tok[at] === ']') at++;
      if (!ends(at)) return false;
      if (step <= 0 || step >= max) return false;
    } else if (!ends(at)) return false;
    if (last < first.value) return false;
  } else if (!ends(at)) return false;
  if (last >= max) return false;
  for (let i = first.value; i <= last; i += step) into.add(i);
  return true;
}

export interface ArrayLimits {
  /** MaxArraySize: every index is below it; 0 disables job arrays. */
  maxArraySize: number;
  /** SchedulerParameters' max_array_tasks: at most this many tasks in one array. */
  maxTasks: number;
}

/** MaxArraySize, and max_array_tasks of SchedulerParameters (which defaults to it). */
export function arrayLimits(conf: SlurmConf | undefined): ArrayLimits {
  const size = conf?.keys.MaxArraySize;
  const maxArraySize = size === undefined ? DEFAULT_MAX_ARRAY_SIZE : atoi(size);
  const params = conf?.keys.SchedulerParameters ?? '';
  const key = params.toLowerCase().indexOf('max_array_tasks=');
  const maxTasks = key < 0 ? maxArraySize : atoi(params.slice(key + 'max_array_tasks='.length));
  return { maxArraySize, maxTasks };
}

/** The array an index expression asks for, or undefined when slurmctld would refuse it ("Invalid job array specification"). */
export function parseJobArray(spec: string, limits: ArrayLimits): JobArray | undefined {
  const { maxArraySize, maxTasks } = limits;
  if (maxArraySize <= 0) return undefined;
  const indices = new Set<number>();
  for (const tok of spec.split(',').filter((t) => t !== '')) if (!parseItem(tok, maxArraySize, indices)) return undefined;
  if (maxTasks < maxArraySize && indices.size > maxTasks) return undefined;
  const colon = spec.indexOf(':');
  const percent = spec.indexOf('%');
  const throttle = percent < 0 ? 0 : atoi(spec.slice(percent + 1));
  return {
    spec,
    tasks: [...indices].sort((a, b) => a - b),
    step: colon < 0 ? 1 : atoi(spec.slice(colon + 1)),
    ...(throttle > 0 ? { throttle } : {}),
  };
}

/**
 * What slurmctld adds to an array task's environment (_create_job_array's
 * env_sup, then env_array_for_batch_job's two): the array's shape and the
 * task's place in it.
 */
export function arrayTaskEnv(array: JobArray, task: ArrayTask): Record<string, string> {
  return {
    SLURM_ARRAY_TASK_COUNT: String(array.tasks.length),
    SLURM_ARRAY_TASK_MIN: String(array.tasks[0]),
    SLURM_ARRAY_TASK_MAX: String(array.tasks[array.tasks.length - 1]),
    SLURM_ARRAY_TASK_STEP: String(array.step),
    SLURM_ARRAY_JOB_ID: String(task.jobId),
    SLURM_ARRAY_TASK_ID: String(task.taskId),
  };
}

/**
 * SLURM_ARRAY_JOB_ID and SLURM_ARRAY_TASK_ID of an environment, read with
 * atoi as slurmstepd reads a launch's (stepd_step_rec_create; the last of
 * each when a list repeats a name) and srun its own for %A and %a
 * (fname_create); absent when not set.
 */
export function arrayIdsIn(env: Record<string, string | undefined>): { arrayJobId?: number; arrayTaskId?: number } {
  const read = (v: string | undefined) => (v === undefined ? undefined : atoi(v) >>> 0);
  const jobId = read(env.SLURM_ARRAY_JOB_ID);
  const taskId = read(env.SLURM_ARRAY_TASK_ID);
  return { ...(jobId !== undefined ? { arrayJobId: jobId } : {}), ...(taskId !== undefined ? { arrayTaskId: taskId } : {}) };
}

/**
 * The array as one record: its own id, COMPLETED when every task
 * completed, else the state, exit code and reason of the first task that
 * did not; every task's nodes and drained nodes.
 */
export function arrayJobRecord(arrayJobId: number, tasks: readonly ArrayTaskRecord[]): JobRecord {
  const failed = tasks.find((t) => t.state !== 'COMPLETED');
  return {
    jobId: arrayJobId,
    state: failed?.state ?? 'COMPLETED',
    exitCode: failed?.exitCode ?? 0,
    nodes: [...new Set(tasks.flatMap((t) => t.nodes))],
    drained: tasks.flatMap((t) => t.drained),
    ...(failed?.reason !== undefined ? { reason: failed.reason } : {}),
  };
}
