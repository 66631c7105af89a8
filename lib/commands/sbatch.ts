/**
 * sbatch (spank-facts §2d, §3.8): the allocator context in a client
 * process, the submission, sbatch's exit callbacks, then the batch job: its
 * script run by a batch step on the job's first node, with the sruns inside
 * it joining the job as steps 0, 1, ...
 *
 * Unlike a real cluster, where the job runs later, the job runs right after
 * submission and sbatch() resolves when it is done. With --wait (-W) sbatch
 * itself waits and exits with the job's exit code, as in Slurm.
 */
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { BatchOutput } from './batch-output.js';
import { batchFileName } from './batch-file-name.js';
import { hostStringToBytes } from '../host/bytes.js';
import { launchStep } from '../step/launch.js';
import type { StepResult } from '../step/types.js';
import { appendsOutput, readBuiltins } from './builtins.js';
import { releaseRules } from '../releases.generated.js';
import { withCommand, type CommandRun } from './command-run.js';
import { batchJobEnv, commandProcessEnv, envRecord, overlayEnv, plugstackEnv } from '../cluster/job-env.js';
import { commandRlimitEnv } from '../cluster/limits.js';
import { asksForUserEnv, LOADS_USER_ENV, loadUserEnv, overLoginEnv } from '../daemon/user-env.js';
import { sbatchExportEnv, sbatchGetsUserEnv, withSbatchExportVar } from '../cluster/export-env.js';
import { drainedBy, jobEnd, runEpilogs, runPrologs, type JobScriptContext } from '../cluster/job-scripts.js';
import { arrayTaskJob, BATCH_STEP, innerResults, srunShim, type Job } from '../cluster/jobs.js';
import { arrayJobRecord, arrayTaskEnv } from '../cluster/job-array.js';
import type { JobScriptResult } from '../daemon/types.js';
import { commandEnvRules, entriesOf, hydraBootstrapOff, launcherEnv, slurmdEnv, taskShapeEnv } from '../cluster/command-env.js';
import { batchEnvInOrder, sbatchEnvInOrder } from '../cluster/env-order.js';
import { requestedArray, requestedNodes, requestJob, willRun } from './allocate.js';
import { NO_VAL } from '../cluster/job-info.js';
import { jobRecordOf } from '../cluster/job-info.js';
import type { CommandSignal } from '../cluster/control.js';
import type { CommandStack } from './srun.js';
import { jobContainerSettings } from '../job-container/settings.js';
import { commandJobContainer, inJobNamespace } from '../job-container/command-job.js';
import { taskScripts } from '../step/task-scripts.js';
import type { ArrayTaskRecord, CommandResult, JobRecord, WordCommandOptions } from './types.js';
import { deadlineAt } from '../cluster/deadline.js';
import { allocationTaskCounts } from '../step/layout.js';


const SIG = os.constants.signals;

/** Why slurmctld drains a node whose batch step could not start its script. */
const DRAIN_REASON = 'batch job complete failure';


export function runSbatch(stack: CommandStack, options: WordCommandOptions): Promise<CommandResult> {
  return withCommand(stack, 'sbatch', options, (run) => sbatch(stack, options, run));
}

