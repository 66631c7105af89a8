/**
 * Launching a step: the launcher's part (layout, launch environment, the
 * request each node's slurmd would pass to slurmstepd), then one stepd host
 * per node, all at once.
 */
import path from 'node:path';
import { invalidArgument, PlugstackError } from '../errors.js';
import { startHost, type HostHandle } from '../host/host-process.js';
import type { SpareHost } from '../host/spare-host.js';
import type { HostSpawnOptions } from '../host/zygote.js';
import type { HostEvent } from '../host/protocol.js';
import { addNode, finishStep, NodeEvents } from './aggregate.js';
import { CLUSTER_NAME, LAUNCH_NODE_ADDRESS, launcherPort, MAX_TASKS_PER_NODE, PARTITION, workingCluster, type ControllerAddress } from '../cluster/names.js';
import { jobInfo, NO_VAL, stepJobDescription } from '../cluster/job-info.js';
import { BATCH_STEP } from '../cluster/jobs.js';
import { arrayIdsIn } from '../cluster/job-array.js';
import { envRecord } from '../cluster/job-env.js';
import { launcherEnv } from './launcher-env.js';
import { uint32 } from '../validate.js';
import { native } from '../native/binding.js';
import { compressHostlist, slotsOf } from './layout.js';
import { nodeLevel, SLURM_DIST_ARBITRARY, stepTaskDist, taskDistribution, taskLayout, type TaskDistribution } from './distribution.js';
import { mpiRecord } from '../mpi/record.js';
import { singletonProblems } from '../mpi/singletons.js';
import { slurmdMpiConf } from '../mpi/conf.js';
import type { StepOptions, StepResult } from './types.js';
import { slurmdEnv, stepdEnv } from '../cluster/command-env.js';
import type { JobContainerSettings } from '../job-container/settings.js';
import { JobContainerJob } from '../job-container/job.js';
import { nodeIsFed, nodeStdin, type TaskInputPlan } from './task-input.js';
import { nodeOutputFiles, opensFiles } from './task-output.js';
import { fanOut } from './stdin-fanout.js';
import { taskScriptFields, type TaskScripts } from './task-scripts.js';
import { rlimitNames } from '../cluster/limits.js';

export interface StackRef {
  conf: string;
  slurmVersion: string;
  pluginDirs: readonly string[];
  /** Environment of the host processes themselves (the stack's env option): slurmd's. */
  hostEnv: NodeJS.ProcessEnv | undefined;
  /** slurmd's environment for this job, which every slurmstepd starts from (default: from hostEnv, command-env.ts). */
  daemonEnv?: Record<string, string>;
  /** The emulated cluster's name (slurm.conf's ClusterName). */
  clusterName?: string;
  /** slurm.conf's slurmctld address and select plugin (SLURM_WORKING_CLUSTER); default: plugstack's own. */
  controller?: ControllerAddress;
  /** slurm.conf's JobContainerType and the flags that go with it (job-container/settings.ts). */
  jobContainer?: JobContainerSettings;
  /**
   * The job's job_container life when a command owns it (the job's start
   * and end are the command's: job-container/job.ts); without one, the step
   * is a job of its own: its namespace, slurmd's calls and the extern step
   * are made around it.
   */
  jobContainerJob?: JobContainerJob;
  /** The mpi.conf beside slurm.conf (mpi/conf.ts's mpiConfPath), which slurmd reads for the mpi plugins. */
  mpiConf?: string;
  /** slurm.conf's TaskProlog and TaskEpilog (task-scripts.ts). */
  taskScripts?: TaskScripts;
  /** The rlimits slurm.conf propagates to tasks (limits.ts); default: all of them. */
  propagatedLimits?: readonly string[];
}


const DEFAULT_STEP_TIMEOUT_MS = 60_000;

