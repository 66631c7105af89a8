/**
 * What slurmctld does when srun, sbatch or salloc ask for a job: nodes of
 * the requested (or default) partition of the emulated cluster, and a job
 * record; or the error it answers, which each command words its own way.
 */
import { describeJob } from '../cluster/job-info.js';
import { createJob, removeJob, type Job } from '../cluster/jobs.js';
import { minCpusOf, type ClusterShape, type AllocationRequest } from '../cluster/shape.js';
import type { Builtins } from './builtins.js';
import type { CommandConsole } from './console.js';
import { faultLine } from './fault-lines.js';
import type { CommandName } from './types.js';
import { compressHostlist } from '../step/layout.js';
import { parseJobArray, type JobArray } from '../cluster/job-array.js';
import { nodeLevel, SLURM_DIST_ARBITRARY } from '../step/distribution.js';
import { releaseRules } from '../releases.generated.js';

const REFUSED: Record<CommandName, string> = {
  srun: 'Unable to allocate resources',
  salloc: 'Job submit/allocate failed',
  sbatch: 'Batch job submission failed',
};

/** _valid_array_inx's refusal, before slurmctld looks at partitions or nodes (job-array.ts). */
const INVALID_ARRAY = 'Invalid job array specification';

/** The job array sbatch's -a/--array asks for: undefined when it asks for none or slurmctld refuses it. */
export function requestedArray(cluster: ClusterShape, b: Builtins): JobArray | undefined {
  return b.array === undefined ? undefined : parseJobArray(b.array, cluster.arrayLimits);
}

const refusesArray = (cluster: ClusterShape, b: Builtins) => b.array !== undefined && !requestedArray(cluster, b);

/**
 * slurm_opt_create_job_desc's own refusal, before anything reaches
 * slurmctld: -m arbitrary lays tasks out from a node list, so it needs one
 * (-w). The command then ends with its error status.
 */
function jobDescriptionError(b: Builtins): string | undefined {
  if (b.distribution && nodeLevel(b.distribution) === SLURM_DIST_ARBITRARY && !b.nodelist)
    return 'With Arbitrary distribution you need to specify a nodelist or hostfile with the -w option';
  return undefined;
}

/**
 * A slurmctld that stopped at its start answers nothing: the command's own
 * line for that (refused), then plugstack's lines saying why, which the
 * real command cannot know. False when slurmctld is there.
 */
function refusedUnreachable(cluster: ClusterShape, console: CommandConsole, refused: (error: string) => void): boolean {
  if (!cluster.unreachable) return false;
  refused(cluster.unreachable.error.error);
  for (const p of cluster.unreachable.causes) {
    const where = p.file !== undefined ? `, ${p.file}${p.line !== undefined ? `:${p.line}` : ''}` : '';
    console.stderr(faultLine(p, `slurmctld${where}`));
  }
  return true;
}

/**
 * The node count's minimum a new job asks for: -N's, else under 24.11 what
 * -n needs at --ntasks-per-node a node (slurm_opt_create_job_desc), else 1.
 */
export function requestedNodes(b: Builtins, slurmVersion: string): number {
  if (b.nodes !== undefined) return b.nodes;
  if (b.ntasks !== undefined && b.ntasksPerNode !== undefined && releaseRules(slurmVersion).client.jobNodesFromTasksPerNode)
    return Math.ceil(b.ntasks / b.ntasksPerNode);
  return 1;
}

/** What the command asks slurmctld for: `nodes` is the node count's minimum. */
function jobRequest(b: Builtins, nodes: number): AllocationRequest {
  return {
    nodes,
    minCpus: minCpusOf(b, nodes),
    ...(b.maxNodes !== undefined ? { maxNodes: b.maxNodes } : {}),
    ...(b.partition !== undefined ? { partition: b.partition } : {}),
    ...(b.cpusPerTask !== undefined ? { cpusPerTask: b.cpusPerTask } : {}),
    ...(b.ntasksPerNode !== undefined ? { ntasksPerNode: b.ntasksPerNode } : {}),
    // pn_min_cpus: -c, times --ntasks-per-node where the job has more than one task and no -O.
    pnMinCpus: (b.cpusPerTask ?? 1) * (b.ntasksPerNode !== undefined && (b.ntasks ?? 0) > 1 && !b.overcommit ? b.ntasksPerNode : 1),
    ...(b.required ? { required: b.required } : {}),
    ...(b.exclude !== undefined ? { exclude: b.exclude } : {}),
  };
}