async function sbatch(stack: CommandStack, options: WordCommandOptions, run: CommandRun): Promise<CommandResult> {
  const { env, cwd, console, client, control, result, finish } = run;

  // Until the job is submitted, a signal ends sbatch as it ends the process.
  let fatalSignal: CommandSignal | undefined;
  control.onSignal((signal) => {
    fatalSignal ??= signal;
    control.killAll();
  });
  const ready = await client.ready;
  if (fatalSignal) {
    result.exitCode = 128 + SIG[fatalSignal];
    return result;
  }
  if (ready.t === 'commandExit') return finish(ready.status);

  const b = readBuiltins(ready.builtins, cwd, envRecord(ready.environ), ready.requiredNodes);
  console.setVerbosity(b.verbose, b.quiet);
  // _set_rlimit_env after init_post_opt, unless --get-user-env (the limits
  // then come with the login environment slurmd loads, daemon/user-env.ts);
  // a bad --propagate ends sbatch here.
  const rlimits = b.getUserEnv ? { env: {} } : commandRlimitEnv(stack.slurmVersion, ready.limits, stack.slurmConf?.propagatedLimits, b.propagate);
  if ('bad' in rlimits) {
    console.log('error', `Bad rlimit name: ${rlimits.bad}`);
    console.log('error', `--propagate=${rlimits.value} is not valid.`);
    client.exit(ready.errorExit);
    return finish(ready.errorExit);
  }
  const nodes = requestedNodes(b, stack.slurmVersion);
  // The job's task count as sbatch sends it: -n, else --ntasks-per-node times the nodes.
  const batchNtasks = b.ntasks ?? (b.ntasksPerNode !== undefined ? b.ntasksPerNode * nodes : undefined);
  if (b.testOnly) {
    const status = willRun(stack.cluster, { ...b, ...(batchNtasks !== undefined ? { ntasks: batchNtasks } : {}) }, nodes, console);
    client.exit(status);
    return finish(status);
  }
  const job = requestJob(stack.cluster, 'sbatch', { ...b, ...(batchNtasks !== undefined ? { ntasks: batchNtasks } : {}) }, nodes, console, { argv: ready.positional, cwd, env }, slurmdEnv(stack.hostEnv, stack.slurmConf?.path ?? env.SLURM_CONF));
  if (!job) {
    client.exit(ready.errorExit);
    return finish(ready.errorExit);
  }
  const names = job.nodes;
  run.own(job);
  const array = requestedArray(stack.cluster, b);
  // The job exists: cli_filter post_submit (stepid NO_VAL), then the line
  // (an array's own id: its last task keeps it).
  await client.postSubmit(job.id, NO_VAL);
  console.stdout(b.parsable ? `${job.id}\n` : `Submitted batch job ${job.id}\n`);
  // The job runs now; a signal to sbatch (which on a cluster would have
  // returned already) cancels it as scancel would: slurmd terminates its
  // steps (SIGCONT, SIGTERM, SIGKILL after KillWait), so a script that
  // sleeps dies of SIGTERM. Past plugstack's own bound it is killed at once.
  // An array's tasks that have not started are cancelled with it.
  let cancelled = false;
  let ended: 'CANCELLED' | 'TIMEOUT' | undefined;
  const cancel = (now: boolean) => {
    cancelled = true;
    ended ??= 'CANCELLED';
    if (!control.stepRunning) control.killAll();
    else if (now) control.signalStep(SIG.SIGKILL, 'cancel');
    else control.terminateStep();
  };
  control.onSignal(() => cancel(false));
  control.onTimeout(() => {
    console.log('error', `sbatch is still running job ${job.id} after ${run.timeoutMs} ms (timeoutMs): cancelling it`, 'plugstack');
    control.killHung();
    cancel(true);
  });
  // What sbatch has written into its own environment by its exit callbacks
  // (set_prio_process_env, _set_umask_env, the submission's directory and host).
  const ownEnv = entriesOf(sbatchEnvInOrder({
    ...commandProcessEnv('sbatch', envRecord(ready.environ), { slurmVersion: stack.slurmVersion, clusterName: job.clusterName, ...(stack.slurmConf ? { controller: stack.slurmConf.controller } : {}), rlimits: rlimits.env }),
    SLURM_SUBMIT_DIR: cwd,
    SLURM_SUBMIT_HOST: os.hostname(),
  }, stack.slurmVersion));
  // Without --wait, sbatch ends right after the submission: its exit
  // callbacks run before the job starts.
  if (!b.wait) {
    client.exit(0, ownEnv);
    await client.finished;
  }

  const workdir = b.chdir ? path.resolve(cwd, b.chdir) : cwd;
  const scriptArgs = ready.positional.slice(1);
  const ntasks = b.ntasks;
  // Spread over the nodes the job got (select/linear may give more than -N's minimum).
  const perNode = allocationTaskCounts(ntasks, job, names, b.cpusPerTask);
  // The job's name (-J, wrap, the script's name, else sbatch's "sbatch"); the
  // batch job's SLURM_JOB_NAME is slurmctld's (24.11) or sbatch's own
  // variable (22.05: none for a script read from standard input).
  const jobName = job.description?.name ?? b.jobName ?? 'sbatch';
  const namedBySbatch = b.jobName !== undefined || b.wrap || ready.positional.length > 0;
  const envJobName = namedBySbatch || commandEnvRules(stack.slurmVersion).batchJobNameFromController ? jobName : undefined;
  // The job's environment as sbatch sends it: its own environment by then
  // (what it wrote there included) through --export, SLURM_GET_USER_ENV=1
  // last when slurmd is to load the login environment under it.
  const sbatchEnviron = overlayEnv(withSbatchExportVar(ready.environ, b.export, env), envRecord(ownEnv));
  let exported = sbatchExportEnv(sbatchEnviron, b.export, stack.slurmVersion);
  if (sbatchGetsUserEnv(b.export, b.getUserEnv, stack.slurmVersion)) exported = overlayEnv(exported, { SLURM_GET_USER_ENV: '1' });
  const current = envRecord(exported);
  const batchHost = { node: names[0]!, nodeAliasesNull: commandEnvRules(stack.slurmVersion).nodeAliasesNull };
  // env_array_for_batch_job: without -n, --ntasks-per-node times the nodes.
  const batchPerNode = batchNtasks === ntasks ? perNode : names.map(() => b.ntasksPerNode!);
  const scriptContext: JobScriptContext = {
    owner: control,
    uid: process.getuid!(),
    gid: process.getgid!(),
    workDir: workdir,
    jobControlEnv: client.record.jobControlEnv,
  };

  /**
   * One batch job, from slurmd's prolog to its epilog: the job sbatch
   * submitted, or one task of its array (`arrayEnv`: what slurmctld adds
   * to the task's environment). Returns its record and what sbatch -W
   * reads of it.
   */
  const runJob = async (job: Job, arrayEnv: Record<string, string>): Promise<{ record: JobRecord; waitStatus: number; output?: { file: string; text: string } }> => {
    // A signal cancels this job (the array task before it ended with its
    // epilog, which a signal no longer cancels).
    control.onSignal(() => cancel(false));
    const script = path.join(job.dir, 'slurm_script');
    fs.writeFileSync(script, ready.script, { mode: 0o755 });
    // What the job's environment adds to sbatch's, in the order Slurm adds it
    // (a later source's value wins, as each overwrote the one before).
    const added = batchEnvInOrder({
      // -m arbitrary: the job's requested node list, for the sruns inside.
      ...(ready.arbitraryHosts ? { SLURM_ARBITRARY_NODELIST: ready.arbitraryHosts.reqNodes } : {}),
      // set_env_from_opts: 24.11's sbatch appends the launcher variables to the job's environment.
      ...launcherEnv(stack.slurmVersion, current, current, hydraBootstrapOff(stack.slurmConf)),
      // set_envs: what the task-shape options write (SLURM_CPUS_PER_TASK is batchJobEnv's).
      ...taskShapeEnv(stack.slurmVersion, { ...(b.ntasksPerNode !== undefined ? { ntasksPerNode: b.ntasksPerNode } : {}), ...(b.cpusPerTask !== undefined ? { cpusPerTask: b.cpusPerTask } : {}), ...(b.distribution ? { distribution: b.distribution } : {}) }, current),
      // The array's shape (slurmctld's), then the job's own variables (env_array_for_batch_job's, the task's ids among them).
      ...arrayEnv,
      ...batchJobEnv({ job, jobName: envJobName, submitDir: cwd, tasksPerNode: batchPerNode, ...(batchNtasks !== undefined ? { ntasks: batchNtasks } : {}), ...(b.cpusPerTask !== undefined ? { cpusPerTask: b.cpusPerTask } : {}) }, batchHost),
      ...commandProcessEnv('sbatch', current, { slurmVersion: stack.slurmVersion, clusterName: job.clusterName, ...(stack.slurmConf ? { controller: stack.slurmConf.controller } : {}), rlimits: rlimits.env }),
      // --open-mode for the job's sruns: slurmctld's (24.11; 22.05's sbatch wrote it into its own environment).
      ...(b.openMode && releaseRules(stack.slurmVersion).client.jobOptionsEnvBy === 'slurmctld' ? { SLURM_OPEN_MODE: b.openMode === 'append' ? 'a' : 't' } : {}),
      // And the job's dependency, --profile and --acctg-freq (24.11's slurmctld; the client read them).
      ...(releaseRules(stack.slurmVersion).client.jobOptionsEnvBy === 'slurmctld' ? envRecord(ready.jobOptionsEnv ?? []) : {}),
    }, stack.slurmVersion, { ...(ntasks !== undefined ? { ntasks } : {}), ...(b.ntasksPerNode !== undefined ? { ntasksPerNode: b.ntasksPerNode } : {}) });
    // What slurmd receives; plugstack's own variables go on top (the srun
    // inside finds the same stack, and plugstack's srun first on PATH).
    const submitted = overlayEnv(exported, added);
    const withPlugstack = (list: string[]) => overlayEnv(list, plugstackEnv(stack, srunShim(job), envRecord(list).PATH));
    let jobEnv = withPlugstack(submitted);

    // JobContainerType: the job's container (the sruns inside join it): its
    // slurmds have started (restore), 22.05's create on the batch host before
    // the prolog, the extern steps once it ran.
    const jc = commandJobContainer(stack, job, { uid: scriptContext.uid, gid: scriptContext.gid, cwd: workdir, env: envRecord(jobEnv) }, false);
    run.jobContainer = jc;
    await jc?.begin();
    await jc?.firstRun([names[0]!]);
    // slurmd runs the job prolog on the batch host before the batch step.
    // The job's prologs and epilogs (and those of the sruns inside it).
    const scripts: JobScriptResult[] = [];
    const ran = (list: JobScriptResult[]) => {
      scripts.push(...list);
      result.jobScripts.push(...list);
    };
    ran(await runPrologs(inJobNamespace(stack, jc), job, [names[0]!], scriptContext));
    if (scripts.some((p) => !p.ok)) {
      // The launch fails; slurmctld requeues the job and holds it. plugstack
      // does not keep jobs, so the job ends here, with its epilogs.
      run.jobEnded(job.id);
      ran(await runEpilogs(inJobNamespace(stack, jc), job, jobEnd(0, []), scriptContext));
      await jc?.finish();
      return { record: { jobId: job.id, state: 'FAILED', exitCode: 0, nodes: names, drained: drainedBy(scripts), reason: 'launch failed requeued held' }, waitStatus: 1 };
    }

    const jobUser = job.description?.userName ?? String(scriptContext.uid);
    // The prolog done, slurmd loads the user's login environment when the job
    // asks (daemon/user-env.ts), and merges the job's over it; when it cannot,
    // the job runs with what it was sent.
    if (asksForUserEnv(submitted) && !LOADS_USER_ENV)
      console.log('error', "slurmd: the batch job runs without the user's login environment (SLURM_GET_USER_ENV=1): slurmd loads it as root only", 'plugstack');
    else if (asksForUserEnv(submitted)) {
      const login = await loadUserEnv(stack, names[0]!, jobUser, control);
      if (login.env) jobEnv = withPlugstack(overLoginEnv(login.env, submitted));
      else for (const l of login.log.filter((l) => l.level === 'error' || l.level === 'fatal')) console.log('error', `slurmd: ${l.message}`, 'plugstack');
    }

    // slurmstepd names the files (%u the job's user, %x the job's SLURM_JOB_NAME,
    // %A and %a an array task's ids); an array task's default is slurm-%A_%a.out.
    const fileIds = {
      jobId: job.id,
      nodeName: names[0]!,
      userName: jobUser,
      jobName: envRecord(jobEnv).SLURM_JOB_NAME,
      ...(job.array ? { arrayJobId: job.array.jobId, arrayTaskId: job.array.taskId } : {}),
    };
    const outputPath = (pattern: string) => batchFileName(pattern, fileIds, workdir, stack.slurmVersion);
    const stdoutFile = outputPath(b.output ?? (job.array ? 'slurm-%A_%a.out' : 'slurm-%j.out'));
    const stderrFile = b.error ? outputPath(b.error) : stdoutFile;
    // -i: the script reads this file, which slurmstepd opens before it makes
    // the output files; slurmstepd makes those too (one that does not open
    // leaves the rest unmade and fails the job).
    const inputFile = b.input !== undefined ? outputPath(b.input) : undefined;
    const output = new BatchOutput(stdoutFile, stderrFile);

    let io = false;
    const limit =
      job.endTime === undefined
        ? undefined
        : deadlineAt(job.endTime, () => {
            ended ??= 'TIMEOUT';
            control.timeLimit();
          });
    await jc?.startExtern();
    if (ended) {
      limit?.clear();
      return { record: { jobId: job.id, state: ended, exitCode: 0, nodes: names, drained: [] }, waitStatus: 0 };
    }
    const batch: StepResult = await launchStep(
      {
        conf: stack.conf,
        slurmVersion: stack.slurmVersion,
        pluginDirs: stack.pluginDirs,
        hostEnv: stack.hostEnv,
        clusterName: job.clusterName,
        ...(stack.slurmConf ? { controller: stack.slurmConf.controller } : {}),
        ...(job.slurmdEnv ? { daemonEnv: job.slurmdEnv } : {}),
        ...(jc ? { jobContainer: jobContainerSettings(stack.slurmConf)!, jobContainerJob: jc } : {}),
        ...(taskScripts(stack.slurmConf) ? { taskScripts: taskScripts(stack.slurmConf)! } : {}),
        ...(stack.slurmConf ? { propagatedLimits: stack.slurmConf.propagatedLimits } : {}),
      },
      {
        argv: [script, ...scriptArgs],
        env: jobEnv,
        launcherEnv: false,
        nodes: 1,
        ntasks: 1,
        nodeNames: [names[0]!],
        jobId: job.id,
        stepId: BATCH_STEP,
        // An array task's ids, in the batch launch (launchStep's default: none).
        ...(job.array ? { batchArray: job.array } : {}),
        job: jobRecordOf(job, stack.slurmVersion, { uid: process.getuid!(), gid: process.getgid!(), argv: [script], cwd: workdir }),
        cwd: workdir,
        ...(inputFile !== undefined ? { input: { kind: 'file', path: inputFile } as const } : {}),
        output: { stdout: { kind: 'file', path: stdoutFile }, stderr: { kind: 'file', path: stderrFile }, errSharesOut: false },
        ...(appendsOutput(b, stack.slurmConf) ? { outputAppend: true } : {}),
        recordCounts: { nnodes: 0, ntasks: ntasks ?? 0 },
        timeoutMs: run.timeoutMs,
        onEvent: (_node, e) => {
          // The batch step's error file stays open to the end (unlike an
          // srun step's IO): everything slurmstepd logs from user_init on.
          if (e.t === 'io') io = true;
          else if (e.t === 'output') output.write(e.stream === 'stdout' ? 'stdout' : 'stderr', hostStringToBytes(e.data));
          else if (e.t === 'log' && io) {
            // slurmstepd's errors go to the job's error output once its IO is up.
            const line = e.bare ? `${e.msg}\n` : e.level === 'error' ? `slurmstepd: error: ${e.msg}\n` : '';
            if (line) output.log(line);
          }
        },
      },
      control,
    );
    output.flush();
    limit?.clear();
    // Past its end time the job is TIMEOUT, whichever of its processes ended first.
    if (job.endTime !== undefined && Date.now() >= job.endTime) ended ??= 'TIMEOUT';
    result.steps.push(batch);
    const innerSteps: StepResult[] = [];
    for (const inner of innerResults(job)) {
      innerSteps.push(...inner.steps);
      ran(inner.jobScripts ?? []);
    }
    result.steps.push(...innerSteps);

    const node = batch.nodes[0]!;
    // A script whose input does not open never ran: the job's exit code is
    // slurmstepd's error (ESLURMD_IO_ERROR, which scontrol shows as 0:53).
    const ioFailed = node.failedAt === 'io';
    const status = ioFailed ? node.launchRc : (batch.tasks[0]?.status ?? 0);
    // A batch step whose slurmstepd died never completes: the job would run
    // until cancelled; plugstack cancels it.
    if (node.failedAt === 'host' && !ended) {
      ended = 'CANCELLED';
      console.log('error', `slurmstepd of batch job ${job.id} died on ${node.name}: on a cluster the job would stay RUNNING until cancelled; plugstack cancelled it`, 'plugstack');
    }
    // (slurmctld does not drain the node for the input that did not open.)
    const launchFailed = node.failedAt !== null && node.failedAt !== 'host' && !ioFailed;
    const record: JobRecord = {
      jobId: job.id,
      state: ended ?? (status === 0 && node.launchRc === 0 ? 'COMPLETED' : 'FAILED'),
      exitCode: status,
      nodes: names,
      // A batch step that could not start its script fails the launch; slurmd
      // reports it to slurmctld, which drains the node.
      drained: launchFailed ? [{ node: node.name, reason: DRAIN_REASON }] : [],
    };
    // The job has ended: the epilog on each of its nodes (unless plugstack's
    // own bound has passed: then nothing new starts), which a signal no
    // longer cancels.
    run.jobEnded(job.id);
    await jc?.stopExtern();
    if (!control.timedOut) ran(await runEpilogs(inJobNamespace(stack, jc), job, jobEnd(status, innerSteps, ended), scriptContext));
    await jc?.finish();
    record.drained.push(...drainedBy(scripts));
    if (scripts.some((r) => r.mode === 'prolog' && !r.ok)) {
      record.state = 'FAILED';
      record.reason = 'Prolog failure';
    }
    // sbatch's wait reads the job's exit code from slurmctld: its exit
    // status when the script exited, 1 when a signal ended it (no 128+N).
    const code = (status & 0x7f) === 0 ? (status >> 8) & 0xff : 1;
    return {
      record,
      waitStatus: node.launchRc !== 0 ? 1 : code,
      ...outputOf(stdoutFile),
    };
  };

  let waitStatus: number;
  if (!array) {
    const one = await runJob(job, {});
    result.job = one.record;
    if (one.output) result.output = one.output;
    waitStatus = one.waitStatus;
  } else {
    // The array's tasks, one after another in index order (as on a node
    // that runs one job at a time); the first ones split off with ids of
    // their own as they start, the last keeps the array's.
    // A task cancelled before it started never ran: no job of its own, no
    // exit code (sbatch -W reads 0 for it).
    const tasks: ArrayTaskRecord[] = [];
    waitStatus = 0;
    for (const [i, taskId] of array.tasks.entries()) {
      const ids = { jobId: job.id, taskId };
      if (cancelled) {
        tasks.push({ jobId: job.id, state: 'CANCELLED', exitCode: 0, nodes: [], drained: [], arrayJobId: job.id, arrayTaskId: taskId });
        continue;
      }
      ended = undefined;
      const last = i === array.tasks.length - 1;
      const taskJob = arrayTaskJob(job, ids, last, b.timeLimitMs);
      if (!last) run.own(taskJob);
      const one = await runJob(taskJob, arrayTaskEnv(array, ids));
      tasks.push({ ...one.record, arrayJobId: job.id, arrayTaskId: taskId, ...(one.output ? { output: one.output } : {}) });
      // sbatch -W: the highest of the tasks' (_job_wait).
      waitStatus = Math.max(waitStatus, one.waitStatus);
    }
    result.arrayTasks = tasks;
    result.job = arrayJobRecord(job.id, tasks);
  }

  if (b.wait) {
    client.exit(waitStatus, ownEnv);
    return finish(waitStatus);
  }
  return finish(0);
}

/**
 * The job's output file, for the result: its text when it is a regular
 * file. Anything else is named with no text, not read: `-o /dev/stdout`
 * names the command's own standard output, whose pipe a read would wait on
 * for ever (nothing closes its writing end), a terminal waits for input,
 * /dev/zero never ends; /dev/null has none anyway.
 */
function outputOf(file: string): { output: { file: string; text: string } } | Record<string, never> {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch {
    return {};
  }
  try {
    return { output: { file, text: fs.fstatSync(fd).isFile() ? fs.readFileSync(fd, 'utf8') : '' } };
  } finally {
    fs.closeSync(fd);
  }
}
