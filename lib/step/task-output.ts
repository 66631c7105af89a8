/**
 * Where each task's standard output and error go, as srun's --output (-o)
 * and --error (-e) decide it (the names read as file-names.ts reads them;
 * SLURM_STDOUTMODE and SLURM_STDERRMODE set the options too):
 *
 *   (none given), "all...", "-..."  srun's own stream, every task's
 *   a task id below the task count    only that task's, to srun's stream; the
 *                                     others' go to /dev/null
 *   "none"                            /dev/null, on every node
 *   a file name                       srun opens it and writes every task's
 *                                     output into it (24.11 makes its missing
 *                                     directories)
 *   a name with %t, %n, %N or %u      each task's own file, opened in its
 *                                     node's IO setup as the job's user (24.11
 *                                     makes missing directories; one that does
 *                                     not open fails the launch there)
 *
 * Without -e, the error goes where -o sends the output; when both name the
 * same file srun opens (or the same task), srun writes the error into the
 * output's descriptor (launch_common_set_stdio_fds, err_shares_out).
 */
import { srunFileName, taskFileName, type FileNameIds, type FileNamePlan } from './file-names.js';

/** What srun makes of -o or -e; "file" is a batch step's (sbatch's -o/-e, its name made by slurmstepd's rules). */
export type TaskOutputPlan = FileNamePlan | { kind: 'none' } | { kind: 'file'; path: string };

export interface StepOutputPlan {
  stdout: TaskOutputPlan;
  stderr: TaskOutputPlan;
  /** The error is written where the output goes (the same file srun opened, or the same task to srun's output). */
  errSharesOut: boolean;
}

/** Nothing redirected: srun's own streams. */
export const SRUN_STREAMS: StepOutputPlan = { stdout: { kind: 'all' }, stderr: { kind: 'all' }, errSharesOut: false };

function readName(given: string, ntasks: number, ids: FileNameIds): TaskOutputPlan {
  // fname_create: "none" is /dev/null on every node.
  if (given.toLowerCase() === 'none') return { kind: 'none' };
  return srunFileName(given, ntasks, ids);
}

/** The name srun compares for err_shares_out: a file it opens, or a task id as given; none for the rest. */
function localName(plan: TaskOutputPlan, given: string | undefined): string | undefined {
  if (plan.kind === 'all') return plan.file;
  if (plan.kind === 'one') return given;
  return undefined;
}

/** srun's reading of -o and -e (the last given of each). */
export function srunOutput(output: string | undefined, error: string | undefined, ntasks: number, ids: FileNameIds): StepOutputPlan {
  const stdout = output === undefined ? { kind: 'all' as const } : readName(output, ntasks, ids);
  // Without -e, the error's name is the output's (the same fname).
  const stderr = error === undefined ? stdout : readName(error, ntasks, ids);
  const outName = localName(stdout, output);
  const errName = error === undefined ? outName : localName(stderr, error);
  return { stdout, stderr, errSharesOut: outName !== undefined && outName === errName };
}

/**
 * The files a node's slurmstepd opens in its IO setup: two per task, its
 * output's then its error's ('' for a stream that goes to srun or to
 * /dev/null).
 */
export function nodeOutputFiles(plan: StepOutputPlan, node: { nodeId: number; name: string; gtids: number[] }, step: { user: string; cwd: string }): string[] {
  const fileOf = (p: TaskOutputPlan, gtid: number): string => {
    if (p.kind === 'file') return p.path;
    if (p.kind === 'perTask') return taskFileName(p.pattern, { gtid, nodeId: node.nodeId, nodeName: node.name, ...step });
    return '';
  };
  return node.gtids.flatMap((gtid) => [fileOf(plan.stdout, gtid), fileOf(plan.stderr, gtid)]);
}

/** Whether any node opens a file for this plan (what the step request then carries). */
export function opensFiles(plan: StepOutputPlan): boolean {
  return [plan.stdout, plan.stderr].some((p) => p.kind === 'file' || p.kind === 'perTask');
}
