/**
 * salloc (spank-facts §2d): the allocator context in a client process, the
 * allocation, the user's command run on this machine with the job's
 * variables (an srun in it joins the job), then the allocation is
 * relinquished and salloc's exit callbacks run.
 */
import fs from 'node:fs';
import { childProcess } from '../lazy-modules.js';
import os from 'node:os';
import path from 'node:path';
import { searchPath } from '../cluster/search-path.js';
import { errnoText, strerrorText } from '../host/os-names.js';
import type { CommandSignal } from '../cluster/control.js';
import { readBuiltins } from './builtins.js';
import { withCommand, type CommandRun } from './command-run.js';
import { CommandConsole } from './console.js';
import { allocationEnv, envRecord, overlayEnv, plugstackEnv } from '../cluster/job-env.js';
import { drainedBy, jobEnd, runEpilogs, type JobScriptContext } from '../cluster/job-scripts.js';
import { innerResults, srunShim, type Job } from '../cluster/jobs.js';
import { commandEnvRules, entriesOf, hydraBootstrapOff, launcherEnv, slurmdEnv, taskShapeEnv } from '../cluster/command-env.js';
import { sallocEnvInOrder } from '../cluster/env-order.js';
import { requestedNodes, requestJob } from './allocate.js';
import { NO_VAL } from '../cluster/job-info.js';
import { commandJobContainer, inJobNamespace } from '../job-container/command-job.js';
import type { CommandStack } from './srun.js';
import type { CommandResult, WordCommandOptions } from './types.js';
import { releaseRules } from '../releases.generated.js';
import { allocationTaskCounts, compressHostlist } from '../step/layout.js';
import { checkTerminal, takeTerminal, type SallocTerminal } from './salloc-terminal.js';
import { native } from '../native/binding.js';
import { hostExecutable } from '../native/paths.js';
import { deadlineAt } from '../cluster/deadline.js';

/** salloc's exit status for its command (salloc.c): a user's kill signal counts as success. */
export function sallocExitCode(status: number): number {
  const sig = status & 0x7f;
  if (sig === 0) return (status >> 8) & 0xff;
  const { SIGHUP, SIGINT, SIGQUIT, SIGKILL } = os.constants.signals;
  return [SIGHUP, SIGINT, SIGQUIT, SIGKILL].includes(sig) ? 0 : 1;
}

/** What chdir(2) into this directory would fail with (strerror's text), or undefined when it would not. */
function chdirError(dir: string): string | undefined {
  try {
    if (!fs.statSync(dir).isDirectory()) return errnoText('ENOTDIR');
    fs.accessSync(dir, fs.constants.X_OK);
    return undefined;
  } catch (error) {
    return strerrorText(error);
  }
}

interface LocalCommand {
  /** Sends a signal to the command's process group (it leads its own). */
  signal(signal: NodeJS.Signals | number): void;
  /** Resolves with the raw wait status. */
  status: Promise<number>;
}

/** A stream that is a descriptor of this process (a terminal, a file, a pipe): the command can have it as its own. */
function ownDescriptor(s: string | Buffer | NodeJS.ReadableStream | undefined): s is NodeJS.ReadableStream & { fd: number } {
  return typeof s === 'object' && s !== null && !Buffer.isBuffer(s) && typeof (s as { fd?: unknown }).fd === 'number';
}

/**
 * The user's command, started by salloc on this machine, in its own
 * process group. It is a plain child of salloc: it reads salloc's standard
 * input (the terminal itself when salloc has one) and, with `terminal`,
 * writes to salloc's standard output and error.
 */
