/**
 * The names srun's --input, --output and --error give, read as Slurm reads
 * them: srun's fname_create (src/srun/fname.c) decides who opens what, and
 * each slurmstepd expands what is left of a per-task name for each of its
 * tasks (src/slurmd/common/fname.c).
 *
 *   "all...", "-..."                  srun's own stream, for every task
 *   a task id below the task count    that task alone goes to srun's stream
 *   a file name                       srun opens it, for every task
 *   a name with %t, %n, %N or %u      each task's own file, opened on its node
 *
 * %j, %J, %s, %A, %a, %b and %x are expanded by srun, with a width when one
 * is given (%3j, at most 10); "%%" is a "%"; a backslash anywhere stops
 * every expansion (each backslash dropping out).
 */

/** What srun makes of one name. */
export type FileNamePlan =
  /** Every task: srun's own stream, or the file srun opens. */
  | { kind: 'all'; file?: string }
  /** Only this task (global id): srun's stream; the others' is /dev/null. */
  | { kind: 'one'; task: number }
  /** Each task its own file, the rest of the pattern expanded on its node. */
  | { kind: 'perTask'; pattern: string };

export interface FileNameIds {
  jobId: number;
  stepId: number;
  /** SLURM_JOB_NAME of srun's environment, for %x. */
  jobName?: string;
  /** SLURM_ARRAY_JOB_ID / SLURM_ARRAY_TASK_ID of srun's environment. */
  arrayJobId?: number;
  arrayTaskId?: number;
}

/** One task, for the per-task letters slurmstepd expands. */
export interface TaskNameIds {
  gtid: number;
  nodeId: number;
  nodeName: string;
  user: string;
  /** The task's working directory: a relative name is relative to it. */
  cwd: string;
}

/** NO_VAL, what %a prints outside an array job. */
const NO_VAL = 0xfffffffe;
/** Slurm's largest zero-padding width. */
const MAX_WIDTH = 10;
/** The letters slurmstepd expands per task. */
const PER_TASK = new Set(['t', 'n', 'N', 'u']);

function padded(n: number, width: number): string {
  return String(n >>> 0).padStart(width, '0');
}

/** srun's fname_create for a name given (not "none": each option reads that its own way). */
export function srunFileName(format: string, ntasks: number, ids: FileNameIds): FileNamePlan {
  if (format.slice(0, 3).toLowerCase() === 'all' || format.startsWith('-')) return { kind: 'all' };
  // strtoul consuming the whole word (an empty one is task 0).
  const numeric = /^(\s*\+?\d+)?$/.exec(format);
  if (numeric) {
    const id = format.trim() === '' ? 0 : Number(format.trim());
    // (int) taskid < task_count
    if ((id | 0) < ntasks) return { kind: 'one', task: id };
  }
  if (format.includes('\\')) return { kind: 'all', file: format.replace(/\\/g, '') };

  let out = '';
  let perTask = false;
  for (let i = 0; i < format.length; ) {
    const c = format[i]!;
    if (c !== '%') {
      out += c;
      i++;
      continue;
    }
    if (format[i + 1] === '%') {
      // "%%": a literal "%", unless a per-task letter follows (slurmstepd
      // then leaves it as "%t" literally).
      const m = /^(\d*)([tnNu])/.exec(format.slice(i + 2));
      if (m) {
        perTask = true;
        out += '%%' + m[1] + m[2];
        i += 2 + m[0].length;
      } else {
        out += '%';
        i += 2;
      }
      continue;
    }
    const m = /^(\d*)(.?)/.exec(format.slice(i + 1))!;
    const width = m[1] ? Math.min(Number(m[1]), MAX_WIDTH) : 0;
    const letter = m[2]!;
    const used = 1 + m[0].length;
    switch (letter) {
      case 'a':
        out += padded(ids.arrayTaskId ?? NO_VAL, width);
        break;
      case 'b':
        out += padded((ids.arrayTaskId ?? NO_VAL) % 10, width);
        break;
      case 'A':
        out += padded(ids.arrayJobId ?? ids.jobId, width);
        break;
      case 'j':
      case 'J':
        out += padded(ids.jobId, width) + (letter === 'J' ? `.${ids.stepId}` : '');
        break;
      case 's':
        out += padded(ids.stepId, width);
        break;
      case 'x':
        out += ids.jobName ?? '(null)';
        break;
      default:
        // A per-task letter is left for slurmstepd; anything else stays as written.
        if (PER_TASK.has(letter)) perTask = true;
        out += '%' + m[1] + letter;
    }
    i += used;
  }
  return perTask ? { kind: 'perTask', pattern: out } : { kind: 'all', file: out };
}

/** What slurmstepd opens for one task of a per-task pattern. */
export function taskFileName(pattern: string, task: TaskNameIds): string {
  let out = '';
  for (let i = 0; i < pattern.length; ) {
    const m = /^%(%?)(\d*)([tnNu])/.exec(pattern.slice(i));
    if (!m) {
      out += pattern[i++];
      continue;
    }
    const width = m[2] ? Number(m[2]) : 0;
    const letter = m[3]!;
    if (m[1]) out += '%' + letter;
    else if (letter === 't') out += padded(task.gtid, width);
    else if (letter === 'n') out += padded(task.nodeId, width);
    else if (letter === 'N') out += task.nodeName;
    else out += task.user;
    i += m[0].length;
  }
  return out.startsWith('/') ? out : `${task.cwd.replace(/\/$/, '')}/${out}`;
}
