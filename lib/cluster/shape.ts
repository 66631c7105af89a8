/**
 * The emulated cluster's shape: its name, its partitions and their nodes.
 * Without a slurm.conf it is plugstack's own (cluster "plugstack", one
 * partition "debug" with as many nodes node0, node1, ... as a job asks
 * for, each with as many CPUs as the job puts tasks on it); with one, it is
 * what the site's NodeName and PartitionName lines say. Either way a job's
 * nodes are the ones select/linear would give it (select-linear.ts).
 */
import type { SlurmConf } from '../config/slurm-conf.js';
import { CLUSTER_NAME, PARTITION } from './names.js';
import { arrayLimits, type ArrayLimits } from './job-array.js';
import { releaseRules } from '../releases.generated.js';
import type { ReadyEvent } from '../host/protocol.js';
import { native } from '../native/binding.js';
import { NODE_TABLE_LIMIT, nodeLookup } from '../config/slurm-conf-nodes.js';
import { selectLinear } from './select-linear.js';

export interface Allocation {
  nodes: string[];
  /** Each node's index in the cluster's node table (node_inx). */
  nodeIndex: number[];
  partition: string;
  /**
   * The CPUs the job gets on each of its nodes where select/linear gives it
   * whole nodes (slurm.conf's CPUs=, 1 when unset); absent on plugstack's own
   * nodes (as many CPUs as the job asks for) and under the other select
   * plugins, which give a job the CPUs it asks for.
   */
  cpusPerNode?: number[];
}

/** What places a job (the part of its job_desc_msg_t slurmctld's node selection reads). */
export interface AllocationRequest {
  /** The node count's minimum (-N; 1 without it; a job of -N 0 is refused). */
  nodes: number;
  /** -N's maximum, 0 when the job gave none. */
  maxNodes?: number;
  /** The partition (default: the cluster's default one). */
  partition?: string;
  /** min_cpus, as the command computes it (minCpusOf). */
  minCpus: number;
  /** -c. */
  cpusPerTask?: number;
  /** --ntasks-per-node: no more CPUs of a node are counted than this many tasks take. */
  ntasksPerNode?: number;
  /** The CPUs the job needs on each of its nodes (pn_min_cpus); nodes with fewer are left out (default 1). */
  pnMinCpus?: number;
  /** The nodes -w asks for (req_nodes, distinct), which the job gets first; their maxNodes is -N's maximum (0: none). */
  required?: RequiredNodes;
  /** -x, as the client read it. */
  exclude?: string;
}

/**
 * slurmctld's refusal: its error (slurm_strerror), and the message it sends
 * along, which the command prints first. `jobFailed`: the job was taken (it
 * has an id) and then failed, its nodes not found (salloc hears that its
 * allocation was revoked).
 */
export interface AllocationError {
  error: string;
  message?: string;
  jobFailed?: boolean;
}

