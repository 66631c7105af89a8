/**
 * srun (spank-facts §2d; real-slurm-22.05.md §2): the local context in a
 * client process, then the step on the remote side, then srun's exit
 * callbacks. An srun run inside a job (SLURM_JOB_ID of a plugstack job in
 * its environment, as in a batch script or under salloc) joins that job as
 * its next step.
 *
 * Signals are srun's: before the step starts a signal ends srun as it would
 * end the process; once it runs, a first SIGINT prints the tasks' states, a
 * second within a second forwards it and forces the job's termination,
 * SIGTERM, SIGHUP and SIGQUIT force it at once (srun_job.c). The job's time
 * limit (-t) cancels the step as slurmctld would. A slurmstepd that dies
 * leaves the real srun waiting (ten minutes for a launch, forever for a
 * running step): plugstack goes on at once and says so.
 */
import fs from 'node:fs';
import os from 'node:os';
import { hostStringToBytes } from '../host/bytes.js';
import { launchStep, prestartStepHosts, type StackRef } from '../step/launch.js';
import { compressHostlist, jobNodeCpus, jobSlots, taskCounts } from '../step/layout.js';
import { distributionOption, nodeLevel, SLURM_DIST_ARBITRARY, stepTaskDist, taskLayout } from '../step/distribution.js';
import type { StepResult } from '../step/types.js';
import { appendsOutput, readBuiltins, type Builtins } from './builtins.js';
import { excludeFromJob, stepNodes, tooFewNodes } from './step-nodes.js';
import { runSrunScript, srunScript, srunScriptContext } from './srun-scripts.js';
import { deadlineAt, deadlineIn, type Deadline } from '../cluster/deadline.js';
import { native } from '../native/binding.js';
import { SrunOutput } from './srun-output.js';
import { nodeOutputFiles, opensFiles, srunOutput } from '../step/task-output.js';
import type { CommandStack } from './client.js';
import type { CommandSignal } from '../cluster/control.js';
import { withCommand, type CommandRun } from './command-run.js';
import { signalText, taskRanges } from './console.js';
import { allocationEnv, commandProcessEnv, envRecord, overlayEnv } from '../cluster/job-env.js';
import { commandRlimitEnv } from '../cluster/limits.js';
import { srunExportEnv } from '../cluster/export-env.js';
import { commandEnvRules, entriesOf, hydraBootstrapOff, SLURM_AUTH_NOBODY, slurmdEnv, srunStepEnv, taskShapeEnv } from '../cluster/command-env.js';
import { launchEnvInOrder, srunEnvInOrder } from '../cluster/env-order.js';
import { checkPty } from './srun-pty.js';
import { arrayIdsIn } from '../cluster/job-array.js';
import { drainedBy, jobEnd, prestartEpilogs, prestartPrologs, runEpilogs, runPrologs, type JobScriptContext } from '../cluster/job-scripts.js';
import { findJob, nextStepId, stepResultFile, type Job } from '../cluster/jobs.js';
import { requestedNodes, requestJob, willRun } from './allocate.js';
import { jobRecordOf } from '../cluster/job-info.js';
import { MAX_TASKS_PER_NODE } from '../cluster/names.js';
import { releaseRules } from '../releases.generated.js';
import { mpiConfPath } from '../mpi/conf.js';
import { serializeResult } from './serialize.js';
import { openInputFile, srunInput, type TaskInputPlan } from '../step/task-input.js';
import { jobContainerSettings } from '../job-container/settings.js';
import { commandJobContainer, inJobNamespace } from '../job-container/command-job.js';
import { taskScripts } from '../step/task-scripts.js';
import type { CommandResult, JobRecord, WordCommandOptions } from './types.js';

/** Slurm's texts for the launch errors a node's slurmstepd can answer here. */
const LAUNCH_ERRORS: Record<number, string> = {
  [-1]: 'Unspecified error', // SLURM_ERROR: the mpi plugin's slurmstepd_prefork failed
  1009: 'Invalid MPI plugin name', // SLURM_MPI_PLUGIN_NAME_INVALID: slurmstepd could not load or set up its mpi plugin
  1011: 'Plugin initialization failed', // SLURM_PLUGIN_NAME_INVALID: init or init_post_opt failed
  4020: 'Slurmd could not execve job', // ESLURMD_EXECVE_FAILED: user_init, a fork or task_post_fork failed
  4021: 'Slurmd could not connect IO', // ESLURMD_IO_ERROR: a task's --input file did not open
};

/** SLURM_MPI_PLUGIN_PRELAUNCH_SETUP_FAILED: libslurm's errno when client_prelaunch returned NULL. */
const SLURM_MPI_PLUGIN_PRELAUNCH_SETUP_FAILED = 1010;

/** fini_srun's reading of a launch errno as a wait status: WEXITSTATUS, or 128 + the "signal". */
function launchFailureExit(rc: number): number {
  return (rc & 0x7f) === 0 ? (rc >> 8) & 0xff : 128 + (rc & 0x7f);
}

/** KillWait (30 s by default) + STEP_ABORT_TIME (2 s): what srun says it waits after an abort. */
const ABORT_WAIT_SECONDS = 32;

const SIG = os.constants.signals;

export type { CommandStack } from './client.js';

/** The job an srun joins: --jobid, or SLURM_JOB_ID of its environment. */
function joinedJob(jobIdOption: number | undefined, env: Record<string, string>): Job | undefined {
  const id = jobIdOption ?? (env.SLURM_JOB_ID ? Number(env.SLURM_JOB_ID) : undefined);
  return id === undefined || !Number.isInteger(id) ? undefined : findJob(id);
}

/**
 * srun's exit status from the task statuses: the highest exit code, unless
 * a task was killed, then the highest signal (launch.c); WEXITSTATUS or
 * 128 + signal of that (fini_srun).
 */