/** StepOptions.distribution as -m takes it; one Slurm refuses is an invalid argument. */
function stepDistribution(text: string | undefined): TaskDistribution | undefined {
  if (text === undefined) return undefined;
  if (typeof text !== 'string') throw invalidArgument('distribution', "srun's -m form: 'block', 'cyclic', 'plane=N', ...", text);
  const d = taskDistribution(text, {});
  if (!d) throw invalidArgument('distribution', "srun's -m form: 'block', 'cyclic', 'plane=N', ...", text);
  return d;
}

function envList(env: StepOptions['env']): string[] {
  if (env === undefined) env = process.env;
  if (Array.isArray(env)) {
    for (const e of env) if (typeof e !== 'string' || !e.includes('=')) throw invalidArgument('env entry', 'a "NAME=value" string', e);
    return [...env];
  }
  if (typeof env !== 'object' || env === null) throw invalidArgument('env', 'an object or an array of "NAME=value"', env);
  return Object.entries(env)
    .filter((kv): kv is [string, string] => typeof kv[1] === 'string')
    .map(([k, v]) => `${k}=${v}`);
}

/**
 * Overwrites or appends NAME=value entries, keeping the order of the rest
 * (a name given twice: its first entry). Where each name stands is found in
 * one pass, not by a search of the whole environment per variable.
 */
function overlay(base: string[], extra: Record<string, string>): string[] {
  const out = [...base];
  const at = new Map<string, number>();
  out.forEach((e, i) => {
    const eq = e.indexOf('=');
    if (eq >= 0 && !at.has(e.slice(0, eq))) at.set(e.slice(0, eq), i);
  });
  for (const [k, v] of Object.entries(extra)) {
    // A name with "=" in it matches an entry's start, as a search would.
    const i = k.includes('=') ? out.findIndex((e) => e.startsWith(`${k}=`)) : (at.get(k) ?? -1);
    if (i >= 0) out[i] = `${k}=${v}`;
    else {
      at.set(k, out.length);
      out.push(`${k}=${v}`);
    }
  }
  return out;
}

/** The user's primary group from the user database; a uid it does not know cannot run a step. */
function primaryGroup(uid: number): number {
  const user = native().userByUid(uid);
  if (!user) throw invalidArgument('uid', 'a user known to the user database (or give gid too)', uid);
  return user.gid;
}

/** "_SLURM_SPANK_OPTION_<plugin>_<option>", every non-alphanumeric byte turned into "_". */
export function spankOptionEnvName(plugin: string, option: string): string {
  const canon = (s: string) => s.replace(/[^A-Za-z0-9]/g, '_');
  return `_SLURM_SPANK_OPTION_${canon(plugin)}_${canon(option)}`;
}

/** How a command holds the step it launches (lib/cluster/control.ts). */
export interface StepOwner {
  trackStepHost(handle: HostHandle): void;
  /** Time left before the command's own bound. */
  remainingMs(): number;
  /** A host process started ahead for this name (prestartStepHosts), if any. */
  spare?(key: string): SpareHost | undefined;
}

/** Who starts a step's host processes ahead (the command's control). */
export interface SpareOwner {
  prestart(key: string, role: 'stepd', options: HostSpawnOptions): void;
}

/** The name a node's spare stepd host goes by. */
function stepHostKey(jobId: number, stepId: number, nodeId: number): string {
  return `stepd ${jobId}.${stepId} ${nodeId}`;
}

/** slurmd's environment, which every slurmstepd of the step starts from. */
function daemonEnvOf(stack: StackRef): Record<string, string> {
  return stack.daemonEnv ?? slurmdEnv(stack.hostEnv, (stack.hostEnv ?? process.env).SLURM_CONF);
}

/** What each node's tasks read: --input's plan, or all of them when srun's input is given. */
function inputPlanOf(options: Pick<StepOptions, 'input' | 'stdin'>): TaskInputPlan | undefined {
  return options.input ?? (options.stdin !== undefined ? { kind: 'all' } : undefined);
}

/**
 * Starts the processes of a step's hosts, one per node, before the launch
 * may go (while the job's prolog runs): launchStep hands each its request
 * (spare-host.ts). A step with job_container plugins starts its hosts when
 * it launches: their environment comes with the job's namespace.
 */
