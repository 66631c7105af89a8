/**
 * The variables the launcher puts into a step's environment before the
 * launch request reaches slurmd (srun's env_array_for_step and the
 * allocation's job variables). slurmstepd adds its own per task
 * (native/core/step/task_env.cc).
 */
import { LAUNCH_NODE_ADDRESS } from '../cluster/names.js';
import { compressCounts, compressHostlist, type NodeLayout } from './layout.js';

export interface LauncherEnvInput {
  jobId: number;
  stepId: number;
  layout: NodeLayout[];
  /** The job's nodes, where they are not the step's (a step inside a job). */
  jobNodes?: readonly string[];
  cpusPerTask?: number;
  jobName: string;
  submitDir: string;
  /** srun's launch listener (SLURM_STEP_LAUNCHER_PORT, SLURM_SRUN_COMM_PORT). */
  port: number;
}

export function launcherEnv(input: LauncherEnvInput): Record<string, string> {
  const nodes = compressHostlist(input.layout.map((n) => n.name));
  const jobNodes = input.jobNodes ? compressHostlist([...input.jobNodes]) : nodes;
  const tasks = input.layout.reduce((sum, n) => sum + n.gtids.length, 0);
  const perNode = compressCounts(input.layout.map((n) => n.gtids.length));
  const env: Record<string, string> = {
    SLURM_JOB_ID: String(input.jobId),
    SLURM_JOBID: String(input.jobId),
    SLURM_JOB_NAME: input.jobName,
    SLURM_JOB_NODELIST: jobNodes,
    SLURM_JOB_NUM_NODES: String(input.jobNodes?.length ?? input.layout.length),
    SLURM_NODELIST: jobNodes,
    SLURM_SUBMIT_DIR: input.submitDir,
    SLURM_STEP_NODELIST: nodes,
    SLURM_STEP_NUM_NODES: String(input.layout.length),
    SLURM_STEP_NUM_TASKS: String(tasks),
    SLURM_STEP_TASKS_PER_NODE: perNode,
    SLURM_TASKS_PER_NODE: perNode,
    SLURM_NNODES: String(input.layout.length),
    SLURM_NTASKS: String(tasks),
    SLURM_NPROCS: String(tasks),
    SLURM_STEP_LAUNCHER_PORT: String(input.port),
    SLURM_SRUN_COMM_PORT: String(input.port),
    // Not srun's: slurmd overwrites it in every launch request it accepts
    // with the address the request came from.
    SLURM_SRUN_COMM_HOST: LAUNCH_NODE_ADDRESS,
  };
  // srun launches numbered steps only; the batch, extern and interactive
  // steps (ids from 0xfffffff0 up) get no step id from a launcher.
  if (input.stepId < 0xfffffff0) {
    env.SLURM_STEP_ID = String(input.stepId);
    env.SLURM_STEPID = String(input.stepId);
  }
  if (input.cpusPerTask !== undefined) env.SLURM_CPUS_PER_TASK = String(input.cpusPerTask);
  return env;
}
