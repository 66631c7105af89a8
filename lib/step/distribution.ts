/**
 * -m/--distribution: what the option asks for (read by the core with
 * Slurm's verify_dist_type: native/core/rules/task_distribution.h), the
 * variables the commands write for it, and how a step's tasks are laid out
 * over its nodes by it (Slurm's slurm_step_layout_create, for nodes with
 * as many CPUs as the step has tasks, as plugstack's are: block, cyclic,
 * plane, and arbitrary from the host of each task; a distribution left to
 * the default, and arbitrary without its hosts, are block).
 */
import { native } from '../native/binding.js';
import { blockLayout, roundNodes, type NodeLayout } from './layout.js';

export interface TaskDistribution {
  /** set_distribution's text for SLURM_DISTRIBUTION ('' when it writes none). */
  text: string;
  /** task_dist_states_t: the node, socket and core levels and the pack flags. */
  value: number;
  /** The plane's size (0 unless a plane). */
  planeSize: number;
}

/** task_dist_states_t's parts plugstack reads. */
export const SLURM_DIST_CYCLIC = 0x0001;
export const SLURM_DIST_BLOCK = 0x0002;
export const SLURM_DIST_ARBITRARY = 0x0003;
export const SLURM_DIST_PLANE = 0x0004;
const SLURM_DIST_STATE_BASE = 0x00ffff;
/** The node level: the lowest nibble (1 cyclic, 2 block, 3 arbitrary, 4 plane). */
const NODE_LEVEL = 0x000f;

/**
 * The distribution a value of -m asks for, with SLURM_DIST_PLANESIZE of the
 * command's environment for a plane without "=N"; undefined when none was
 * given (the command's client refused a value Slurm refuses).
 */
export function taskDistribution(value: string | undefined, env: Record<string, string | undefined>): TaskDistribution | undefined {
  if (value === undefined) return undefined;
  return native().taskDistribution(value, env.SLURM_DIST_PLANESIZE) ?? undefined;
}

/**
 * What the commands write for it (srun's setup_env, salloc's
 * env_array_for_job, sbatch's set_envs): SLURM_DISTRIBUTION when
 * set_distribution has a text, SLURM_DIST_PLANESIZE for a plane.
 */
export function distributionEnv(d: TaskDistribution | undefined): Record<string, string> {
  if (!d) return {};
  return {
    ...(d.text !== '' ? { SLURM_DISTRIBUTION: d.text } : {}),
    ...((d.value & SLURM_DIST_STATE_BASE) === SLURM_DIST_PLANE ? { SLURM_DIST_PLANESIZE: String(d.planeSize) } : {}),
  };
}

/** The -m value that asks for it again (a plane with its size, which may have come from the environment). */
export function distributionOption(d: TaskDistribution | undefined): string | undefined {
  if (!d) return undefined;
  if ((d.value & SLURM_DIST_STATE_BASE) === SLURM_DIST_PLANE) return `plane=${d.planeSize}`;
  return d.text || undefined;
}

/** The node level it asks for (SLURM_DIST_CYCLIC, _BLOCK, _ARBITRARY, _PLANE), 0 when it leaves it to the default. */
export function nodeLevel(d: TaskDistribution | undefined): number {
  return d ? d.value & NODE_LEVEL : 0;
}

/**
 * The task_dist a step's layout has (the mpi plugins read it): the node
 * level, block by default (and for arbitrary without the tasks' hosts).
 */
export function stepTaskDist(d: TaskDistribution | undefined, taskHosts?: readonly string[]): number {
  const node = nodeLevel(d);
  const laidOut = node === SLURM_DIST_CYCLIC || node === SLURM_DIST_PLANE || (node === SLURM_DIST_ARBITRARY && taskHosts !== undefined);
  return laidOut ? d!.value & SLURM_DIST_STATE_BASE : SLURM_DIST_BLOCK;
}

/**
 * -m arbitrary (_task_layout_hostfile): task i runs on the node named
 * taskHosts[i] (one of names); each node's tasks in increasing order.
 */
export function arbitraryLayout(taskHosts: readonly string[], names: string[]): NodeLayout[] {
  const layout = names.map((name, nodeId) => ({ nodeId, name, gtids: [] as number[] }));
  taskHosts.forEach((h, task) => layout[names.indexOf(h)]!.gtids.push(task));
  return layout;
}

/**
 * Which node gets which global task ids. Block and cyclic by rounds
 * (roundNodes: `slots`, each node's CPUs over -c where the job has them
 * whole); cyclic: one task to each node in turn. Plane of size P (_task_layout_plane): first how many each node
 * gets (one each, then up to P-1 more each, then P each in turn), then the
 * ids in blocks of P to each node in turn, as far as its count goes.
 */
export function taskLayout(ntasks: number, names: string[], d?: TaskDistribution, taskHosts?: readonly string[], slots?: readonly number[]): NodeLayout[] {
  const node = nodeLevel(d);
  if (node === SLURM_DIST_ARBITRARY && taskHosts) return arbitraryLayout(taskHosts, names);
  if (node !== SLURM_DIST_CYCLIC && node !== SLURM_DIST_PLANE) return blockLayout(ntasks, names, slots);
  const layout = blockLayout(ntasks, names).map((n) => ({ ...n, gtids: [] as number[] }));
  if (node === SLURM_DIST_CYCLIC) {
    // The same rounds as block, each task going to the next node in turn.
    roundNodes(ntasks, names.length, slots).forEach((i, t) => layout[i]!.gtids.push(t));
    return layout;
  }
  const plane = d!.planeSize;
  const counts = names.map(() => 0);
  let placed = 0;
  for (let i = 0; i < names.length && placed < ntasks; i++, placed++) counts[i]!++;
  for (let first = true; placed < ntasks; first = false)
    for (let i = 0; i < names.length && placed < ntasks; i++)
      for (let k = first ? 1 : 0; k < plane && placed < ntasks; k++, placed++) counts[i]!++;
  for (let t = 0; t < ntasks; )
    for (let i = 0; i < names.length && t < ntasks; i++)
      for (let k = 0; k < plane && layout[i]!.gtids.length < counts[i]! && t < ntasks; k++) layout[i]!.gtids.push(t++);
  return layout;
}
