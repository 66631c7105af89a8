/**
 * What srun, sbatch and salloc share at their start and end: the control
 * that owns every process the command starts, the client process, the
 * console that prints as the command would, and the result that ends with
 * the command's exit status. A command runs inside withCommand(), whose
 * finally ends everything it started and removes the job it created,
 * whatever happened.
 */
import os from 'node:os';
import { CommandControl } from '../cluster/control.js';
import { envList, envRecord } from '../cluster/job-env.js';
import { removeJob, type Job } from '../cluster/jobs.js';
import { startClient, type ClientProcess, type CommandStack } from './client.js';
import { mergeMpiRecords } from '../mpi/record.js';
import type { JobContainerJob } from '../job-container/job.js';
import { foldJobContainer } from '../job-container/command-job.js';
import type { Problem } from '../check/types.js';
import type { SlurmConf } from '../config/slurm-conf.js';
import { CommandConsole } from './console.js';
import { printFaults } from './fault-lines.js';
import type { CommandName, CommandResult, WordCommandOptions } from './types.js';

/** How long a command may run, everything it starts included, unless timeoutMs says otherwise. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 5 * 60_000;

/** How long a client host outlives the command's bound before it kills itself: the command ends it first. */
const BACKSTOP_MS = 5_000;

export interface CommandRun {
  /** The command's environment and working directory. */
  env: Record<string, string>;
  cwd: string;
  console: CommandConsole;
  client: ClientProcess;
  control: CommandControl;
  result: CommandResult;
  timeoutMs: number;
  /** A job this command created: removed when the command ends. */
  own(job: Job): void;
  /** Done when the command ends, whatever happened (files it keeps open closed). */
  atEnd(fn: () => void): void;
  /** The job_container life of the job this command created (job-container/command-job.ts): folded into the result, finished at the end whatever happened. */
  jobContainer?: JobContainerJob;
  /**
   * The command ends with this status once its client process has ended
   * (128 + signal when a plugin or a signal killed that process); output
   * is captured.
   */
  finish(exitCode: number): Promise<CommandResult>;
  /**
   * The command and its job have ended: what runs now (the job's epilog) is
   * slurmd's, which a signal no longer cuts short (CommandControl.jobEnding,
   * its lines plugstack's own).
   */
  jobEnded(jobId: number): void;
}

/** What Slurm's commands do with a slurm.conf they cannot process: its errors, then a fatal line, exit 1. */
function unreadableConf(command: CommandName, conf: SlurmConf, console: CommandConsole, options: WordCommandOptions): CommandResult {
  // A fatal() while parsing ends the command there; errors let the parse
  // finish, then the command stops on them.
  const lines = conf.problems.filter((d) => !conf.controllerProblems.includes(d)).flatMap((d) => d.slurmLog);
  const fatalAt = lines.findIndex((l) => l.level === 'fatal');
  for (const l of fatalAt < 0 ? lines : lines.slice(0, fatalAt + 1)) console.log(l.level, l.text);
  if (fatalAt < 0) console.log('fatal', 'Unable to process configuration file');
  const problems: Problem[] = conf.problems.map((d) => ({
    severity: d.severity,
    code: d.code,
    message: d.message,
    context: command === 'srun' ? 'local' : 'allocator',
    ...(d.file !== undefined ? { file: d.file } : {}),
    ...(d.line !== undefined ? { line: d.line } : {}),
  }));
  return {
    command,
    args: options.args,
    exitCode: 1,
    stdout: console.stdoutText,
    stderr: console.stderrText,
    client: {
      command,
      context: command === 'srun' ? 'local' : 'allocator',
      calls: [],
      optionCallbacks: [],
      items: [],
      env: [],
      log: [],
      problems,
      builtins: [],
      options: [],
      jobControlEnv: {},
    cliFilter: [],
    syslog: [],
      stoppedAt: 'slurm.conf',
    },
    steps: [],
    jobScripts: [],
  };
}

export async function withCommand(
  stack: CommandStack,
  command: CommandName,
  options: WordCommandOptions,
  body: (run: CommandRun) => Promise<CommandResult>,
): Promise<CommandResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const control = new CommandControl({
    timeoutMs,
    ...(options.signal ? { abort: options.signal } : {}),
    ...(options.signals ? { signals: options.signals } : {}),
  });
  const owned: Job[] = [];
  let jobContainer: JobContainerJob | undefined;
  try {
    const env = envRecord(envList(options.env ?? process.env));
    const cwd = options.cwd ?? process.cwd();
    const console = new CommandConsole(command, options);
    // The command reads slurm.conf first of all, and stops on its errors.
    if (stack.slurmConf && !stack.slurmConf.ok) return unreadableConf(command, stack.slurmConf, console, options);
    // The command reads its slurm.conf first thing and puts its path in its
    // own environment (SLURM_CONF), for everything it runs after.
    const clientEnv = stack.slurmConf ? { ...env, SLURM_CONF: stack.slurmConf.path } : env;
    const client = startClient(
      stack,
      command,
      options.args,
      clientEnv,
      cwd,
      timeoutMs + BACKSTOP_MS,
      (e) => console.clientEvent(e),
      (s, c) => (s === 'stdout' ? console.stdout(c) : console.stderr(c)),
      // sbatch reads its script from its standard input when none is named.
      options.script ?? (command === 'sbatch' ? options.stdin : undefined),
    );
    control.track(client.handle);
    const result: CommandResult = {
      command,
      args: options.args,
      exitCode: 1,
      stdout: '',
      stderr: '',
      client: client.record,
      steps: [],
      jobScripts: [],
    };
    const finish = async (exitCode: number): Promise<CommandResult> => {
      const run = await client.finished;
      // The command's process died of plugin code: its status is the process's.
      if (run.signal && run.fault?.kind !== 'cancelled') result.exitCode = 128 + (os.constants.signals[run.signal] ?? 0);
      else if (run.fault?.kind === 'exit' && run.record.running() && run.exitCode !== null) result.exitCode = run.exitCode;
      else result.exitCode = exitCode;
      return result;
    };
    const endings: (() => void)[] = [];
    const jobEnded = (jobId: number) => control.jobEnding(jobId, (line) => console.log('info', line, 'plugstack'));
    const run: CommandRun = { env, cwd, console, client, control, result, timeoutMs, own: (job) => owned.push(job), atEnd: (fn) => endings.push(fn), finish, jobEnded };
    try {
      await body(run);
    } finally {
      for (const end of endings.splice(0)) end();
      jobContainer = run.jobContainer;
      // Whatever happened, the job's extern steps and namespace end with it.
      await jobContainer?.finish();
    }
    // srun's mpi plugin: its calls in srun around those of its step.
    if (command === 'srun') {
      const mpi = mergeMpiRecords(client.record.mpi, result.steps[0]?.mpi);
      if (mpi) result.mpi = mpi;
    }
    // JobContainerType: the job's start, every call of every step of the command, the job's end.
    if (jobContainer) foldJobContainer(result, jobContainer);
    else {
      const jc = result.steps.filter((s) => s.jobContainer);
      if (jc.length) result.jobContainer = { types: jc[0]!.jobContainer!.types, calls: jc.flatMap((s) => s.jobContainer!.calls) };
    }
    // The command has ended: its own lines are out, plugstack's follow.
    printFaults(console, result);
    result.stdout = console.stdoutText;
    result.stderr = console.stderrText;
    return result;
  } finally {
    await control.close();
    for (const job of owned) removeJob(job);
  }
}
