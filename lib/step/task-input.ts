/**
 * Where each task's standard input comes from, as srun's --input (-i,
 * SLURM_STDINMODE) decides it: srun reads the name as Slurm's fname_create
 * does (src/srun/fname.c), and each slurmstepd expands what is left of it
 * per task (src/slurmd/common/fname.c).
 *
 *   (none given), "all...", "-..."  every task reads srun's standard input
 *   a task id below the task count    only that task does; the others read /dev/null
 *   "none"                            /dev/null, opened by srun: every task sees EOF
 *   a file name                       srun opens it and sends it to every task
 *   a name with %t, %n, %N or %u      each task opens its own file (relative to its
 *                                     working directory), as the job's user
 *
 * %j, %J, %s, %A, %a, %b and %x are expanded by srun, with a width when
 * one is given (%3j); "%%" is a "%"; a backslash stops every expansion.
 */

import fs from 'node:fs';
import path from 'node:path';
import { strerrorText } from '../host/os-names.js';

/** What srun makes of --input. */
export type TaskInputPlan =
  /** Every task reads srun's standard input, or the file srun opened. */
  | { kind: 'all'; file?: string }
  /** Only this task (global id) reads srun's standard input. */
  | { kind: 'one'; task: number }
  /** Each task opens the file this pattern names on its node. */
  | { kind: 'perTask'; pattern: string }
  /** Each task opens this file (a batch script's sbatch -i, its name already made by slurmstepd's rules). */
  | { kind: 'file'; path: string };

export interface InputIds {
  jobId: number;
  stepId: number;
  /** SLURM_JOB_NAME of srun's environment, for %x. */
  jobName?: string;
  /** SLURM_ARRAY_JOB_ID / SLURM_ARRAY_TASK_ID of srun's environment. */
  arrayJobId?: number;
  arrayTaskId?: number;
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

/** srun's reading of --input (the option setter turns "none" into /dev/null first). */
export function srunInput(given: string | undefined, ntasks: number, ids: InputIds): TaskInputPlan {
  if (given === undefined) return { kind: 'all' };
  const format = given.toLowerCase() === 'none' ? '/dev/null' : given;
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
        if (PER_TASK.has(letter)) {
          perTask = true;
          out += '%' + m[1] + letter;
          break;
        }
        // Anything else stays as written.
        out += '%' + m[1] + letter;
    }
    i += used;
  }
  return perTask ? { kind: 'perTask', pattern: out } : { kind: 'all', file: out };
}

/** What slurmstepd opens for one task of a per-task pattern. */
export function taskInputFile(pattern: string, task: { gtid: number; nodeId: number; nodeName: string; user: string; cwd: string }): string {
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

/**
 * Each node's tasks' inputs for the stepd request: null for a pipe fed with
 * srun's input, else the file the task opens. Undefined: srun sends nothing
 * to this node (every task has /dev/null).
 */
export function nodeStdin(
  plan: TaskInputPlan,
  node: { nodeId: number; name: string; gtids: number[] },
  step: { user: string; cwd: string },
): (string | null)[] {
  switch (plan.kind) {
    case 'all':
      return node.gtids.map(() => null);
    case 'one':
      return node.gtids.map((g) => (g === plan.task ? null : '/dev/null'));
    case 'perTask':
      return node.gtids.map((gtid) => taskInputFile(plan.pattern, { gtid, nodeId: node.nodeId, nodeName: node.name, ...step }));
    case 'file':
      return node.gtids.map(() => plan.path);
  }
}

/** Whether srun sends its input (or its file) to this node's slurmstepd. */
export function nodeIsFed(plan: TaskInputPlan, gtids: number[]): boolean {
  return plan.kind === 'all' || (plan.kind === 'one' && gtids.includes(plan.task));
}

/** srun opening the file it sends (relative to its working directory): a stream of it, or strerror's text. */
export function openInputFile(file: string, cwd: string): NodeJS.ReadableStream | string {
  try {
    const fd = fs.openSync(path.resolve(cwd, file), 'r');
    return fs.createReadStream('', { fd });
  } catch (error) {
    return strerrorText(error);
  }
}