function startCommand(
  argv: string[],
  env: string[],
  cwd: string,
  console: CommandConsole,
  errorExit: number,
  io: { stdin?: string | Buffer | NodeJS.ReadableStream; terminal?: boolean; jobControl?: SallocTerminal },
): LocalCommand {
  // _fork_command's child looks the command up along PATH, then in the
  // working directory (search_path), and ends with error_exit when it finds
  // none or cannot exec what it found.
  const failed = (line: string): LocalCommand => {
    console.log('error', `_fork_command: ${line}`);
    return { signal: () => {}, status: Promise.resolve((errorExit & 0xff) << 8) };
  };
  const environment = envRecord(env);
  const found = searchPath(cwd, argv[0]!, {
    cwdLast: true,
    accessMode: fs.constants.X_OK,
    testExec: true,
    pathVar: environment.PATH,
    noPath: () => console.log('error', 'No PATH environment variable'),
  });
  if (found === undefined) return failed(`Unable to find command "${argv[0]}"`);
  const input = io.stdin;
  const shared = ownDescriptor(input);
  // The command leads a process group of its own in salloc's session,
  // interactive or not (_fork_command's setpgid, never a session of its
  // own: a command that opens /dev/tty finds salloc's terminal). Node's
  // spawn can only make a session, so plugstack-host makes the group and
  // becomes the command; for an interactive salloc it also makes that group
  // the terminal's foreground one (salloc-terminal.ts).
  const child = childProcess().spawn(hostExecutable(), ['salloc-command', io.jobControl ? 'foreground' : 'group', String(errorExit), found, ...argv], {
    cwd,
    env: environment,
    stdio: [shared ? (input as unknown as NodeJS.ReadStream) : input === undefined ? 'ignore' : 'pipe', io.terminal ? 'inherit' : 'pipe', io.terminal ? 'inherit' : 'pipe'],
  });
  if (!shared && input !== undefined && child.stdin) {
    child.stdin.on('error', () => {});
    if (typeof input === 'string' || Buffer.isBuffer(input)) child.stdin.end(input);
    else {
      input.pipe(child.stdin);
      child.on('exit', () => input.unpipe(child.stdin!));
    }
  }
  child.stdout?.on('data', (c: Buffer) => console.stdout(c));
  child.stderr?.on('data', (c: Buffer) => console.stderr(c));
  const signal = (sig: NodeJS.Signals | number) => {
    if (child.pid === undefined) return;
    const number = typeof sig === 'number' ? sig : os.constants.signals[sig];
    if (native().signalProcess(-child.pid, number) !== os.constants.errno.ESRCH) return;
    // No group yet: the command has not made it (salloc's parent calls
    // setpgid for it to close that window). It alone gets the signal, while
    // it has not been reaped (its pid could be another's after).
    if (child.exitCode === null && child.signalCode === null) native().signalProcess(child.pid, number);
  };
  const status = new Promise<number>((resolve) => {
    child.on('error', (error) => {
      console.log('error', `_fork_command: Unable to exec command "${found}": ${strerrorText(error)}`);
      resolve((errorExit & 0xff) << 8);
    });
    child.on('close', (code, sig) => {
      // What the command left in its group goes with it.
      signal('SIGKILL');
      resolve(sig ? os.constants.signals[sig] : (code ?? 0) << 8);
    });
  });
  return { signal, status };
}

/** What the job's prolog and epilog helpers run with: salloc's user, its directory, its job-control variables. */
function scriptContext(run: CommandRun, workDir: string): JobScriptContext {
  return { owner: run.control, uid: process.getuid!(), gid: process.getgid!(), workDir, jobControlEnv: run.client.record.jobControlEnv };
}

/**
 * salloc --no-shell: salloc exits 0 once the allocation is granted (its
 * exit callbacks run at that exit), leaving the job running until scancel
 * or its time limit. A plugstack job ends with its command: it is
 * cancelled as scancel would (a real 22.05's record: CANCELLED, exit code
 * 0), and its epilog runs.
 */
async function allocationAlone(stack: CommandStack, run: CommandRun, job: Job, workDir: string): Promise<CommandResult> {
  const { console, client, control, result, finish } = run;
  console.log('info', `salloc --no-shell leaves job ${job.id} allocated until scancel or its time limit; plugstack cancels it as salloc ends`, 'plugstack');
  client.exit(0);
  await finish(0);
  run.jobEnded(job.id);
  if (!control.timedOut) result.jobScripts.push(...(await runEpilogs(stack, job, jobEnd(0, [], 'CANCELLED'), scriptContext(run, workDir))));
  result.job = { jobId: job.id, state: 'CANCELLED', exitCode: 0, nodes: job.nodes, drained: drainedBy(result.jobScripts) };
  return result;
}

export function runSalloc(stack: CommandStack, options: WordCommandOptions): Promise<CommandResult> {
  return withCommand(stack, 'salloc', options, (run) => salloc(stack, run, options));
}