export function srunExitCode(step: StepResult): { raw: number; exitCode: number } {
  let raw = 0;
  for (const t of step.tasks) {
    if (t.status === null) continue;
    const sig = t.status & 0x7f;
    const rawSig = raw & 0x7f;
    if (sig === 0) {
      if (rawSig === 0 && ((t.status >> 8) & 0xff) > ((raw >> 8) & 0xff)) raw = t.status;
    } else if (rawSig === 0 || sig > rawSig) {
      raw = t.status;
    }
  }
  // A launch that failed on a node does not change it (seen on a real 22.05).
  const exitCode = (raw & 0x7f) === 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f);
  return { raw, exitCode };
}

/** What srun knows of each task while the step runs, for its status lines. */
class TaskStates {
  private readonly started = new Set<number>();
  private readonly exited = new Map<number, number>();

  constructor(private readonly total: number) {}

  launched(gtids: number[]): void {
    for (const t of gtids) this.started.add(t);
  }

  exit(gtid: number, status: number): void {
    this.exited.set(gtid, status);
  }

  /** task_state_print: running, exited abnormally, exited, unknown. */
  lines(stepName: string): string[] {
    const groups: [string, number[]][] = [
      ['running', []],
      ['exited abnormally', []],
      ['exited', []],
      ['unknown', []],
    ];
    for (let t = 0; t < this.total; t++) {
      const status = this.exited.get(t);
      const group = status === undefined ? (this.started.has(t) ? 0 : 3) : status === 0 ? 2 : 1;
      groups[group]![1].push(t);
    }
    return groups
      .filter(([, ids]) => ids.length)
      .map(([what, ids]) => `${stepName} task${ids.length === 1 ? '' : 's'} ${taskRanges(ids)}: ${what}`);
  }
}

export function runSrun(stack: CommandStack, options: WordCommandOptions): Promise<CommandResult> {
  return withCommand(stack, 'srun', options, (run) => srun(stack, options, run));
}