export function prestartStepHosts(
  stack: StackRef,
  options: Pick<StepOptions, 'nodeNames' | 'ntasks' | 'jobId' | 'stepId' | 'mpi' | 'input' | 'stdin' | 'distribution' | 'taskHosts'>,
  owner: SpareOwner,
): void {
  if (stack.jobContainer || !options.nodeNames?.length || options.jobId === undefined) return;
  const daemon = daemonEnvOf(stack);
  const input = inputPlanOf(options);
  for (const node of taskLayout(options.ntasks ?? options.nodeNames.length, options.nodeNames, stepDistribution(options.distribution), options.taskHosts))
    owner.prestart(stepHostKey(options.jobId, options.stepId ?? 0, node.nodeId), 'stepd', {
      env: stepdEnv(daemon, node.name, stack.slurmVersion, options.mpi),
      stdin: input !== undefined && nodeIsFed(input, node.gtids),
    });
}

/** How long a step host outlives its command's bound before it kills itself: the command ends it first. */
const BACKSTOP_MS = 5_000;

export async function launchStep(stack: StackRef, options: StepOptions, owner?: StepOwner): Promise<StepResult> {
  if (!options || !Array.isArray(options.argv) || options.argv.length === 0 || options.argv.some((a) => typeof a !== 'string'))
    throw invalidArgument('argv', 'a non-empty array of strings', options?.argv);
  const nodes = uint32('nodes', options.nodes, 1);
  if (nodes < 1) throw invalidArgument('nodes', 'at least 1', nodes);
  const ntasks = uint32('ntasks', options.ntasks, nodes);
  const jobId = uint32('jobId', options.jobId, 1);
  const stepId = uint32('stepId', options.stepId, 0);
  const uid = uint32('uid', options.uid, process.getuid!());
  // A uid without a gid takes the user's primary group, as Slurm's job
  // credential carries it; never this process's (root's) group.
  const gid = uint32('gid', options.gid, options.uid === undefined ? process.getgid!() : primaryGroup(uid));
  const timeoutMs = uint32('timeoutMs', options.timeoutMs, DEFAULT_STEP_TIMEOUT_MS);
  if ((uid !== process.getuid!() || gid !== process.getgid!()) && process.getuid!() !== 0)
    throw new PlugstackError(
      'PERMISSION_DENIED',
      `running a step as uid ${uid} gid ${gid} needs root (this process is uid ${process.getuid!()})`,
    );
  const names = options.nodeNames ?? Array.from({ length: nodes }, (_, i) => `node${i}`);
  if (names.length !== nodes || names.some((n) => typeof n !== 'string' || n === ''))
    throw invalidArgument('nodeNames', `${nodes} non-empty names`, options.nodeNames);
  const distribution = stepDistribution(options.distribution);
  const taskHosts = options.taskHosts;
  if (taskHosts !== undefined) {
    const expected = `with distribution 'arbitrary', ${ntasks} node names (one per task) naming every node`;
    if (!Array.isArray(taskHosts) || nodeLevel(distribution) !== SLURM_DIST_ARBITRARY || taskHosts.length !== ntasks || taskHosts.some((h) => !names.includes(h)) || names.some((n) => !taskHosts.includes(n)))
      throw invalidArgument('taskHosts', expected, taskHosts);
  }
  const layout = taskLayout(ntasks, names, distribution, taskHosts, layoutSlots(options.cpusPerNode, options.cpusPerTask, names.length));
  const busiest = Math.max(...layout.map((n) => n.gtids.length));
  if (busiest > MAX_TASKS_PER_NODE)
    throw invalidArgument('ntasks', `at most ${MAX_TASKS_PER_NODE} tasks per node (Slurm's MaxTasksPerNode)`, ntasks);
  const cwd = options.cwd ?? process.cwd();

  const launched = options.launcherEnv !== false;
  const port = launcherPort(jobId, stepId);
  let env = envList(options.env);
  if (launched)
    env = overlay(
      env,
      launcherEnv({
        jobId,
        stepId,
        layout,
        jobName: options.jobName ?? path.basename(options.argv[0]!),
        submitDir: options.submitDir ?? cwd,
        port,
        ...(options.jobNodes ? { jobNodes: options.jobNodes } : {}),
        ...(options.cpusPerTask !== undefined ? { cpusPerTask: options.cpusPerTask } : {}),
      }),
    );
  // Both channels srun uses: the option list of the launch request, and
  // the _SLURM_SPANK_OPTION_* variables in the environment it sends.
  const spankOptions = (options.spankOptions ?? []).map((o) => {
    if (!o || typeof o.plugin !== 'string' || typeof o.name !== 'string')
      throw invalidArgument('spankOptions entry', '{ plugin, name, value? }', o);
    return { plugin: o.plugin, name: o.name, value: o.value ?? null };
  });
  if (options.optionEnv !== false)
    env = overlay(
      env,
      Object.fromEntries(spankOptions.map((o) => [spankOptionEnvName(o.plugin, o.name), o.value ?? ''])),
    );

  const cluster = workingCluster(stack.slurmVersion, stack.clusterName, stack.controller);
  // S_JOB_ARRAY_ID and S_JOB_ARRAY_TASK_ID: a batch step's from the batch
  // launch (0 and NO_VAL outside an array); another step's from its launch
  // environment, else its job's id and NO_VAL (job-array.ts).
  const launchArray = stepId === BATCH_STEP ? undefined : arrayIdsIn(envRecord(env));
  const arrayIds = launchArray
    ? { jobId: launchArray.arrayJobId ?? jobId, taskId: launchArray.arrayTaskId ?? NO_VAL }
    : { jobId: uint32('batchArray.jobId', options.batchArray?.jobId, 0), taskId: uint32('batchArray.taskId', options.batchArray?.taskId, NO_VAL) };
  // The record slurm_load_job answers with on every node (job-info.ts).
  const job =
    options.job ??
    jobInfo(
      {
        id: jobId,
        nodes: names,
        ntasks,
        partition: PARTITION,
        clusterName: stack.clusterName ?? CLUSTER_NAME,
        description: stepJobDescription({
          uid,
          gid,
          argv: options.argv,
          cwd,
          ...(options.user !== undefined ? { user: options.user } : {}),
          ...(options.jobName !== undefined ? { jobName: options.jobName } : {}),
          ...(options.cpusPerTask !== undefined ? { cpusPerTask: options.cpusPerTask } : {}),
        }),
      },
      stack.slurmVersion,
    );
  const result: StepResult = {
    jobId,
    stepId,
    ok: false,
    exitCode: 0,
    nodes: [],
    tasks: [],
    calls: [],
    items: [],
    env: [],
    log: [],
    problems: [],
  };
  if (options.mpi !== undefined) {
    if (options.mpi !== null && (typeof options.mpi !== 'string' || options.mpi === '' || options.mpi.includes('/')))
      throw invalidArgument('mpi', 'an mpi type such as "pmi2", or null', options.mpi);
    result.mpi = mpiRecord(options.mpi);
  }
  // What slurmd passes slurmstepd for the step's mpi plugin, and the layout
  // slurmstepd's record holds.
  const mpi =
    options.mpi === undefined
      ? undefined
      : {
          type: options.mpi,
          nodeList: compressHostlist(names),
          layout: layout.map((n) => n.gtids),
          taskDist: stepTaskDist(distribution, taskHosts),
          ...(distribution?.planeSize ? { planeSize: distribution.planeSize } : {}),
          ...(options.pmiTrace ? { pmiTrace: true } : {}),
        };
  // slurmd's mpi.conf (read when it started): what the step's plugin gets in each slurmstepd.
  if (typeof options.mpi === 'string' && mpi) {
    const daemonEnv = daemonEnvOf(stack);
    const conf = await slurmdMpiConf({ ...stack, daemonEnv }, owner ? { track: (h) => (owner.trackStepHost(h), h) } : undefined);
    for (const l of conf.log) result.log.push({ source: 'slurm', level: l.level, message: l.message, node: 0 } as StepResult['log'][number]);
    for (const p of conf.problems) result.problems.push({ ...p, node: 0 } as StepResult['problems'][number]);
    const data = conf.plugins.find((p) => p.type === options.mpi)?.data;
    if (!conf.ok) Object.assign(mpi, { slurmdFailed: true });
    else if (data !== undefined) Object.assign(mpi, { conf: data });
  }
  const daemon = daemonEnvOf(stack);
  // job_container (job-container/job.ts): the job's namespace, slurmd's
  // calls and the extern step around the step when it is the job's only
  // one; what each slurmstepd is told (24.11: slurmd's send_stepd bytes).
  const jc = stack.jobContainer;
  const ownJob = jc && !stack.jobContainerJob
    ? new JobContainerJob(stack, jc, layout.map((n) => ({ nodeId: n.nodeId, name: n.name })), { jobId, uid, gid, cwd, env })
    : undefined;
  const jcJob = jc ? (stack.jobContainerJob ?? ownJob) : undefined;
  const stepCalls: NonNullable<StepResult['jobContainer']>['calls'] = [];
  if (jcJob) result.jobContainer = { types: jcJob.out.record.types, calls: stepCalls };
  // srun's input: what each node's tasks read, and the copy of it each
  // fed node's slurmstepd gets.
  const input = inputPlanOf(options);
  const user = options.user ?? native().userByUid(uid)?.name ?? String(uid);
  const fed = input ? layout.filter((n) => nodeIsFed(input, n.gtids)).map((n) => n.nodeId) : [];
  const feeds = fanOut(options.stdin, fed);
  try {
    if (ownJob) {
      await ownJob.begin();
      await ownJob.firstRun(names);
      await ownJob.startExtern();
    }
    const stepdSettings = jcJob ? await jcJob.stepdSettings(layout.map((n) => n.nodeId)) : undefined;
    const runs = await Promise.all(
      layout.map((node) => {
        const events = new NodeEvents(node);
        const onEvent = options.onEvent;
        const handle = startHost(
          'stepd',
          {
            conf: stack.conf,
            context: 'remote',
            slurmVersion: stack.slurmVersion,
            pluginDirs: stack.pluginDirs,
            step: {
              jobId,
              stepId,
              nnodes: options.recordCounts?.nnodes ?? layout.length,
              nodeId: node.nodeId,
              nodeName: node.name,
              ntasks: options.recordCounts?.ntasks ?? ntasks,
              tasks: node.gtids.map((gtid) => ({ gtid })),
              cpus: (typeof options.cpusPerNode === 'number' ? options.cpusPerNode : options.cpusPerNode?.[node.nodeId]) ?? Math.max(1, node.gtids.length),
              cpusPerTask: options.cpusPerTask ?? 1,
              uid,
              gid,
              ...(options.user !== undefined ? { user: options.user } : {}),
              ...(options.gids !== undefined ? { gids: options.gids } : {}),
              argv: options.argv,
              env,
              cwd,
              options: spankOptions,
              // What slurmstepd's setup_env adds from the launch request:
              // srun's address and port (not for a batch step), the cluster.
              ...(launched ? { srunCommPort: port, launchNodeAddress: LAUNCH_NODE_ADDRESS } : {}),
              ...(cluster !== undefined ? { workingCluster: cluster } : {}),
              arrayJobId: arrayIds.jobId,
              arrayTaskId: arrayIds.taskId,
              ...(options.jobMem !== undefined ? { jobMem: options.jobMem } : {}),
              ...(options.stepMem !== undefined ? { stepMem: options.stepMem } : {}),
              propagateLimits: (stack.propagatedLimits ?? rlimitNames(stack.slurmVersion)).join(','),
              ...(input ? { stdin: nodeStdin(input, node, { user, cwd }) } : {}),
              ...(options.output && opensFiles(options.output) ? { output: nodeOutputFiles(options.output, node, { user, cwd }) } : {}),
              ...(options.outputAppend ? { outputAppend: true } : {}),
              ...(options.outputLabelled ? { outputLabelled: true } : {}),
              ...taskScriptFields(stack.taskScripts, options),
              job,
              ...(mpi ? { mpi } : {}),
              ...(stepdSettings ? { jobContainer: stepdSettings.get(node.nodeId)! } : {}),
            },
          },
          {
            // Under a command, the command cancels the step at its bound;
            // the host's own limit is only a backstop.
            timeoutMs: owner ? owner.remainingMs() + BACKSTOP_MS : timeoutMs,
            // slurmstepd's own environment is slurmd's (plus its node name),
            // not the launcher's: the launch environment is the job's (S_JOB_ENV).
            env: { ...stepdEnv(daemon, node.name, stack.slurmVersion, options.mpi), ...(jcJob?.env() ?? {}) },
            label: `node ${node.nodeId} (${node.name})`,
            ...(feeds.has(node.nodeId) ? { stdin: feeds.get(node.nodeId)! } : {}),
            onEvent: onEvent
              ? (e: HostEvent) => {
                  events.add(e);
                  onEvent(node, e);
                }
              : (e: HostEvent) => events.add(e),
            // Its process, when the command started it ahead (prestartStepHosts).
            spare: owner?.spare?.(stepHostKey(jobId, stepId, node.nodeId)),
          },
        );
        owner?.trackStepHost(handle);
        return handle.finished.then((run) => ({ node, run, events }));
      }),
    );
    for (const { node, run, events } of runs) {
      if (events.fatal) throw new PlugstackError('HOST_FAILED', `plugstack-host refused the step: ${events.fatal.message}`);
      addNode(result, node, run, events);
    }
  } finally {
    feeds.close();
    if (jcJob) {
      // The step's own part (24.11's send_stepd, an inner srun's create);
      // a job of its own has its start and end around it.
      const mine = jcJob.takeStepPart();
      if (ownJob) await ownJob.finish();
      const parts = ownJob ? [ownJob.start, mine, ownJob.end] : [mine];
      result.jobContainer!.calls = ownJob ? [...ownJob.start.calls, ...mine.calls, ...stepCalls, ...ownJob.end.calls] : [...mine.calls, ...stepCalls];
      for (const p of parts) {
        for (const l of p.log) result.log.push(l);
        for (const q of p.problems) result.problems.push(q as StepResult['problems'][number]);
      }
      // What no Slurm says: tasks of one node that joined, yet ended up in
      // different mount namespaces (one of them outside the job's).
      for (const node of layout) {
        const joins = stepCalls.filter((c) => c.node === node.nodeId && c.process === 'task' && c.hook === 'join' && c.rc === 0);
        const spaces = new Map<number, number[]>();
        for (const c of joins) spaces.set(c.mntNs, [...(spaces.get(c.mntNs) ?? []), c.task!]);
        if (spaces.size < 2) continue;
        const [, most] = [...spaces.entries()].sort((a, b) => b[1].length - a[1].length)[0]!;
        const others = joins.filter((c) => !most.includes(c.task!));
        result.problems.push({
          severity: 'error',
          context: 'remote',
          code: 'JOB_CONTAINER_TASK_OUTSIDE',
          message: `task(s) ${others.map((c) => c.task).join(', ')} ran in another mount namespace than the node's other tasks after joining the job's container`,
          node: node.nodeId,
        } as StepResult['problems'][number]);
      }
    }
  }
  finishStep(result);
  // Ranks that never found their peers: the singleton trap.
  if (options.mpi !== undefined) result.problems.push(...singletonProblems(result, options.mpi));
  return result;
}

/**
 * The slots block and cyclic fill (step/distribution.ts): each node's CPUs
 * over -c, where the launch names them per node (a job with its nodes
 * whole); none otherwise.
 */
function layoutSlots(cpusPerNode: StepOptions['cpusPerNode'], cpusPerTask: number | undefined, nodes: number): number[] | undefined {
  if (!Array.isArray(cpusPerNode) || cpusPerNode.length !== nodes) return undefined;
  return slotsOf(cpusPerNode, cpusPerTask);
}
