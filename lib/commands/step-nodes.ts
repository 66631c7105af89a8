/**
 * The nodes of an srun step inside a job (salloc's command, a batch
 * script): what srun itself makes of -x and -w against the job's nodes
 * (job_step_create_allocation), then slurmctld's choice (_pick_step_nodes).
 */
import { chooseNodes, type RequiredNodes } from '../cluster/shape.js';
import { native } from '../native/binding.js';
import type { Builtins } from './builtins.js';

/** At most this many names read from a -x list (the cluster's own bound). */
const EXCLUDE_LIMIT = 100000;

/**
 * What srun asks the step for once -x is applied: a node count, the nodes
 * it names and the ones it excludes, and how many nodes srun has left for
 * it (its nhosts); or srun's error lines.
 */
export type StepRequest = { count: number; required: RequiredNodes | undefined; excluded: Set<string>; hosts: number } | { errors: string[] };

/**
 * srun -x inside a job (job_step_create_allocation; slurmctld checks the
 * names themselves later): the job's distinct nodes less the excluded ones
 * (a name the job does not have is passed over; a list the hostlist
 * refuses excludes nothing); a name -w also lists ends srun ("Requested
 * node N is also in the excluded list.", "Job not submitted."), as does
 * nothing left ("Hostlist is empty!  Can't run job."). Without -N the
 * count is what is left, or -n where fewer, capped by -N's maximum; the
 * step then asks for -w's nodes filled up to the count with the job's
 * others left, or without -w for the first ones left.
 */
export function excludeFromJob(jobNodes: readonly string[], b: Builtins, exclude: string, slurmVersion: string): StepRequest {
  const listed = native().expandHostlist(exclude, slurmVersion, EXCLUDE_LIMIT);
  const excluded = listed.ok ? listed.hosts : [];
  const left = [...new Set(jobNodes)];
  let count = left.length;
  const wanted = b.required?.parsed ? b.required.hosts : undefined;
  for (const name of excluded) {
    const i = left.indexOf(name);
    if (i >= 0) {
      left.splice(i, 1);
      count--;
    }
    if (wanted?.includes(name)) return { errors: [`Requested node ${name} is also in the excluded list.`, 'Job not submitted.'] };
  }
  const minNodes = b.nodes || (b.ntasks !== undefined && b.ntasks < count ? b.ntasks : count);
  const maxNodes = b.maxNodes ?? minNodes;
  if (maxNodes > 0 && maxNodes < count) count = maxNodes;
  if (left.length === 0) return { errors: ["Hostlist is empty!  Can't run job."] };
  const hosts = wanted ? [...wanted, ...left.filter((h) => !wanted.includes(h)).slice(0, Math.max(0, count - wanted.length))] : left.slice(0, count);
  return { count: minNodes, required: { hosts, parsed: true, maxNodes: b.required?.maxNodes ?? 0 }, excluded: new Set(excluded), hosts: count };
}

/**
 * _job_create_structure inside a job: a node count (-N, or the job's
 * SLURM_NNODES) above the nodes srun has for the step (`hosts`: the job's,
 * less what -x took, up to -N's maximum) ends srun.
 */
export function tooFewNodes(hosts: number, b: Builtins): string[] {
  if (b.nodes === undefined || b.nodes <= hosts) return [];
  return [`Only allocated ${hosts} nodes asked for ${b.nodes}`, ...(b.exclude !== undefined ? ['Are required nodes explicitly excluded?'] : [])];
}

/**
 * A step's nodes inside a job (_pick_step_nodes): the first `count` of the
 * job's; with -w, each listed node must be one of the job's and the list no
 * longer than -N's maximum (undefined otherwise: slurmctld refuses the
 * step), the step has every listed node, and a list shorter than the count
 * is filled with the job's others not excluded (-x); in the job's order.
 * Too few of them: undefined.
 */
export function stepNodes(jobNodes: string[], count: number, required: RequiredNodes | undefined, excluded: ReadonlySet<string> = new Set()): string[] | undefined {
  if (!required) return jobNodes.slice(0, count);
  const inJob = new Set(jobNodes);
  if (!required.parsed || required.hosts.some((h) => !inJob.has(h))) return undefined;
  if (required.maxNodes > 0 && required.hosts.length > required.maxNodes) return undefined;
  const listed = new Set(required.hosts);
  if (listed.size >= count) return jobNodes.filter((n) => listed.has(n));
  const chosen = chooseNodes(jobNodes, listed, count, (n) => !excluded.has(n));
  return chosen.length < count ? undefined : chosen;
}