async function srun(stack: CommandStack, options: WordCommandOptions, run: CommandRun): Promise<CommandResult> {
  const { env, cwd, console, client, control, result, finish: done } = run;

  // Until the step runs, a signal ends srun the way it ends the process.
  let fatalSignal: CommandSignal | undefined;
  const dieOf = (signal: CommandSignal) => {
    // SIGCONT only resumes srun: allocating, it is ignored
    // (_signal_while_allocating); before that, it waits for the signal
    // thread, whose message plugstack does not replay.
    if (signal === 'SIGCONT') return;
    fatalSignal ??= signal;
    control.killAll();
  };
  control.onSignal(dieOf);
  control.onTimeout(() => {
    console.log('error', `srun is still running after ${run.timeoutMs} ms (timeoutMs): ending it`, 'plugstack');
    control.killAll('timeout');
  });
  const signalled = (): CommandResult | undefined => {
    if (!fatalSignal) return undefined;
    result.exitCode = 128 + SIG[fatalSignal];
    return result;
  };

  const ready = await client.ready;
  if (signalled()) return result;
  if (ready.t === 'commandExit') return done(ready.status);

  const b = readBuiltins(ready.builtins, cwd, envRecord(ready.environ), ready.requiredNodes);
  console.setVerbosity(b.verbose, b.quiet);
  // _set_rlimit_env, after init_post_opt and before the allocation: the
  // limits the tasks will get; a bad --propagate ends srun here.
  const rlimits = commandRlimitEnv(stack.slurmVersion, ready.limits, stack.slurmConf?.propagatedLimits, b.propagate);
  if ('bad' in rlimits) {
    console.log('error', `Bad rlimit name: ${rlimits.bad}`);
    console.log('error', `--propagate=${rlimits.value} is not valid.`);
    client.exit(ready.errorExit);
    return done(ready.errorExit);
  }
  const existing = joinedJob(b.jobId, env);
  // -m arbitrary: each task's host as the client read -w's list (inside a
  // job without one, the job's SLURM_ARBITRARY_NODELIST; none: an empty
  // list), and the distinct hosts in Slurm's order, the job's nodes in
  // turn (a new job has them all, as -w's hosts are always the job's).
  const listed = ready.arbitraryHosts && (!ready.arbitraryHosts.fromEnvironment || existing) ? ready.arbitraryHosts : undefined;
  const arbitrary = nodeLevel(b.distribution) === SLURM_DIST_ARBITRARY ? (listed ?? { hosts: [] as string[], nodes: [] as string[] }) : undefined;
  // (-N 0 refuses a new job; inside a job it is a step of one node.)
  let nodes = existing
    ? Math.max(b.nodes ?? (b.ntasks === undefined ? existing.nodes.length : 1), 1)
    : Math.max(requestedNodes(b, stack.slurmVersion), arbitrary?.nodes.length ?? 0);
  // Inside a job srun applies -x itself: the step's node count, the nodes
  // it names, the nodes it has left for the step.
  const request = existing && b.exclude !== undefined && !arbitrary ? excludeFromJob(existing.nodes, b, b.exclude, stack.slurmVersion) : undefined;
  if (request && 'errors' in request) {
    for (const line of request.errors) console.log('error', line);
    client.exit(ready.errorExit);
    return done(ready.errorExit);
  }
  if (request) nodes = request.count;
  // --test-only: slurmctld's answer and srun's end, before its exit
  // callbacks are armed (create_srun_job exits there).
  if (b.testOnly) {
    const status = willRun(stack.cluster, b, nodes, console);
    client.exit(status);
    return done(status);
  }
  const job = existing ?? requestJob(stack.cluster, 'srun', b, nodes, console, { argv: ready.positional, cwd, env }, slurmdEnv(stack.hostEnv, stack.slurmConf?.path ?? env.SLURM_CONF));
  if (!job) {
    client.exit(ready.errorExit);
    return done(ready.errorExit);
  }
  // (With -m arbitrary inside a job, srun holds the list against the job's first nodes itself, below.)
  const names = existing ? stepNodes(existing.nodes, nodes, request ? request.required : arbitrary ? undefined : b.required, request?.excluded) : job.nodes;
  // _set_ntasks: -n (or SLURM_NTASKS, which a job's environment carries),
  // else --ntasks-per-node times the step's nodes, else with -c as many
  // tasks as CPUs hold (the job's, or under 24.11 slurmctld's count on the
  // step's nodes), else one a node; never fewer than one a node.
  const cpuNodes = releaseRules(stack.slurmVersion).client.cpuTasksBy === 'slurmctld' ? (names ?? []) : job.nodes;
  const ntasks = b.ntasks ?? implicitTasks(cpuNodes, existing ? stepHosts(existing.nodes, b, request?.hosts) : job.nodes.length, b, job);
  const arbitraryMismatch = arbitrary !== undefined && arbitrary.hosts.length !== ntasks;
  // Inside a job srun holds the step against the job itself
  // (job_step_create_allocation, _job_create_structure) before asking
  // slurmctld for it: the count against the -m arbitrary list, then the
  // node count against the nodes it has.
  const stepRefusal = !existing
    ? []
    : arbitrary && (arbitraryMismatch || arbitrary.nodes.length > (names?.length ?? 0))
      ? [`You asked for ${ntasks} tasks but hostlist specified ${arbitrary.hosts.length} nodes`]
      : tooFewNodes(request?.hosts ?? new Set(existing.nodes).size, b);
  // Then slurmctld's answers: a -x naming what is no node, a step asking
  // for nodes the job does not have (or has too few of, -x taken out).
  if (!stepRefusal.length && request && b.exclude !== undefined && !stack.cluster.namesNodes(b.exclude)) stepRefusal.push(`Unable to create step for job ${job.id}: Invalid node name specified`);
  if (!stepRefusal.length && !names) stepRefusal.push(`Unable to create step for job ${job.id}: Requested node configuration is not available`);
  // And, without -O, a step whose tasks want more CPUs than its nodes have in the job.
  if (!stepRefusal.length && existing && names && !b.overcommit && ntasks * (b.cpusPerTask ?? 1) > (jobCpusOn(job, names) ?? Infinity))
    stepRefusal.push(`Unable to create step for job ${job.id}: More processors requested than permitted`);
  // A node of the step whose CPUs in the job hold no task of -c CPUs gets none: no such step.
  // The step's slots on its nodes (block and cyclic fill them), where the job has its nodes whole.
  const slots = names ? jobSlots(job, names, b.cpusPerTask) : undefined;
  if (!stepRefusal.length && existing && names && taskCounts(ntasks, names.length, slots).includes(0))
    stepRefusal.push(`Unable to create step for job ${job.id}: Requested node configuration is not available`);
  if (stepRefusal.length || !names) {
    for (const line of stepRefusal) console.log('error', line);
    client.exit(ready.errorExit);
    return done(ready.errorExit);
  }
  // The tasks' hosts as the step's node names: a host that is one of them
  // is itself (the list's hosts are the job's required nodes); otherwise the
  // list's distinct hosts name the step's nodes in turn.
  const stepNames = new Set(names);
  const taskHosts = arbitrary?.hosts.length ? arbitrary.hosts.map((h) => (stepNames.has(h) ? h : names[arbitrary.nodes.indexOf(h)]!)) : undefined;
  if (!existing) run.own(job);
  const stepId = nextStepId(job);
  const stepName = `StepId=${job.id}.${stepId}`;
  const uid = process.getuid!();
  const gid = process.getgid!();
  // JobContainerType: the job's container, its own (begun below) or, inside
  // a job, the one its owner made.
  const jc = commandJobContainer(stack, job, { uid, gid, cwd: b.chdir ?? cwd, env }, !!existing);
  if (jc && !existing) run.jobContainer = jc;

  const scriptContext: JobScriptContext = {
    uid,
    gid,
    workDir: b.chdir ?? cwd,
    jobControlEnv: client.record.jobControlEnv,
    owner: control,
  };
  // The end of the job srun made (epilogs, the job's record) or, inside
  // someone else's job, the step's result left for the job's owner.
  const endJob = async (state: JobRecord['state'], exitCode: number, reason?: string): Promise<CommandResult> => {
    if (existing) {
      fs.writeFileSync(stepResultFile(job, stepId), serializeResult(result));
      return result;
    }
    // srun has ended (fini_srun joined its signal thread; a SIGCONT that came
    // in with the step's end was taken before this): the rest is slurmd's.
    run.jobEnded(job.id);
    // The job's extern steps end (stepd_delete), then its epilogs (past
    // plugstack's own bound nothing new starts: none), then 22.05's delete.
    await jc?.stopExtern();
    if (!control.timedOut) result.jobScripts.push(...(await runEpilogs(inJobNamespace(stack, jc), job, jobEnd(exitCode, result.steps, state), scriptContext)));
    await jc?.finish();
    result.job = { jobId: job.id, state, exitCode, nodes: names, drained: drainedBy(result.jobScripts), ...(reason ? { reason } : {}) };
    return result;
  };

  // PrologFlags=Contain (which implies Alloc): the job's nodes are ready
  // once slurmd has made the container (22.05's create), run the prolog and
  // started the extern step on each; srun waits for that before anything of
  // its step. An extern step that fails (stepd_create, SPANK's init) leaves
  // the nodes not ready: srun gives up without its exit callbacks, as the
  // real 22.05 and 24.11 do.
  let allocPrologs: Awaited<ReturnType<typeof runPrologs>> | undefined;
  if (jc && !existing && jc.contains) {
    await jc.begin();
    await jc.firstRun(names);
    allocPrologs = await runPrologs(inJobNamespace(stack, jc), job, names, scriptContext);
    if (allocPrologs.every((p) => p.ok)) await jc.startExtern();
    if (jc.externFailed.length) {
      console.log('error', `Nodes ${compressHostlist(names)} are still not ready`);
      console.log('error', 'Something is wrong with the boot of the nodes.');
      result.jobScripts.push(...allocPrologs);
      client.exit(ready.errorExit);
      await done(ready.errorExit);
      return endJob('FAILED', 1 << 8, 'launch failed requeued held');
    }
  }
  // slurmctld refuses a step with more tasks per node than MaxTasksPerNode.
  // srun ends at once (exit(error_exit)): its exit callbacks are armed only
  // once its step exists (the shepherd comes after the step's creation).
  // A new job's step laid out from a list that names another number of
  // tasks: slurmctld refuses it (SLURM_ERROR).
  const stepRefused =
    ntasks > names.length * MAX_TASKS_PER_NODE ? 'Task count specification invalid' : arbitraryMismatch ? 'Unspecified error' : undefined;
  if (stepRefused) {
    console.log('error', `Unable to create step for job ${job.id}: ${stepRefused}`);
    client.exit(ready.errorExit);
    await done(ready.errorExit);
    return endJob('FAILED', 1 << 8);
  }
  client.allocated(!existing);

  // The job's prolog helpers start their processes now, while srun's own
  // calls go on; they get their requests only when srun launches
  // (spare-host.ts).
  if (!jc) await prestartPrologs(stack, job, names, scriptContext, control);

  // The step exists: cli_filter post_submit, before local_user_init.
  await client.postSubmit(job.id, stepId);
  if (signalled()) return endJob('CANCELLED', 0);

  // --pty: srun asks its terminal's size before setting up the step's
  // environment. 24.11's fatal() for a descriptor that is not a number
  // exits 1 (srun's exit callbacks run at that exit); the job srun made is
  // cancelled (a real 24.11: CANCELLED, exit code 0, its epilog run), the
  // step it made inside a job is never launched.
  if (b.pty !== undefined && checkPty(stack.slurmVersion, b.pty, options.terminal === true, console) === 'fatal') {
    client.exit(1);
    await done(1);
    return endJob('CANCELLED', 0);
  }

  // The job's record, for slurm_load_job in srun and in the step.
  const record = jobRecordOf(job, stack.slurmVersion, { uid, gid, argv: ready.positional, cwd: b.chdir ?? cwd });
  // What srun writes into its own environment before local_user_init: the
  // allocation's variables (when srun made it), its own flags, the step's
  // and the user's; a plugin sees them with getenv and what it sets there
  // goes to the tasks.
  const current = envRecord(ready.environ);
  let ownEnv: Record<string, string> = {};
  if (!existing) {
    const perNode = taskCounts(ntasks, names.length, slots);
    // srun's own environment has no SLURM_JOB_NODELIST (the launch adds it),
    // and under 22.05 no memory of the job (_set_env_vars).
    const { SLURM_JOB_NODELIST: _, SLURM_MEM_PER_NODE: perNodeMem, SLURM_MEM_PER_CPU: perCpuMem, ...allocation } = allocationEnv({ job, jobName: b.jobName ?? ready.positional[0]!.split('/').pop()!, submitDir: cwd, tasksPerNode: perNode });
    const memory = commandEnvRules(stack.slurmVersion).srunJobMemory ? { ...(perNodeMem ? { SLURM_MEM_PER_NODE: perNodeMem } : {}), ...(perCpuMem ? { SLURM_MEM_PER_CPU: perCpuMem } : {}) } : {};
    ownEnv = { ...allocation, ...memory };
  }
  ownEnv = {
    ...ownEnv,
    ...commandProcessEnv('srun', current, { slurmVersion: stack.slurmVersion, clusterName: job.clusterName, ...(stack.slurmConf ? { controller: stack.slurmConf.controller } : {}), overcommit: b.overcommit, verbose: b.verbose, quiet: b.quiet, rlimits: rlimits.env }),
    ...srunStepEnv({ slurmVersion: stack.slurmVersion, stepId, ntasks, uid, gid, current, hydraBootstrapOff: hydraBootstrapOff(stack.slurmConf), ...(existing ? { inside: { nodes: names.length, memZero: b.memZero } } : b.memory ? { withMemory: { nodes: names.length } } : {}) }),
    // setup_env: the step's name inside a job (-J, else the job's, else the
    // program's), and -l.
    ...(existing ? { SLURM_JOB_NAME: b.jobName ?? current.SLURM_JOB_NAME ?? ready.positional[0]!.split('/').pop()! } : {}),
    ...(b.label ? { SLURM_LABELIO: '1' } : {}),
    ...taskShapeEnv(stack.slurmVersion, b, current),
  };
  // In the order srun writes them (setenv appends a new name at the end).
  ownEnv = srunEnvInOrder(ownEnv, stack.slurmVersion, Boolean(existing));
  // pre_launch_srun_job: srun's own prolog, before local_user_init.
  const srunProlog = srunScript(b.prolog, stack.slurmConf?.keys.SrunProlog);
  if (srunProlog) {
    ownEnv = { ...ownEnv, ...srunScriptContext('prolog') };
    await runSrunScript('prolog', srunProlog, ready.positional, envRecord(overlayEnv(ready.environ, ownEnv)), cwd, console, control);
  }
  // 24.11 hands local_user_init the option's ids, reset to SLURM_AUTH_NOBODY.
  const nobody = commandEnvRules(stack.slurmVersion).localUserInitNobody;
  const lui = await client.localUserInit(
    { uid: nobody ? SLURM_AUTH_NOBODY : uid, gid: nobody ? SLURM_AUTH_NOBODY : gid, jobId: job.id, stepId, nodes: names.length, tasks: ntasks, argv: ready.positional },
    record,
    entriesOf(ownEnv),
  );
  if (signalled()) return endJob('CANCELLED', 0);
  if (lui.failed) {
    await done(lui.status);
    return endJob(releaseRules(stack.slurmVersion).client.userInitFailedJobState as 'FAILED' | 'COMPLETED', 1);
  }

  // launch_common_set_stdio_fds: --input (the last given, SLURM_STDINMODE
  // included); a file srun sends itself is opened now, and one that does
  // not open ends srun (exit(error_exit)).
  const inputOption = ready.builtins.filter((o) => o.name === 'input').pop()?.value ?? undefined;
  const inputPlan: TaskInputPlan = srunInput(inputOption, ntasks, { jobId: job.id, stepId, jobName: envRecord(lui.environ ?? ready.environ).SLURM_JOB_NAME });
  let taskInput: string | Buffer | NodeJS.ReadableStream | undefined = options.stdin;
  let openedInput: fs.ReadStream | undefined;
  if (inputPlan.kind === 'all' && inputPlan.file !== undefined) {
    const opened = openInputFile(inputPlan.file, cwd);
    if (typeof opened === 'string') {
      console.log('error', `Could not open stdin file: ${opened}`);
      client.exit(ready.errorExit);
      await done(ready.errorExit);
      return endJob('FAILED', 1 << 8);
    }
    taskInput = openedInput = opened;
  }
  // Then the output's and the error's (-o, -e; the error follows the output
  // without -e): a file srun writes itself is opened now, one each task
  // writes is opened by its node's slurmstepd.
  // -m: which node gets which tasks (the same layout the launch makes).
  const stepLayout = taskLayout(ntasks, names, b.distribution, taskHosts, slots);
  const stepDistributionOption = distributionOption(b.distribution) !== undefined ? { distribution: distributionOption(b.distribution)! } : {};
  const srunEnviron = envRecord(lui.environ ?? ready.environ);
  const outputPlan = srunOutput(b.output, b.error, ntasks, { jobId: job.id, stepId, jobName: srunEnviron.SLURM_JOB_NAME, ...arrayIdsIn(srunEnviron) });
  const outputAppend = appendsOutput(b, stack.slurmConf);
  // The job's user as launch.ts names it for %u (the step request's files).
  const userName = native().userByUid(uid)?.name ?? String(uid);
  const taskOutput = new SrunOutput(
    outputPlan,
    {
      label: b.label,
      ntasks,
      cwd,
      // The names the step request gives each node's slurmstepd (launch.ts: the job's user, the tasks' directory).
      nodes: stepLayout.map((node) => ({ gtids: node.gtids, files: nodeOutputFiles(outputPlan, node, { user: userName, cwd: b.chdir ?? cwd }) })),
      append: outputAppend,
      makesParents: releaseRules(stack.slurmVersion).client.outputMakesParents,
    },
    console,
  );
  run.atEnd(() => taskOutput.end());
  const notOpened = taskOutput.open();
  if (notOpened) {
    // The input file srun opened goes with it.
    openedInput?.destroy();
    console.log('error', notOpened);
    client.exit(ready.errorExit);
    await done(ready.errorExit);
    return endJob('FAILED', 1 << 8);
  }

  const mpiType = ready.mpi ? ready.mpi.type : undefined;
  const stepStack: StackRef = {
    conf: stack.conf,
    slurmVersion: stack.slurmVersion,
    pluginDirs: stack.pluginDirs,
    hostEnv: stack.hostEnv,
    clusterName: job.clusterName,
    ...(stack.slurmConf ? { controller: stack.slurmConf.controller } : {}),
    // JobContainerType: the step runs in its job's container.
    ...(jc ? { jobContainer: jobContainerSettings(stack.slurmConf)!, jobContainerJob: jc } : {}),
    // slurmstepd starts from slurmd's environment, never srun's.
    ...(job.slurmdEnv ? { daemonEnv: job.slurmdEnv } : {}),
    // slurmd reads mpi.conf beside its slurm.conf.
    ...(mpiConfPath(stack.slurmConf?.path) ? { mpiConf: mpiConfPath(stack.slurmConf?.path)! } : {}),
    // slurm.conf's TaskProlog/TaskEpilog.
    ...(taskScripts(stack.slurmConf) ? { taskScripts: taskScripts(stack.slurmConf)! } : {}),
    // PropagateResourceLimits[Except]: which of srun's limits its tasks get.
    ...(stack.slurmConf ? { propagatedLimits: stack.slurmConf.propagatedLimits } : {}),
  };
  // slurm_step_launch: the mpi plugin's client_prelaunch, on srun's side,
  // before any node hears of the step; what it sets goes to every task.
  const prelaunch = await client.mpiPrelaunch({
    jobId: job.id,
    stepId,
    ntasks,
    nodeList: compressHostlist(names),
    layout: stepLayout.map((n) => n.gtids),
    taskDist: stepTaskDist(b.distribution, taskHosts),
    ...(b.distribution?.planeSize ? { planeSize: b.distribution.planeSize } : {}),
  });
  if (signalled()) return endJob('CANCELLED', 0);
  if (!prelaunch.ok) {
    // The launch fails before it starts; the step is aborted, and client_fini
    // still runs (with the NULL state) when srun waits for it to finish.
    // A real srun then waits out KillWait + STEP_ABORT_TIME for a step that
    // never launched, and gives up.
    console.log('error', 'Application launch failed: MPI plugin\'s pre-launch setup failed');
    console.log('info', `Job step aborted: Waiting up to ${ABORT_WAIT_SECONDS} seconds for job step to finish.`);
    console.log('error', 'Timed out waiting for job step to complete');
    console.log('error', `the real srun spends those ${ABORT_WAIT_SECONDS} s waiting; plugstack goes on at once`, 'plugstack');
    await client.mpiFini();
    const code = launchFailureExit(SLURM_MPI_PLUGIN_PRELAUNCH_SETUP_FAILED);
    client.exit(code);
    await done(code);
    return endJob('FAILED', SLURM_MPI_PLUGIN_PRELAUNCH_SETUP_FAILED);
  }

  // slurm_step_launch starts the step's IO before it sends the launch.
  client.launching();

  // The job's slurmds have started (restore), and 22.05's slurmd creates
  // the job's container on a node at its first launch there, before the
  // prolog (req.c).
  if (jc && !existing) await jc.begin();
  await jc?.firstRun(names);
  // slurmd runs the job prolog on each node before the job's first step
  // there; where it fails, the launch fails and the node is drained.
  // The step's hosts start their processes while the prolog runs; their
  // requests go once it has ended (spare-host.ts).
  const prestartStep = () =>
    prestartStepHosts(
      stepStack,
      { nodeNames: names, ntasks, jobId: job.id, stepId, mpi: mpiType, input: inputPlan, ...(taskInput !== undefined ? { stdin: taskInput } : {}), ...stepDistributionOption, ...(taskHosts ? { taskHosts } : {}) },
      control,
    );
  const prologs = allocPrologs ?? (await runPrologs(inJobNamespace(stack, jc), job, names, scriptContext, prestartStep));
  result.jobScripts.push(...prologs);
  if (signalled()) return endJob('CANCELLED', 0);
  const failedPrologs = prologs.filter((p) => !p.ok);
  // PrologFlags=Contain: the extern step on every node, once the prolog ran.
  if (jc && !existing && !failedPrologs.length) await jc.startExtern();
  if (failedPrologs.length) {
    // What a real srun printed: the launch error per node, then the
    // launch's error (22.05: EAGAIN; 24.11: ESLURMD_PROLOG_FAILED), which
    // becomes srun's global rc; fini_srun reads it as a wait status
    // ("signal" 11: exit status 139; 4022: 182).
    const rules = releaseRules(stack.slurmVersion).client;
    for (const p of failedPrologs)
      console.log('error', `Task launch for ${stepName} failed on node ${p.node}: Job prolog failed`);
    console.log('error', `Application launch failed: ${rules.prologFailedLaunchText}`);
    console.log('info', 'Job step aborted');
    const rc = rules.prologFailedLaunch;
    const code = launchFailureExit(rc);
    await client.mpiFini();
    client.exit(code);
    await done(code);
    return endJob('FAILED', rc, 'Prolog failure');
  }

  // srun's own environment after local_user_init (the option variables, the
  // job's, and whatever a plugin set there) is what the step is launched with.
  // --export, else SRUN_EXPORT_ENV, else SLURM_EXPORT_ENV (the client reads
  // them as srun does; an sbatch --export other than ALL leaves the latter in
  // the job for its sruns).
  const exportOption = b.export;
  let launchEnv = srunExportEnv(launchEnvInOrder(lui.environ ?? overlayEnv(ready.environ, ownEnv), stack.slurmVersion, hydraBootstrapOff(stack.slurmConf)), exportOption, stack.slurmVersion);
  if (b.label) launchEnv = overlayEnv(launchEnv, { SLURM_LABELIO: '1' });
  // env_array_merge(&env, mpi_env): what client_prelaunch set, last.
  launchEnv = overlayEnv(launchEnv, envRecord(prelaunch.env));

  // From here on srun's signal thread and the job's time limit apply.
  const states = new TaskStates(ntasks);
  let cancelled = false; // the job state is CANCELLED: killed tasks are no longer errors
  let aborted = false;
  let timedOut = false;
  let lastInterrupt = 0;
  const abort = () => {
    if (aborted) return;
    aborted = true;
    control.signalStep(SIG.SIGKILL, 'cancel');
    console.log('info', `Job step aborted: Waiting up to ${ABORT_WAIT_SECONDS} seconds for job step to finish.`);
  };
  const forceTermination = () => {
    console.log('info', 'forcing job termination');
    cancelled = true;
    abort();
  };
  // srun's signal thread takes signals from the launch to fini_srun, which
  // ends it after the step: a SIGCONT is said even once the step is over
  // (Ctrl-Z, the tasks end meanwhile, then fg), until srun finishes; the
  // others find no step to signal then.
  let stepEnded = false;
  control.onSignal((signal) => {
    if (signal === 'SIGCONT') return console.log('info', 'got SIGCONT');
    if (stepEnded) return;
    if (!control.stepRunning) return dieOf(signal);
    if (signal === 'SIGINT') {
      const now = Date.now();
      if (now - lastInterrupt < 1000) {
        console.log('info', `sending Ctrl-C to ${stepName}`);
        // The Ctrl-C goes as part of the cancellation: the step daemon logs
        // it before the tasks can die of the signal and the step end,
        // whatever the load (the SIGKILL that follows may find it gone).
        control.signalStep(SIG.SIGINT, 'cancel');
        forceTermination();
      } else {
        console.log('info', 'interrupt (one more within 1 sec to abort)');
        for (const line of states.lines(stepName)) console.log('info', line);
        lastInterrupt = now;
      }
      return;
    }
    // Any other signal of srun's set goes to the tasks as it is
    // (launch_g_fwd_signal): slurmstepd signals each task's process group.
    if (signal === 'SIGUSR1' || signal === 'SIGUSR2') return control.signalStep(SIG[signal]);
    // SIGALRM means something only once -W's alarm is set.
    if (signal === 'SIGALRM') return maxWaitTimer === undefined ? undefined : alarm();
    // SIGPIPE: the tasks are killed, without a word of srun's own (_handle_pipe).
    if (signal === 'SIGPIPE') return abort();
    if (signal === 'SIGQUIT') console.log('info', 'Quit');
    // SIGTERM, SIGHUP: SIGKILL to the tasks, the job state unchanged.
    console.log('info', 'forcing job termination');
    abort();
  });
  control.onTimeout(() => {
    // plugstack's own bound: the job is cancelled, as by scancel.
    console.log('error', `srun is still running after ${run.timeoutMs} ms (timeoutMs): cancelling job ${job.id}`, 'plugstack');
    cancelled = true;
    if (control.stepRunning) {
      abort();
      control.killHung();
    } else control.killAll('timeout');
  });
  const limit = job.endTime === undefined ? undefined : deadlineAt(job.endTime, () => {
    timedOut = true;
    control.timeLimit();
  });
  // What srun does as task exits come in (launch.c _task_finish): with
  // -K (or slurm.conf's KillOnBadExit) the first task that ends badly has
  // the step terminated (SIG_TERM_KILL: SIGTERM, SIGKILL after KillWait);
  // with -W N the first task's end starts an alarm, which reports the
  // tasks' states and kills the step (srun_job.c, SIGALRM).
  const killOnBadExit = b.killOnBadExit ?? stack.slurmConf?.killOnBadExit ?? false;
  const { stepSignalPrefix } = releaseRules(stack.slurmVersion).client;
  let badExitSeen = false;
  let maxWaitTimer: Deadline | undefined;
  const taskEnded = (status: number) => {
    if (status !== 0 && killOnBadExit && !badExitSeen) {
      badExitSeen = true;
      console.log('info', `${stepSignalPrefix}Terminating ${stepName}`);
      control.terminateStep();
    }
    if (b.maxWait !== undefined && maxWaitTimer === undefined) {
      console.log('verbose', `First task exited. Terminating job in ${b.maxWait}s`);
      maxWaitTimer = deadlineIn(b.maxWait * 1000, alarm);
    }
  };
  // The alarm -W set, or a SIGALRM once it is set (srun_max_timer).
  const alarm = () => {
    maxWaitTimer?.clear();
    if (!control.stepRunning) return;
    console.log('info', `First task exited ${b.maxWait}s ago`);
    for (const line of states.lines(stepName)) console.log('info', line);
    console.log('info', `${stepSignalPrefix}Terminating ${stepName}`);
    abort();
  };

  const io = new Set<number>();
  let step: StepResult;
  try {
    step = await launchStep(
      stepStack,
      {
        argv: ready.positional,
        env: launchEnv,
        launcherEnv: true,
        // The job's nodes and submission directory: srun's own (_set_submit_dir_env, where it made the job), else the job's it runs in.
        jobNodes: job.nodes,
        submitDir: envRecord(launchEnv).SLURM_SUBMIT_DIR ?? cwd,
        nodes: names.length,
        ntasks,
        nodeNames: names,
        ...stepDistributionOption,
        ...(taskHosts ? { taskHosts } : {}),
        jobId: job.id,
        stepId,
        job: record,
        cwd: b.chdir ?? cwd,
        spankOptions: ready.options.map((o) => ({ plugin: o.plugin, name: o.name, value: o.value })),
        // srun set the option variables in its own environment; --export decided which went on.
        ...(lui.environ ? { optionEnv: false } : {}),
        timeoutMs: run.timeoutMs,
        ...(b.cpusPerTask !== undefined ? { cpusPerTask: b.cpusPerTask } : {}),
        // The job's CPUs on each step node, where it has whole nodes.
        ...(job.cpusPerNode ? { cpusPerNode: names.map((n) => jobCpusOn(job, [n])!) } : {}),
        ...(b.taskProlog !== undefined ? { taskProlog: b.taskProlog } : {}),
        ...(b.taskEpilog !== undefined ? { taskEpilog: b.taskEpilog } : {}),
        // -J, else SLURM_JOB_NAME: inside a job, the step keeps the job's name (its environment carries it).
        ...(b.jobName !== undefined ? { jobName: b.jobName } : {}),
        ...(mpiType !== undefined ? { mpi: mpiType } : {}),
        ...(options.pmiTrace ? { pmiTrace: true } : {}),
        // srun's standard input (or the file --input named) to the tasks --input picks.
        input: inputPlan,
        ...(taskInput !== undefined ? { stdin: taskInput } : {}),
        // The files each node's slurmstepd opens for its tasks' output.
        ...(opensFiles(outputPlan) ? { output: outputPlan, ...(outputAppend ? { outputAppend } : {}), ...(b.label ? { outputLabelled: true } : {}) } : {}),
        onEvent: (node, e) => {
          if (e.t === 'io') io.add(node.nodeId);
          else if (e.t === 'io_end') io.delete(node.nodeId);
          else if (e.t === 'launch' && e.rc === 0) states.launched(node.gtids);
          else if (e.t === 'exit') {
            states.exit(node.gtids[e.task]!, e.status);
            taskEnded(e.status);
          }
          else if (e.t === 'output') taskOutput.write(node.gtids[e.task]!, e.stream, hostStringToBytes(e.data));
          else if (e.t === 'log' && io.has(node.nodeId)) {
            console.stepdLog(e.level, e.msg, e.bare === true);
            // srun hears of the time limit as its step is cancelled.
            if (timedOut && /CANCELLED AT .* DUE TO TIME LIMIT/.test(e.msg) && !aborted) {
              aborted = true;
              console.log('info', `Job step aborted: Waiting up to ${ABORT_WAIT_SECONDS} seconds for job step to finish.`);
            }
          }
        },
      },
      control,
    );
  } finally {
    stepEnded = true;
    limit?.clear();
    maxWaitTimer?.clear();
    taskOutput.end();
  }
  result.steps.push(step);

  // srun's lines about tasks that did not launch or did not end well; a
  // 24.11 slurmstepd reports task 0's exit before answering the launch.
  const launchFailed = () => {
    for (const n of step.nodes) {
      if (n.launchRc !== 0 && n.failedAt !== 'slurmd') {
        for (const t of step.tasks.filter((x) => x.node === n.node))
          console.log('error', `task ${t.task} launch failed: ${LAUNCH_ERRORS[n.launchRc] ?? `Unknown error ${n.launchRc}`}`);
      }
    }
  };
  // slurmd could not start a node's slurmstepd (24.11: its child failed to
  // join the job's container): the launch fails on that node, as the real
  // 24.11 srun says it.
  const refused = step.nodes.filter((n) => n.failedAt === 'slurmd');
  for (const n of refused)
    console.log('error', `Task launch for ${stepName} failed on node ${n.name}: ${LAUNCH_ERRORS[n.launchRc] ?? `Unknown error ${n.launchRc}`}`);
  if (refused.length) {
    console.log('error', `Application launch failed: ${LAUNCH_ERRORS[refused[0]!.launchRc] ?? `Unknown error ${refused[0]!.launchRc}`}`);
    console.log('info', 'Job step aborted');
  }
  const exitsFirst = releaseRules(stack.slurmVersion).client.taskExitBeforeLaunchFailed;
  if (!exitsFirst) launchFailed();
  const groups = new Map<string, number[]>();
  for (const t of step.tasks) {
    if (t.status === null || t.status === 0) continue;
    const key = `${t.node}\u0000${t.status}`;
    groups.set(key, [...(groups.get(key) ?? []), t.task]);
  }
  for (const [key, tasks] of groups) {
    const [node, statusText] = key.split('\u0000');
    const status = Number(statusText);
    const host = step.nodes[Number(node)]!.name;
    const word = tasks.length > 1 ? 'tasks' : 'task';
    const bySignal = (status & 0x7f) !== 0;
    // A task that dumped core (WCOREDUMP, 0x80 of the raw status) says so, as srun's strsignal line does.
    const what = bySignal
      ? `${signalText(step.tasks.find((t) => t.status === status)!.signal!)}${status & 0x80 ? ' (core dumped)' : ''}`
      : `Exited with exit code ${(status >> 8) & 0xff}`;
    // Once the job is cancelled, killed tasks are only a verbose line.
    console.log(bySignal && cancelled ? 'verbose' : 'error', `${host}: ${word} ${taskRanges(tasks)}: ${what}`);
  }
  if (exitsFirst) launchFailed();

  // A task ended by SIGTERM or SIGKILL makes srun say so once all are done,
  // unless srun itself forced the termination.
  if (!aborted && step.tasks.some((t) => t.signal === 'SIGTERM' || t.signal === 'SIGKILL'))
    console.log('info', `Force Terminated ${stepName}`);

  // A slurmstepd that died: what srun would have said once it gave up. One
  // that died in its exit callbacks (or unloading) had sent every task's
  // exit already: srun is not waiting for it.
  const afterTasks = new Set(['slurm_spank_exit', 'fini()', 'dlclose']);
  const dead = step.nodes.filter((n) => n.failedAt === 'host' && !(n.diedIn !== undefined && afterTasks.has(n.diedIn)));
  if (dead.length && !aborted) {
    const notLaunched = dead.filter((n) => !n.launched);
    if (notLaunched.length) {
      // slurm_step_launch_wait_start gives up after 600 s.
      const started = step.nodes.filter((n) => n.launched).reduce((sum, n) => sum + step.tasks.filter((t) => t.node === n.node).length, 0);
      console.log('error', `timeout waiting for task launch, started ${started} of ${ntasks} tasks`);
      console.log('info', `${stepName} aborted before step completely launched.`);
      console.log('info', `Job step aborted: Waiting up to ${ABORT_WAIT_SECONDS} seconds for job step to finish.`);
      console.log('error', 'Timed out waiting for job step to complete');
      console.log('error', `slurmstepd died on ${notLaunched.map((n) => n.name).join(',')} before answering the launch: the real srun gives up after 10 minutes (and ${ABORT_WAIT_SECONDS} s), as printed above`, 'plugstack');
    } else {
      // The launched step never completes: srun waits until the job is
      // cancelled (scancel, Ctrl-C, the time limit); plugstack cancels it.
      cancelled = true;
      console.log('info', `Job step aborted: Waiting up to ${ABORT_WAIT_SECONDS} seconds for job step to finish.`);
      console.log('error', 'Timed out waiting for job step to complete');
      console.log('error', `slurmstepd died on ${dead.map((n) => n.name).join(',')} while its tasks ran: the real srun waits until the job is cancelled; plugstack cancelled it`, 'plugstack');
    }
  }

  const { raw, exitCode: tasksExit } = srunExitCode(step);

  // The step's I/O has ended: client_fini. A result other than 0 is srun's
  // exit status (the plugin knows best why its job ended); 24.11 folds it
  // into the launch's own result first, where a negative one is lost.
  const finiRc = await client.mpiFini();
  const mpiRc = finiRc < 0 && releaseRules(stack.slurmVersion).mpi.clientFiniNegativeDropped ? 0 : finiRc;
  // A launch that failed on a node: 24.11's srun ends with 1 at least.
  const launchFailedOnANode = step.nodes.some((n) => n.launchRc !== 0);
  const taskExit = launchFailedOnANode ? Math.max(tasksExit, releaseRules(stack.slurmVersion).client.launchFailedStatus) : tasksExit;
  // srun keeps it as an unsigned number: -1 is 255.
  const exitCode = refused.length ? launchFailureExit(refused[0]!.launchRc) : mpiRc !== 0 ? (mpiRc >>> 0) & 0xff : taskExit;
  // fini_srun: srun's own epilog, before its exit callbacks.
  const srunEpilog = srunScript(b.epilog, stack.slurmConf?.keys.SrunEpilog);
  if (srunEpilog) {
    const srunEnv = overlayEnv(lui.environ ?? overlayEnv(ready.environ, ownEnv), srunScriptContext('epilog'));
    await runSrunScript('epilog', srunEpilog, ready.positional, envRecord(srunEnv), cwd, console, control);
  }
  client.exit(exitCode);
  // The job's epilog helpers start their processes while srun ends; they
  // run once it has (spare-host.ts).
  if (!existing && !jc && !control.timedOut) await prestartEpilogs(stack, job, jobEnd(raw, result.steps), scriptContext, control);
  await done(exitCode);
  if (job.endTime !== undefined && Date.now() >= job.endTime) timedOut = true;
  const state: JobRecord['state'] = timedOut ? 'TIMEOUT' : cancelled ? 'CANCELLED' : raw === 0 ? 'COMPLETED' : 'FAILED';
  return endJob(state, raw);
}