/** A new job for the command, or undefined after printing slurmctld's refusal. */
export function requestJob(
  cluster: ClusterShape,
  command: CommandName,
  b: Builtins,
  nodes: number,
  console: CommandConsole,
  /** What the job's record names: the command's positional arguments, directory and environment. */
  request?: { argv: readonly string[]; cwd: string; env: Record<string, string | undefined> },
  /** The environment of the job's slurmds (command-env.ts). */
  slurmdEnv?: Record<string, string>,
): Job | undefined {
  const description = jobDescriptionError(b);
  if (description) {
    console.log('error', description);
    return undefined;
  }
  if (refusedUnreachable(cluster, console, (error) => console.log('error', `${REFUSED[command]}: ${error}`))) return undefined;
  if (refusesArray(cluster, b)) {
    console.log('error', `${REFUSED[command]}: ${INVALID_ARRAY}`);
    return undefined;
  }
  const allocation = cluster.allocate(jobRequest(b, nodes));
  if ('error' in allocation) {
    // A job slurmctld took and then failed has an id, and salloc hears
    // that its allocation was revoked (that line and the error come in
    // either order from the real one: the one here is its more frequent).
    const failed = allocation.jobFailed ? createJob({ nodes: [], nodeIndex: [], partition: b.partition ?? cluster.defaultPartition ?? '', clusterName: cluster.name }) : undefined;
    if (failed) removeJob(failed);
    if (allocation.message) console.log('error', allocation.message);
    console.log('error', `${REFUSED[command]}: ${allocation.error}`);
    if (failed && command === 'salloc') console.log('info', `Job allocation ${failed.id} has been revoked.`);
    return undefined;
  }
  return createJob({
    nodes: allocation.nodes,
    nodeIndex: allocation.nodeIndex,
    ...(allocation.cpusPerNode ? { cpusPerNode: allocation.cpusPerNode } : {}),
    ...(b.memory ? { memory: b.memory } : {}),
    ...(b.account !== undefined ? { account: b.account } : {}),
    partition: allocation.partition,
    clusterName: cluster.name,
    // The job's task count as the commands send it: -n, else --ntasks-per-node times the nodes.
    ...(b.ntasks !== undefined ? { ntasks: b.ntasks } : b.ntasksPerNode !== undefined ? { ntasks: b.ntasksPerNode * allocation.nodes.length } : {}),
    ...(b.timeLimitMs !== undefined ? { timeLimitMs: b.timeLimitMs } : {}),
    ...(request ? { description: describeJob({ command, ...request, ...b }) } : {}),
    ...(slurmdEnv ? { slurmdEnv } : {}),
  });
}

/** slurm_make_time_str's default form: local time, 2026-11-24T01:35:17. */
function slurmTimeString(d: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/**
 * srun's and sbatch's --test-only (slurm_job_will_run): slurmctld answers
 * when and where the job would start, taking a job id for the answer, and
 * nothing runs. Returns the command's exit status: 0, or 1 after
 * slurm_perror's "allocation failure: ...".
 */
export function willRun(cluster: ClusterShape, b: Builtins, nodes: number, console: CommandConsole): number {
  const description = jobDescriptionError(b);
  if (description) {
    console.log('error', description);
    return 1;
  }
  if (refusedUnreachable(cluster, console, (error) => console.stderr(`allocation failure: ${error}\n`))) return 1;
  if (refusesArray(cluster, b)) {
    console.stderr(`allocation failure: ${INVALID_ARRAY}\n`);
    return 1;
  }
  const request = jobRequest(b, nodes);
  const { minCpus } = request;
  const allocation = cluster.allocate(request);
  if ('error' in allocation) {
    if (allocation.message) console.log('error', allocation.message);
    // slurm_perror: the bare line, without the command's "error:" prefix.
    console.stderr(`allocation failure: ${allocation.error}\n`);
    return 1;
  }
  const answer = createJob({ nodes: allocation.nodes, nodeIndex: allocation.nodeIndex, partition: allocation.partition, clusterName: cluster.name });
  removeJob(answer);
  // select/linear gives a job all of its nodes' CPUs; plugstack's own nodes, and the other plugins, as many as the job asks for.
  const cpus = allocation.cpusPerNode?.reduce((sum, c) => sum + c, 0) ?? Math.max(minCpus, allocation.nodes.length);
  console.log(
    'info',
    `Job ${answer.id} to start at ${slurmTimeString(new Date())} using ${cpus} processors on nodes ${compressHostlist(allocation.nodes)} in partition ${allocation.partition}`,
  );
  return 0;
}
