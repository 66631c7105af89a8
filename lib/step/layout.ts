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
 * Slurm's default block distribution: consecutive task ids per node, the
 * remainder going one each to the first nodes (5 tasks on 2 nodes: 0-2 and
 * 3-4).
 */
export function blockLayout(ntasks: number, names: string[]): NodeLayout[] {
  const nodes = names.length;
  if (ntasks < nodes)
    throw new PlugstackError('INVALID_ARGUMENT', `a step of ${ntasks} task(s) cannot span ${nodes} nodes`);
  const base = Math.floor(ntasks / nodes);
  const extra = ntasks % nodes;
  const layout: NodeLayout[] = [];
  let next = 0;
  for (let i = 0; i < nodes; i++) {
    const count = base + (i < extra ? 1 : 0);
    layout.push({ nodeId: i, name: names[i]!, gtids: Array.from({ length: count }, () => next++) });
  }
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