/**
 * The node count srun gives a step inside a job without -n
 * (job_step_create_allocation's nnodes): the job's nodes, up to -N's
 * maximum (else its minimum: the job's SLURM_NNODES); with -x, what srun
 * had left.
 */
function stepHosts(jobNodes: readonly string[], b: Builtins, leftByExclude: number | undefined): number {
  if (leftByExclude !== undefined) return leftByExclude;
  const alloc = new Set(jobNodes).size;
  const max = b.maxNodes ?? (b.nodes || alloc);
  return Math.min(alloc, max);
}

/** The CPUs a job has on these of its nodes, or undefined where they follow its tasks (shape.ts). */
function jobCpusOn(job: Job, names: readonly string[]): number | undefined {
  if (!job.cpusPerNode) return undefined;
  return names.reduce((sum, name) => sum + jobNodeCpus(job, name)!, 0);
}

/**
 * srun's task count without -n (_set_ntasks) for a step of `nodes` nodes:
 * --ntasks-per-node times the nodes, else with -c as many tasks as the
 * CPUs of `cpuNodes` hold, else one a node; never fewer than one a node.
 */
function implicitTasks(cpuNodes: readonly string[], nodes: number, b: Builtins, job: Job): number {
  let tasks = 0;
  if (b.ntasksPerNode !== undefined) tasks = nodes * b.ntasksPerNode;
  else if (b.cpusPerTask !== undefined && job.cpusPerNode) tasks = (jobSlots(job, cpuNodes, b.cpusPerTask) ?? []).reduce((sum, n) => sum + n, 0);
  return Math.max(tasks, nodes);
}