export interface ClusterShape {
  name: string;
  /** The partition of a job that names none, if the cluster has one. */
  defaultPartition?: string;
  /** Nodes for a job, or the error slurmctld answers. */
  allocate(request: AllocationRequest): Allocation | AllocationError;
  /** node_name2bitmap of a list (a step's exc_nodes): whether it reads and every name in it is a node of the cluster. */
  namesNodes(list: string): boolean;
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

/**
 * The nodes a job asks for by name (-w), as the client read them (its ready
 * event's requiredNodes): distinct and sorted, none with parsed false when
 * the hostlist refused the list; maxNodes, -N's maximum (0: none).
 */
export type RequiredNodes = NonNullable<ReadyEvent['requiredNodes']>;

const INVALID_NODE_NAME: AllocationError = { error: 'Invalid node name specified' };
const INVALID_NODE_COUNT: AllocationError = { error: 'Node count specification invalid' };
const NOT_IN_PARTITION: AllocationError = { error: 'Requested nodes not in this partition' };

/**
 * _job_create's reading of req_nodes, before the partition: every name a
 * node of the cluster (node_name2bitmap; else ESLURM_INVALID_NODE_NAME).
 * A list of no more nodes than the count: the job's nodes, then others.
 * A longer one, by the release (releases.json controller.reqNodesBeyondCount):
 * 22.05 raises the count (and the CPUs) to it, which -N's maximum must
 * allow (ESLURM_INVALID_NODE_COUNT); 24.11 takes the count from the listed
 * nodes alone and excludes the rest.
 */
interface Wanted {
  /** Table indices the job must have. */
  required: number[];
  /** Table indices the job may have only among (24.11's exclusion), or undefined for any. */
  only?: Set<number>;
  count: number;
  minCpus: number;
}

function wantedNodes(
  required: RequiredNodes | undefined,
  count: number,
  minCpus: number,
  indexOf: (name: string) => number | undefined,
  slurmVersion: string,
): Wanted | AllocationError {
  if (!required) return { required: [], count, minCpus };
  if (!required.parsed) return INVALID_NODE_NAME;
  const listed = new Set<number>();
  for (const name of required.hosts) {
    const i = indexOf(name);
    if (i === undefined) return INVALID_NODE_NAME;
    listed.add(i);
  }
  const indices = [...listed];
  if (indices.length <= count) return { required: indices, count, minCpus };
  if (releaseRules(slurmVersion).controller.reqNodesBeyondCount === 'choose') return { required: [], only: listed, count, minCpus };
  if (required.maxNodes > 0 && indices.length > required.maxNodes) return INVALID_NODE_COUNT;
  return { required: indices, count: indices.length, minCpus: Math.max(minCpus, indices.length) };
}

/**
 * The nodes a job or a step gets, in the order of `candidates` (the node
 * table's, or the job's): the ones it must have, then the first others it
 * may have, up to `count`. The required ones are among the candidates.
 */
export function chooseNodes<T>(candidates: readonly T[], required: Iterable<T>, count: number, may: (c: T) => boolean = () => true): T[] {
  const chosen = new Set(required);
  for (const c of candidates) {
    if (chosen.size >= count) break;
    if (may(c)) chosen.add(c);
  }
  return candidates.filter((c) => chosen.has(c));
}

/** get_node_cnts' bound on any job's node count. */
const MAX_JOB_NODES = 500000;

/**
 * A job's nodes (table indices) among `candidates` (its partition's, in
 * table order), as select/linear chooses them, or slurmctld's error when
 * it cannot have enough. `cpus` gives a node's CPUs. With `aimAtMaximum` a job that
 * gave -N's maximum aims at it (get_node_cnts), as on a real cluster;
 * plugstack's own, whose nodes are as many as jobs ask for, gives the
 * minimum.
 */
function pickNodes(wanted: Wanted, request: AllocationRequest, candidates: number[], excluded: Set<number>, cpus: (i: number) => number, aimAtMaximum: boolean): number[] | AllocationError {
  const maxNodes = request.maxNodes ? Math.min(request.maxNodes, MAX_JOB_NODES) : MAX_JOB_NODES;
  // _get_avail_cpus: no more of a node than --ntasks-per-node tasks take.
  const perNode = request.ntasksPerNode ? request.ntasksPerNode * (request.cpusPerTask ?? 1) : Infinity;
  const allowed = candidates.filter((i) => (!wanted.only || wanted.only.has(i)) && !excluded.has(i));
  if (allowed.length < wanted.count) return UNAVAILABLE;
  const chosen = selectLinear({
    candidates: allowed,
    cpusOf: (i) => Math.min(cpus(i), perNode),
    required: wanted.required,
    minNodes: wanted.count,
    reqNodes: aimAtMaximum && request.maxNodes ? Math.max(wanted.count, maxNodes) : wanted.count,
    maxNodes,
    minCpus: wanted.minCpus,
  });
  return chosen ?? NOT_SELECTED;
}

/**
 * _pick_best_nodes over a site's nodes: slurmctld's node sets are its
 * NodeName lines, lower Weight first, then in file order; a line whose
 * nodes have fewer CPUs than the job needs on one (pn_min_cpus) is left
 * out. The job is tried on the first line's nodes, then with the next
 * line's added (once there are as many as it aims at), until select/linear
 * places it.
 */
function pickBySets(
  wanted: Wanted,
  request: AllocationRequest,
  members: number[],
  excluded: Set<number>,
  cpus: (i: number) => number,
  nodeOf: (i: number) => { config: number; weight: number },
): number[] | AllocationError {
  const minCpus = request.pnMinCpus ?? 1;
  const sets = new Map<number, number[]>();
  for (const i of members) if (cpus(i) >= minCpus) (sets.get(nodeOf(i).config) ?? sets.set(nodeOf(i).config, []).get(nodeOf(i).config)!).push(i);
  const order = [...sets.keys()].sort((a, b) => nodeOf(sets.get(a)![0]!).weight - nodeOf(sets.get(b)![0]!).weight || a - b);
  const reqNodes = request.maxNodes ? Math.max(wanted.count, request.maxNodes) : wanted.count;
  let tried: number[] = [];
  let outcome: number[] | AllocationError = UNAVAILABLE;
  for (const [k, config] of order.entries()) {
    tried = [...tried, ...sets.get(config)!].sort((a, b) => a - b);
    if (k < order.length - 1 && tried.length < reqNodes) continue;
    outcome = pickNodes(wanted, request, tried, excluded, cpus, true);
    if (Array.isArray(outcome)) return outcome;
  }
  return outcome;
}

/** plugstack's own nodes a job may get (see allocate): sorted table indices. */
function emulatedCandidates(wanted: Wanted, excluded: Set<number>): number[] {
  const picked = new Set<number>();
  const span = (from: number, to: number) => {
    for (let i = Math.max(0, from); i < to; i++) picked.add(i);
  };
  span(0, 2 * wanted.count + excluded.size);
  for (const i of [...wanted.required, ...(wanted.only ?? [])]) span(i - wanted.count, i + wanted.count + 1);
  return [...picked].sort((a, b) => a - b);
}

/**
 * _job_create's exc_nodes, after the partition's checks: every name a node
 * (a list the hostlist refuses, or a name that is none: ESLURM_INVALID_NODE_NAME,
 * as is a required node excluded too). The table indices, or the error.
 */
function excludedNodes(exclude: string | undefined, required: number[], indexOf: (name: string) => number | undefined, slurmVersion: string): Set<number> | AllocationError {
  const excluded = new Set<number>();
  if (exclude === undefined) return excluded;
  const listed = native().expandHostlist(exclude, slurmVersion, NODE_TABLE_LIMIT);
  if (!listed.ok) return INVALID_NODE_NAME;
  for (const name of listed.hosts) {
    const i = indexOf(name);
    if (i === undefined) return INVALID_NODE_NAME;
    excluded.add(i);
  }
  if (required.some((i) => excluded.has(i))) return INVALID_NODE_NAME;
  return excluded;
}

/** Too few nodes left for the job (its partition's, less -x's): it can never run, and is refused. */
const UNAVAILABLE: AllocationError = { error: 'Requested node configuration is not available' };
/** The select plugin finding no nodes for the job it has taken: the job fails. */
const NOT_SELECTED: AllocationError = { ...UNAVAILABLE, jobFailed: true };

/** _get_job_parts: the partition named is unknown (its name in the message). */
function invalidPartition(name: string): AllocationError {
  return { error: 'Invalid partition name specified', message: `invalid partition specified: ${name}` };
}

/** plugstack's own cluster: any number of nodes node0, node1, ... in partition debug. */
export function emulatedCluster(slurmVersion: string): ClusterShape {
  // Its nodes are node0, node1, ... as many as jobs ask for: a name is
  // one of them when it is node and a number (no leading zero).
  const indexOf = (name: string) => {
    const m = /^node(0|[1-9]\d{0,5})$/.exec(name);
    return m ? Number(m[1]) : undefined;
  };
  return {
    name: CLUSTER_NAME,
    defaultPartition: PARTITION,
    arrayLimits: arrayLimits(undefined),
    namesNodes: (list) => excludedNodes(list, [], indexOf, slurmVersion) instanceof Set,
    allocate(request) {
      if (request.nodes < 1) return INVALID_NODE_COUNT;
      const wanted = wantedNodes(request.required, request.nodes, request.minCpus, indexOf, slurmVersion);
      if ('error' in wanted) return wanted;
      if (request.partition !== undefined && request.partition !== PARTITION) return invalidPartition(request.partition);
      const excluded = excludedNodes(request.exclude, wanted.required, indexOf, slurmVersion);
      if (!(excluded instanceof Set)) return excluded;
      // Each gives as many CPUs as the job wants; the candidates are the
      // first nodes (enough past the excluded ones) and, around each node
      // the job names, as many on each side as it needs: what select/linear
      // can reach (a job naming node999999 does not list a million nodes).
      const nodeIndex = pickNodes(wanted, request, emulatedCandidates(wanted, excluded), excluded, () => Infinity, false);
      if (!Array.isArray(nodeIndex)) return nodeIndex;
      return { nodes: nodeIndex.map((i) => `node${i}`), nodeIndex, partition: PARTITION };
    },
  };
}

/** The cluster a slurm.conf describes (its ClusterName, partitions and nodes). */
export function configuredCluster(conf: SlurmConf, slurmVersion: string): ClusterShape {
  if (!conf.controllerOk) {
    return {
      name: conf.clusterName ?? CLUSTER_NAME,
      arrayLimits: arrayLimits(conf),
      unreachable: { error: CONNECT_FAILURE, causes: conf.controllerProblems.filter((p) => p.severity === 'error') },
      allocate: () => CONNECT_FAILURE,
      namesNodes: () => false,
    };
  }
  // A slurm.conf without partitions still runs jobs in plugstack's way.
  if (conf.partitions.length === 0) {
    const own = emulatedCluster(slurmVersion);
    return { ...own, name: conf.clusterName ?? own.name, arrayLimits: arrayLimits(conf) };
  }
  const lookup = nodeLookup(conf.nodes);
  // The nodes' CPUs as slurm.conf gives them (1 for a node that says none).
  const nodeCpus = (i: number) => conf.nodes[i]?.cpus ?? 1;
  const cpusOf = (names: string[]) => names.reduce((sum, n) => sum + nodeCpus(lookup(n)!), 0);
  // select/linear gives a job its nodes whole, every CPU of them.
  const wholeNodes = conf.selectType === 'select/linear';
  return {
    name: conf.clusterName ?? CLUSTER_NAME,
    ...(conf.defaultPartition ? { defaultPartition: conf.defaultPartition.name } : {}),
    arrayLimits: arrayLimits(conf),
    namesNodes: (list) => excludedNodes(list, [], lookup, slurmVersion) instanceof Set,
    allocate(request) {
      if (request.nodes < 1) return INVALID_NODE_COUNT;
      const wanted = wantedNodes(request.required, request.nodes, request.minCpus, lookup, slurmVersion);
      if ('error' in wanted) return wanted;
      const { count, minCpus } = wanted;
      const name = request.partition ?? conf.defaultPartition?.name;
      // Slurm's answers (slurm_strerror) when the request cannot be met
      // (_valid_job_part: more CPUs than the partition's nodes have is
      // ESLURM_TOO_MANY_REQUESTED_CPUS, checked first; more nodes than it
      // has ESLURM_INVALID_NODE_COUNT).
      if (name === undefined) return { error: 'No partition specified or system default partition' };
      const p = conf.partitions.find((x) => x.name === name);
      if (!p) return invalidPartition(name);
      if (minCpus > cpusOf(p.nodes)) return { error: 'More processors requested than permitted' };
      if (count > p.nodes.length) return INVALID_NODE_COUNT;
      const members = p.nodes.map((n) => lookup(n)!);
      const inPartition = new Set(members);
      if (wanted.required.some((i) => !inPartition.has(i))) return NOT_IN_PARTITION;
      const excluded = excludedNodes(request.exclude, wanted.required, lookup, slurmVersion);
      if (!(excluded instanceof Set)) return excluded;
      const nodeIndex = pickBySets(wanted, request, members, excluded, nodeCpus, (i) => conf.nodes[i]!);
      if (!Array.isArray(nodeIndex)) return nodeIndex;
      const nodes = nodeIndex.map((i) => conf.nodes[i]!.name);
      return { nodes, nodeIndex, partition: p.name, ...(wholeNodes ? { cpusPerNode: nodeIndex.map(nodeCpus) } : {}) };
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
