/**
 * The one-node-per-host cluster plugstack pretends to be: the names and
 * addresses Slurm's daemons and commands write into job environments.
 * Nothing listens on these ports; they are there because plugins and
 * task programs read the variables.
 */
import { releaseRules } from '../releases.generated.js';

export const CLUSTER_NAME = 'plugstack';
/** slurm.conf's MaxTasksPerNode default: a step may not put more tasks on a node. */
export const MAX_TASKS_PER_NODE = 512;
export const PARTITION = 'debug';
/** Where srun runs, as slurmd sees the launch request come in. */
export const LAUNCH_NODE_ADDRESS = '127.0.0.1';
const CONTROLLER_HOST = 'localhost';
const CONTROLLER_PORT = 6817; // slurmctld's default SlurmctldPort
// select/linear's plugin id, as the reference 22.05 cluster reported it.
const SELECT_PLUGIN_ID = 102;

/**
 * SLURM_WORKING_CLUSTER as setup_env() writes it into every task's (and
 * srun's own) environment in 22.05. 24.11's setup_env no longer writes it.
 */
export function workingCluster(slurmVersion: string, clusterName: string = CLUSTER_NAME): string | undefined {
  const rules = releaseRules(slurmVersion);
  if (!rules.taskEnv.workingCluster) return undefined;
  return `${clusterName}:${CONTROLLER_HOST}:${CONTROLLER_PORT}:${rules.identity.protocolVersion}:${SELECT_PLUGIN_ID}`;
}

/**
 * The port srun's launch listener would have: one per step, in the
 * ephemeral range, stable for a given job and step so runs compare.
 */
export function launcherPort(jobId: number, stepId: number): number {
  return 32768 + ((jobId * 131 + (stepId & 0xffff)) % 28000);
}
