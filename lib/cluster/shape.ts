/**
 * The emulated cluster's shape: its name, its partitions and their nodes.
 * Without a slurm.conf it is plugstack's own (cluster "plugstack", one
 * partition "debug" with as many nodes node0, node1, ... as a job asks
 * for); with one, it is what the site's NodeName and PartitionName lines
 * say, and a job gets the first nodes of its partition.
 */
import type { SlurmConf } from '../config/slurm-conf.js';
import { CLUSTER_NAME, PARTITION } from './names.js';
import { arrayLimits, type ArrayLimits } from './job-array.js';

export interface Allocation {
  nodes: string[];
  partition: string;
  /** The CPUs the job gets: all of its nodes' (slurm.conf's CPUs=, 1 when unset); absent on plugstack's own nodes. */
  cpus?: number;
}

/** slurmctld's refusal: its error (slurm_strerror), and the message it sends along, which the command prints first. */
export interface AllocationError {
  error: string;
  message?: string;
}

export interface ClusterShape {
  name: string;
  /** The partition of a job that names none, if the cluster has one. */
  defaultPartition?: string;
  /**
   * Nodes for a job of `count` nodes in `partition` (default: the default
   * partition), or the error slurmctld answers. `minCpus` is the job's
   * min_cpus as the command computes it (minCpusOf).
   */
  allocate(count: number, partition?: string, minCpus?: number): Allocation | AllocationError;
  /** What job arrays may be: MaxArraySize and max_array_tasks (job-array.ts). */
  arrayLimits: ArrayLimits;
  /**
   * slurmctld stopped at its start on the slurm.conf (slurm-conf-nodes.ts):
   * what every request gets instead of an answer, and why, for plugstack's
   * own lines.
   */
  unreachable?: { error: AllocationError; causes: SlurmConf['problems'] };
}

/** What a command gets from a slurmctld that is not listening (slurm_strerror of SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR). */
const CONNECT_FAILURE: AllocationError = { error: 'Unable to contact slurm controller (connect failure)' };

/** _get_job_parts: the partition named is unknown (its name in the message). */
function invalidPartition(name: string): AllocationError {
  return { error: 'Invalid partition name specified', message: `invalid partition specified: ${name}` };
}

/** plugstack's own cluster: any number of nodes node0, node1, ... in partition debug. */
export function emulatedCluster(): ClusterShape {
  return {
    name: CLUSTER_NAME,
    defaultPartition: PARTITION,
    arrayLimits: arrayLimits(undefined),
    allocate(count, partition) {
      if (partition !== undefined && partition !== PARTITION) return invalidPartition(partition);
      return { nodes: Array.from({ length: count }, (_, i) => `node${i}`), partition: PARTITION };
    },
  };
}

/** The cluster a slurm.conf describes (its ClusterName, partitions and nodes). */
export function configuredCluster(conf: SlurmConf): ClusterShape {
  if (!conf.controllerOk) {
    return {
      name: conf.clusterName ?? CLUSTER_NAME,
      arrayLimits: arrayLimits(conf),
      unreachable: { error: CONNECT_FAILURE, causes: conf.controllerProblems.filter((p) => p.severity === 'error') },
      allocate: () => CONNECT_FAILURE,
    };
  }
  // A slurm.conf without partitions still runs jobs in plugstack's way.
  if (conf.partitions.length === 0) {
    const own = emulatedCluster();
    return { ...own, name: conf.clusterName ?? own.name, arrayLimits: arrayLimits(conf) };
  }
  // The nodes' CPUs as slurm.conf gives them (1 for a node that says none).
  const cpusOf = (names: string[]) => names.reduce((sum, n) => sum + (conf.nodes.find((x) => x.name === n)?.cpus ?? 1), 0);
  return {
    name: conf.clusterName ?? CLUSTER_NAME,
    ...(conf.defaultPartition ? { defaultPartition: conf.defaultPartition.name } : {}),
    arrayLimits: arrayLimits(conf),
    allocate(count, partition, minCpus = 0) {
      const name = partition ?? conf.defaultPartition?.name;
      // Slurm's answers (slurm_strerror) when the request cannot be met
      // (_valid_job_part: more CPUs than the partition's nodes have is
      // ESLURM_TOO_MANY_REQUESTED_CPUS, checked first; more nodes than it
      // has ESLURM_INVALID_NODE_COUNT).
      if (name === undefined) return { error: 'No partition specified or system default partition' };
      const p = conf.partitions.find((x) => x.name === name);
      if (!p) return invalidPartition(name);
      if (minCpus > cpusOf(p.nodes)) return { error: 'More processors requested than permitted' };
      if (count > p.nodes.length) return { error: 'Node count specification invalid' };
      const nodes = p.nodes.slice(0, count);
      return { nodes, partition: p.name, cpus: cpusOf(nodes) };
    },
  };
}

/**
 * The min_cpus srun, sbatch and salloc put into a job request
 * (slurm_opt_create_job_desc): the node count with -O, else the task count
 * (-n, else --ntasks-per-node times the nodes, else one a node) times -c.
 */
export function minCpusOf(b: { ntasks?: number; ntasksPerNode?: number; cpusPerTask?: number; overcommit: boolean }, nodes: number): number {
  if (b.overcommit) return Math.max(nodes, 1);
  const ntasks = b.ntasks ?? (b.ntasksPerNode !== undefined ? nodes * b.ntasksPerNode : nodes);
  return ntasks * (b.cpusPerTask ?? 1);
}