async function salloc(stack: CommandStack, run: CommandRun, options: WordCommandOptions): Promise<CommandResult> {
  const { env, cwd, console, client, control, result, finish } = run;

  // Until the allocation is granted, a signal ends salloc as it ends the process.
  let fatalSignal: CommandSignal | undefined;
  control.onSignal((signal) => {
    fatalSignal ??= signal;
    control.killAll();
  });
  const ready = await client.ready;
  if (fatalSignal) {
    result.exitCode = 128 + os.constants.signals[fatalSignal];
    return result;
  }
  if (ready.t === 'commandExit') return finish(ready.status);

  const b = readBuiltins(ready.builtins, cwd, envRecord(ready.environ), ready.requiredNodes);
  console.setVerbosity(b.verbose, b.quiet);
  const nodes = requestedNodes(b, stack.slurmVersion);
  // salloc changes into -D's directory right after init_post_opt, and ends
  // there when it cannot (salloc.c).
  const unusable = b.chdir === undefined ? undefined : chdirError(path.resolve(cwd, b.chdir));
  if (unusable !== undefined) {
    console.log('error', `chdir(${b.chdir}): ${unusable}`);
    client.exit(ready.errorExit);
    return finish(ready.errorExit);
  }
  // Job control, when the command gets the CLI's own terminal: salloc's
  // check of its standard input, before the allocation.
  const stdinFd = options.terminal && !b.noShell && ownDescriptor(options.stdin) ? options.stdin.fd : undefined;
  const terminalCheck = stdinFd === undefined ? undefined : checkTerminal(stdinFd);
  if (terminalCheck === 'no controlling terminal') {
    console.log('error', 'no controlling terminal: please set --no-shell');
    client.exit(ready.errorExit);
    return finish(ready.errorExit);
  }
  // salloc catches its signals before it asks for the allocation.
  client.allocated();
  const job = requestJob(stack.cluster, 'salloc', b, nodes, console, { argv: ready.positional.length ? ready.positional : [env.SHELL || '/bin/sh'], cwd, env }, slurmdEnv(stack.hostEnv, stack.slurmConf?.path ?? env.SLURM_CONF));
  if (!job) {
    client.exit(ready.errorExit);
    return finish(ready.errorExit);
  }
  const names = job.nodes;
  run.own(job);
  console.log('info', `Granted job allocation ${job.id}`);
  // 24.11's _wait_nodes_ready says so every time (22.05 only after polling).
  if (releaseRules(stack.slurmVersion).client.sallocNodesReady) console.log('info', `Nodes ${compressHostlist(names)} are ready for job`);
  // cli_filter post_submit (stepid NO_VAL) once the allocation is granted.
  await client.postSubmit(job.id, NO_VAL);
  if (b.noShell) return allocationAlone(stack, run, job, b.chdir ?? cwd);

  const command = ready.positional.length ? ready.positional : [env.SHELL || '/bin/sh'];
  // -n, else --ntasks-per-node times the nodes (salloc then exports the count as if given).
  const ntasks = b.ntasks ?? (b.ntasksPerNode !== undefined ? b.ntasksPerNode * nodes : undefined);
  // Spread over the nodes the job got (select/linear may give more than -N's minimum).
  const perNode = allocationTaskCounts(ntasks, job, names, b.cpusPerTask);
  // What salloc writes into its own environment once it has the allocation
  // (env_array_for_job, and 24.11's launcher variables); its command runs
  // with it. Its job name is -J, else "interactive" (salloc's opt.c).
  const ownEnv = sallocEnvInOrder({
    ...allocationEnv({ job, jobName: b.jobName ?? 'interactive', submitDir: cwd, tasksPerNode: perNode, overcommit: b.overcommit }),
    // -m arbitrary: the job's requested node list, for the sruns inside.
    ...(ready.arbitraryHosts ? { SLURM_ARBITRARY_NODELIST: ready.arbitraryHosts.reqNodes } : {}),
    ...(ntasks !== undefined ? { SLURM_NTASKS: String(ntasks), SLURM_NPROCS: String(ntasks) } : {}),
    // 22.05's env_array_for_job writes the (NULL) alias list too.
    ...(commandEnvRules(stack.slurmVersion).nodeAliasesNull ? { SLURM_NODE_ALIASES: '(null)' } : {}),
    ...taskShapeEnv(stack.slurmVersion, b, envRecord(ready.environ)),
    ...launcherEnv(stack.slurmVersion, envRecord(ready.environ), envRecord(ready.environ), hydraBootstrapOff(stack.slurmConf)),
  }, stack.slurmVersion);
  let jobEnv = overlayEnv(ready.environ, ownEnv);
  jobEnv = overlayEnv(jobEnv, plugstackEnv(stack, srunShim(job), envRecord(jobEnv).PATH));

  // JobContainerType: the job's container, which the sruns inside join: its
  // slurmds have started (restore), the extern steps (PrologFlags=Contain;
  // the prologs run at the sruns' first launches).
  const jc = commandJobContainer(stack, job, { uid: process.getuid!(), gid: process.getgid!(), cwd: b.chdir ?? cwd, env: envRecord(jobEnv) }, false);
  run.jobContainer = jc;
  await jc?.begin();
  await jc?.startExtern();

  // Interactive: salloc takes the terminal now, and gives it back at its end.
  const jobControl = terminalCheck === 'interactive' && stdinFd !== undefined ? takeTerminal(stdinFd) : undefined;
  if (jobControl) control.atClose(() => jobControl.restore());
  const local = startCommand(command, jobEnv, b.chdir ?? cwd, console, ready.errorExit, {
    ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
    ...(options.terminal ? { terminal: true } : {}),
    ...(jobControl ? { jobControl } : {}),
  });
  control.atClose(() => local.signal('SIGKILL'));
  // The allocation ends under the command: slurmctld revokes it and salloc
  // says so (salloc.c _job_complete_handler). A signal of salloc's set
  // reaching salloc itself (SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGPIPE)
  // completes the job, as the release does it (releases.json
  // client.sallocSignalCompletes); so does the time limit. Its command gets
  // the signal of -K/--kill-command, and nothing without it: salloc waits
  // for the command as before (SALLOC_KILL_CMD, which would send SIGTERM,
  // is not built by default; a real 22.05's and 24.11's command slept on).
  // SIGHUP goes to the command.
  let ended: { state: 'CANCELLED' | 'TIMEOUT' | 'FAILED'; status: number } | undefined;
  const revoke = (state: 'CANCELLED' | 'TIMEOUT' | 'FAILED', status: number, line: string) => {
    if (ended) return;
    ended = { state, status };
    console.log('info', line);
    if (b.killCommand !== undefined) local.signal(b.killCommand);
  };
  const revoked = `Job allocation ${job.id} has been revoked.`;
  // SIGALRM is not salloc's: it dies of it (exit 142), its command and
  // allocation left running; plugstack ends both, the command first.
  let diedOf: CommandSignal | undefined;
  control.onSignal((signal) => {
    if (signal === 'SIGHUP') return local.signal('SIGHUP');
    if (signal === 'SIGALRM') {
      diedOf ??= signal;
      return local.signal('SIGKILL');
    }
    // NO_VAL: CANCELLED, exit code 0; or 128 + the signal: FAILED (a real
    // 24.11 gave 143 for SIGTERM, 130 for SIGINT).
    if (releaseRules(stack.slurmVersion).client.sallocSignalCompletes === 'cancel') revoke('CANCELLED', 0, revoked);
    else revoke('FAILED', 128 + os.constants.signals[signal], revoked);
  });
  control.onTimeout(() => {
    console.log('error', `salloc is still running after ${run.timeoutMs} ms (timeoutMs): cancelling job ${job.id}`, 'plugstack');
    revoke('CANCELLED', 0, revoked);
    // plugstack's own bound ends the command whatever salloc would do.
    if (b.killCommand === undefined) local.signal('SIGTERM');
    setTimeout(() => local.signal('SIGKILL'), 1000).unref();
  });
  const limit =
    job.endTime === undefined
      ? undefined
      : deadlineAt(job.endTime, () => revoke('TIMEOUT', 0, `Job ${job.id} has exceeded its time limit and its allocation has been revoked.`));
  const status = await local.status;
  jobControl?.commandEnded();
  limit?.clear();
  // The command has ended: salloc relinquishes the allocation and exits; the
  // job's epilog is slurmd's.
  run.jobEnded(job.id);
  if (!ended && !diedOf) console.log('info', `Relinquishing job allocation ${job.id}`);
  const exitCode = diedOf ? 128 + os.constants.signals[diedOf] : sallocExitCode(status);
  // A salloc that died ran no exit callbacks.
  if (diedOf) client.handle.kill('cancel');
  else client.exit(exitCode, entriesOf(ownEnv));
  await finish(exitCode);

  // The job ends with salloc: the prologs the sruns inside ran, then the
  // epilog on every node, after salloc's exit callbacks.
  for (const inner of innerResults(job)) {
    result.steps.push(...inner.steps);
    result.jobScripts.push(...(inner.jobScripts ?? []));
  }
  const context = scriptContext(run, b.chdir ?? cwd);
  await jc?.stopExtern();
  // A revoked allocation was completed without the command's status (by
  // the signal's, or none: the time limit, 22.05's NO_VAL), and salloc does
  // not complete it again (a real 22.05's epilog saw exit code 0 for a
  // SIGTERM to salloc, a real 24.11's 143).
  const jobStatus = ended ? ended.status : status;
  const cut = ended && ended.state !== 'FAILED' ? ended.state : undefined;
  if (!control.timedOut) result.jobScripts.push(...(await runEpilogs(inJobNamespace(stack, jc), job, jobEnd(jobStatus, result.steps, cut), context)));
  await jc?.finish();
  const prologFailed = result.jobScripts.some((r) => r.mode === 'prolog' && !r.ok);
  result.job = {
    jobId: job.id,
    state: ended?.state ?? (status === 0 && !prologFailed ? 'COMPLETED' : 'FAILED'),
    exitCode: jobStatus,
    nodes: names,
    drained: drainedBy(result.jobScripts),
    ...(prologFailed ? { reason: 'Prolog failure' } : {}),
  };
  return result;
}
