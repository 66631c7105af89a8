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
  /** Each node's index in the cluster's node table (node_inx). */
  nodeIndex: number[];
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
   * min_cpus as the command computes it (minCpusOf). `required`: the nodes
   * -w asks for (req_nodes, distinct), which the job gets first; maxNodes:
   * -N's maximum (0: none).
   */
  allocate(count: number, partition?: string, minCpus?: number, required?: RequiredNodes): Allocation | AllocationError;
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

/** The nodes a job asks for by name (-w), as the client read them. */
export interface RequiredNodes {
  /** Distinct, sorted; empty with parsed false when the hostlist refused the list. */
  hosts: string[];
  parsed: boolean;
  /** -N's maximum (0: none given). */
  maxNodes: number;
}

const INVALID_NODE_NAME: AllocationError = { error: 'Invalid node name specified' };
const INVALID_NODE_COUNT: AllocationError = { error: 'Node count specification invalid' };

/**
 * _job_create's reading of req_nodes, before the partition: every name a
 * node of the cluster (node_name2bitmap; else ESLURM_INVALID_NODE_NAME),
 * the node count raised to the names' count, which -N's maximum must allow
 * (ESLURM_INVALID_NODE_COUNT). The table indices of the required nodes and
 * the count, or the error.
 */
function requiredIndices(required: RequiredNodes | undefined, count: number, indexOf: (name: string) => number | undefined): { indices: number[]; count: number } | AllocationError {
  if (!required) return { indices: [], count };
  if (!required.parsed) return INVALID_NODE_NAME;
  const indices: number[] = [];
  for (const name of required.hosts) {
    const i = indexOf(name);
    if (i === undefined) return INVALID_NODE_NAME;
    if (!indices.includes(i)) indices.push(i);
  }
  const needed = Math.max(count, indices.length);
  if (required.maxNodes > 0 && needed > required.maxNodes) return INVALID_NODE_COUNT;
  return { indices, count: needed };
}

/** The job's nodes: the required ones, then the lowest-indexed others of those it may have, in node table order. */
function pickNodes(required: number[], candidates: number[], count: number): number[] {
  const chosen = new Set(required);
  for (const i of candidates) {
    if (chosen.size >= count) break;
    chosen.add(i);
  }
  return [...chosen].sort((a, b) => a - b);
}

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
    allocate(count, partition, _minCpus, required) {
      // Its nodes are node0, node1, ... as many as jobs ask for: a name is
      // one of them when it is node and a number (no leading zero).
      const wanted = requiredIndices(required, count, (name) => {
        const m = /^node(0|[1-9]\d{0,5})$/.exec(name);
        return m ? Number(m[1]) : undefined;
      });
      if ('error' in wanted) return wanted;
      if (partition !== undefined && partition !== PARTITION) return invalidPartition(partition);
      const candidates = Array.from({ length: wanted.count }, (_, i) => i);
      const nodeIndex = pickNodes(wanted.indices, candidates, wanted.count);
      return { nodes: nodeIndex.map((i) => `node${i}`), nodeIndex, partition: PARTITION };
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
  const tableIndex = new Map(conf.nodes.map((n, i) => [n.name, i]));
  // The nodes' CPUs as slurm.conf gives them (1 for a node that says none).
  const cpusOf = (names: string[]) => names.reduce((sum, n) => sum + (conf.nodes.find((x) => x.name === n)?.cpus ?? 1), 0);
  return {
    name: conf.clusterName ?? CLUSTER_NAME,
    ...(conf.defaultPartition ? { defaultPartition: conf.defaultPartition.name } : {}),
    arrayLimits: arrayLimits(conf),
    allocate(count, partition, minCpus = 0, required) {
      const wanted = requiredIndices(required, count, (n) => tableIndex.get(n));
      if ('error' in wanted) return wanted;
      count = wanted.count;
      // As many CPUs as required nodes at least.
      minCpus = Math.max(minCpus, wanted.indices.length);
      const name = partition ?? conf.defaultPartition?.name;
      // Slurm's answers (slurm_strerror) when the request cannot be met
      // (_valid_job_part: more CPUs than the partition's nodes have is
      // ESLURM_TOO_MANY_REQUESTED_CPUS, checked first; more nodes than it
      // has ESLURM_INVALID_NODE_COUNT).
      if (name === undefined) return { error: 'No partition specified or system default partition' };
      const p = conf.partitions.find((x) => x.name === name);
      if (!p) return invalidPartition(name);
      if (minCpus > cpusOf(p.nodes)) return { error: 'More processors requested than permitted' };
      if (count > p.nodes.length) return INVALID_NODE_COUNT;
      const members = p.nodes.map((n) => tableIndex.get(n)!);
      if (wanted.indices.some((i) => !members.includes(i))) return { error: 'Requested nodes not in this partition' };
      const nodeIndex = pickNodes(wanted.indices, members, count);
      const nodes = nodeIndex.map((i) => conf.nodes[i]!.name);
      return { nodes, nodeIndex, partition: p.name, cpus: cpusOf(nodes) };
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
