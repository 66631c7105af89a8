/**
 * Which nodes slurmctld gives a job, as the select/linear plugin of Slurm
 * 22.05 and 24.11 chooses them (whole nodes; the same rules in both
 * releases, read from select_linear.c's _job_test and node_scheduler.c's
 * get_node_cnts, and compared with real clusters of three nodes).
 *
 * The job wants `minNodes` nodes at least, `reqNodes` if it can (its -N
 * maximum when it gave one), never more than `maxNodes`, and `minCpus`
 * CPUs over them. Its required nodes (-w) count first. The other available
 * nodes fall into runs of consecutive node-table indices; slurmctld takes
 * from one run at a time, the best one first: a run holding a required
 * node (taken from that node up to the run's end, then down to its start),
 * else the first run that has enough by itself, the smallest such run in
 * CPUs, else the largest; until the job has its nodes and its CPUs. Nodes
 * whose CPU counts differ are taken largest first when the smallest could
 * not give the job its CPUs.
 */

export interface LinearRequest {
  /** The nodes the job may have (its partition's, less -x's), by node-table index, ascending. */
  candidates: readonly number[];
  /** The CPUs a node gives this job (its CPUs, at most --ntasks-per-node times -c). */
  cpusOf: (node: number) => number;
  /** The nodes the job must have (-w), among the candidates. */
  required: readonly number[];
  minNodes: number;
  /** The count slurmctld aims at: -N's maximum where the job gave one, else minNodes. */
  reqNodes: number;
  /** The most nodes the job may have. */
  maxNodes: number;
  minCpus: number;
}

/** A run of consecutive candidate nodes that are not required. */
interface Run {
  start: number;
  end: number;
  nodes: number;
  cpus: number;
  /** The first required node inside the run's span, or -1. */
  required: number;
}

/** The node-table indices of the job's nodes (ascending), or undefined when it cannot have enough. */
export function selectLinear(request: LinearRequest): number[] | undefined {
  const { candidates, cpusOf, minNodes, reqNodes } = request;
  if (candidates.length < minNodes) return undefined;
  const available = new Set(candidates);
  if (request.required.some((n) => !available.has(n))) return undefined;
  const required = new Set(request.required);
  const chosen = new Set<number>();
  let remNodes = Math.max(reqNodes, minNodes);
  let remCpus = request.minCpus;
  let maxNodes = request.maxNodes;
  const take = (node: number) => {
    chosen.add(node);
    remNodes--;
    maxNodes--;
    remCpus -= cpusOf(node);
  };
  // "Enough nodes": what is left to find once the nodes beyond the minimum
  // (the ones the job only aims at) are let go.
  const enough = (nodes: number, rem: number) => nodes >= (reqNodes > minNodes ? rem + minNodes - reqNodes : rem);
  const done = () => remNodes <= 0 && remCpus <= 0;

  // The required nodes first; the others in runs of consecutive indices
  // (a required node does not break a run, a node that is not available does).
  const runs: Run[] = [];
  let run: Run | undefined;
  let previous = -2;
  for (const node of candidates) {
    if (node !== previous + 1) run = undefined;
    previous = node;
    if (!run) {
      run = { start: node, end: node, nodes: 0, cpus: 0, required: -1 };
      runs.push(run);
    }
    run.end = node;
    if (required.has(node) && request.maxNodes > 0) {
      if (run.required === -1) run.required = node;
      take(node);
    } else {
      run.nodes++;
      run.cpus += cpusOf(node);
    }
  }

  const others = candidates.filter((n) => !chosen.has(n));
  // (A loop, not Math.min(...): a list of 100000 candidates is no argument list.)
  let lowest = Infinity;
  let mixed = false;
  for (const n of candidates) {
    const c = cpusOf(n);
    if (lowest !== Infinity && c !== lowest) mixed = true;
    lowest = Math.min(lowest, c);
  }
  const heterogeneous = mixed && remCpus > lowest * remNodes;
  if (heterogeneous) {
    // The largest nodes first (of equals, the last in the table).
    while (maxNodes > 0 && (remNodes > 0 || remCpus > 0)) {
      let best = -1;
      for (const n of others) if (!chosen.has(n) && (best === -1 || cpusOf(n) >= cpusOf(best))) best = n;
      if (best === -1) break;
      take(best);
    }
  } else {
    for (;;) {
      if (!runs.length || maxNodes <= 0) break;
      let best: Run | undefined;
      let bestSufficient = false;
      for (const r of runs) {
        if (r.nodes === 0) continue;
        const sufficient = r.cpus >= remCpus && enough(r.nodes, remNodes);
        if (
          !best ||
          (best.required === -1 && r.required !== -1) ||
          (sufficient && !bestSufficient) ||
          (sufficient && r.cpus < best.cpus) ||
          (!sufficient && r.cpus > best.cpus)
        ) {
          best = r;
          bestSufficient = sufficient;
        }
      }
      if (!best) break;
      const order: number[] = [];
      if (best.required !== -1) {
        for (let n = best.required; n <= best.end; n++) order.push(n);
        for (let n = best.required - 1; n >= best.start; n--) order.push(n);
      } else {
        for (let n = best.start; n <= best.end; n++) order.push(n);
      }
      for (const n of order) {
        if (maxNodes <= 0 || done()) break;
        if (!available.has(n) || chosen.has(n)) continue;
        take(n);
      }
      if (done()) break;
      best.nodes = 0;
      best.cpus = 0;
    }
  }
  if (!done() && !(remCpus <= 0 && enough(0, remNodes))) return undefined;
  return [...chosen].sort((a, b) => a - b);
}
