/**
 * How a step's tasks are spread over its nodes, and how Slurm writes node
 * lists and task counts in environment variables. This is the launcher's
 * side (srun, slurmctld): which node gets which global task ids.
 */
import { PlugstackError } from '../errors.js';
import { native } from '../native/binding.js';

export interface NodeLayout {
  nodeId: number;
  name: string;
  /** Global task ids of the tasks on this node, in local order. */
  gtids: number[];
}

/**
 * The order in which tasks go to nodes as Slurm counts them for block and
 * cyclic (slurm_step_layout.c): in rounds, one task to each node that has
 * a CPU left for it (`slots`: a node's CPUs over -c), and once no node has
 * one, to every node in turn. Without slots (plugstack's own nodes have as
 * many CPUs as the step asks for) every round reaches every node: the
 * remainder goes one each to the first nodes. The node of each task, in
 * task order.
 */
export function roundNodes(ntasks: number, nodes: number, slots?: readonly number[]): number[] {
  const order: number[] = [];
  let overSubscribe = !slots;
  for (let round = 0; order.length < ntasks; round++) {
    let spaceLeft = false;
    for (let i = 0; i < nodes && order.length < ntasks; i++) {
      if (overSubscribe || round < slots![i]!) {
        order.push(i);
        if (!overSubscribe && round + 1 < slots![i]!) spaceLeft = true;
      }
    }
    if (!spaceLeft) overSubscribe = true;
  }
  return order;
}

/** How many tasks each node gets (the rounds of roundNodes). */
export function taskCounts(ntasks: number, nodes: number, slots?: readonly number[]): number[] {
  const counts = Array.from({ length: nodes }, () => 0);
  for (const i of roundNodes(ntasks, nodes, slots)) counts[i]!++;
  return counts;
}

/** A job's nodes and, where it has them whole, its CPUs on each (cluster/jobs.ts). */
interface JobCpus {
  nodes: readonly string[];
  cpusPerNode?: readonly number[];
}

/** The job's CPUs on one of its nodes, where it has its nodes whole; undefined where they follow its tasks. */
export function jobNodeCpus(job: JobCpus, name: string): number | undefined {
  return job.cpusPerNode ? (job.cpusPerNode[job.nodes.indexOf(name)] ?? 0) : undefined;
}

/** The slots of nodes of these CPUs: how many tasks of -c CPUs each holds. */
export function slotsOf(cpus: readonly number[], cpusPerTask = 1): number[] {
  return cpus.map((c) => Math.floor(c / Math.max(1, cpusPerTask)));
}

/** A job's slots on these nodes for the layout: its CPUs on each over -c; none where they follow its tasks. */
export function jobSlots(job: JobCpus, names: readonly string[], cpusPerTask = 1): number[] | undefined {
  return job.cpusPerNode ? slotsOf(names.map((n) => jobNodeCpus(job, n)!), cpusPerTask) : undefined;
}

/** An allocation's tasks per node (salloc's, a batch job's): one a node without a task count. */
export function allocationTaskCounts(ntasks: number | undefined, job: JobCpus, names: readonly string[], cpusPerTask?: number): number[] {
  return ntasks === undefined ? names.map(() => 1) : taskCounts(ntasks, names.length, jobSlots(job, names, cpusPerTask));
}

/**
 * Slurm's default block distribution: consecutive task ids per node, as
 * many on each as the rounds give it (5 tasks on 2 nodes: 0-2 and 3-4; 3
 * tasks on nodes of 1 and 2 CPUs: 0 and 1-2).
 */
export function blockLayout(ntasks: number, names: string[], slots?: readonly number[]): NodeLayout[] {
  const nodes = names.length;
  if (ntasks < nodes)
    throw new PlugstackError('INVALID_ARGUMENT', `a step of ${ntasks} task(s) cannot span ${nodes} nodes`);
  const counts = taskCounts(ntasks, nodes, slots);
  const layout: NodeLayout[] = [];
  let next = 0;
  for (let i = 0; i < nodes; i++) layout.push({ nodeId: i, name: names[i]!, gtids: Array.from({ length: counts[i]! }, () => next++) });
  return layout;
}

/**
 * "node[0-3,5]": Slurm's ranged host list of names in their order, as
 * hostlist_ranged_string writes it (the core's hostlist: "n9,n10" is
 * n[9-10], "n01,n1" is n[01,1]).
 */
export function compressHostlist(names: string[]): string {
  return native().rangedHostlist(names);
}

/** "2(x3),1": counts per node with runs of equal counts folded, as in SLURM_TASKS_PER_NODE. */
export function compressCounts(counts: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < counts.length; ) {
    let j = i;
    while (j + 1 < counts.length && counts[j + 1] === counts[i]) j++;
    out.push(j === i ? String(counts[i]) : `${counts[i]}(x${j - i + 1})`);
    i = j + 1;
  }
  return out.join(',');
}
