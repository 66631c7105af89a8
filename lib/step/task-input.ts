/**
 * Where each task's standard input comes from, as srun's --input (-i,
 * SLURM_STDINMODE) decides it (the name read as file-names.ts reads it):
 *
 *   (none given), "all...", "-..."  every task reads srun's standard input
 *   a task id below the task count    only that task does; the others read /dev/null
 *   "none"                            /dev/null, opened by srun: every task sees EOF
 *   a file name                       srun opens it and sends it to every task
 *   a name with %t, %n, %N or %u      each task opens its own file (relative to its
 *                                     working directory), as the job's user
 */

import fs from 'node:fs';
import path from 'node:path';
import { strerrorText } from '../host/os-names.js';
import { srunFileName, taskFileName, type FileNameIds } from './file-names.js';

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

/** srun's reading of --input (the option setter turns "none" into /dev/null first). */
export function srunInput(given: string | undefined, ntasks: number, ids: FileNameIds): TaskInputPlan {
  if (given === undefined) return { kind: 'all' };
  return srunFileName(given.toLowerCase() === 'none' ? '/dev/null' : given, ntasks, ids);
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
      return node.gtids.map((gtid) => taskFileName(plan.pattern, { gtid, nodeId: node.nodeId, nodeName: node.name, ...step }));
    case 'file':
      return node.gtids.map(() => plan.path);
  }
}

/** Whether srun sends its input (or its file) to this node's slurmstepd. */
export function nodeIsFed(plan: TaskInputPlan, gtids: number[]): boolean {
  return plan.kind === 'all' || (plan.kind === 'one' && gtids.includes(plan.task));
}

/** srun opening the file it sends (relative to its working directory): a stream of it, or strerror's text. */
export function openInputFile(file: string, cwd: string): fs.ReadStream | string {
  try {
    const fd = fs.openSync(path.resolve(cwd, file), 'r');
    return fs.createReadStream('', { fd });
  } catch (error) {
    return strerrorText(error);
  }
}
