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
/** Where the cluster's slurmctld is and which select plugin it runs, as SLURM_WORKING_CLUSTER names them. */
export interface ControllerAddress {
  /** SlurmctldAddr, else the first SlurmctldHost's address (its name when it gives none). */
  address: string;
  /** SlurmctldPort (the first of a range). */
  port: number;
  /** The select plugin's id (select/linear 102, cons_res 101, cons_tres 109). */
  selectPluginId: number;
}

/** plugstack's own cluster: slurmctld's defaults, and the select plugin the reference 22.05 cluster ran. */
const OWN_CONTROLLER: ControllerAddress = { address: 'localhost', port: 6817, selectPluginId: 102 };

/** The select plugins' ids (slurm.h's select_plugin_type), by SelectType. */
export const SELECT_PLUGIN_IDS: Readonly<Record<string, number>> = { 'select/cons_res': 101, 'select/linear': 102, 'select/cons_tres': 109 };

/**
 * SLURM_WORKING_CLUSTER as setup_env() writes it into every task's (and
 * srun's own) environment in 22.05. 24.11's setup_env no longer writes it.
 */
export function workingCluster(slurmVersion: string, clusterName: string = CLUSTER_NAME, controller: ControllerAddress = OWN_CONTROLLER): string | undefined {
  const rules = releaseRules(slurmVersion);
  if (!rules.taskEnv.workingCluster) return undefined;
  return `${clusterName}:${controller.address}:${controller.port}:${rules.identity.protocolVersion}:${controller.selectPluginId}`;
}

/**
 * The port srun's launch listener would have: one per step, in the
 * ephemeral range, stable for a given job and step so runs compare.
 */
export function launcherPort(jobId: number, stepId: number): number {
  return 32768 + ((jobId * 131 + (stepId & 0xffff)) % 28000);
}
