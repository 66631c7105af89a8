/**
 * The client host process (srun, sbatch or salloc) and the record of what
 * happened in it. The process's environment and working directory are the
 * command's, as for the real command.
 */
import { cliFilterCalls } from '../cli-filter/calls.js';
import { cliFilterRequest, type CliFilterOptions } from '../cli-filter/settings.js';
import type { ClusterShape } from '../cluster/shape.js';
import { memoryConsumable, multipleSharingGres, slurmConfBoolean, type SlurmConf } from '../config/slurm-conf.js';
import { startHost, type HostHandle, type HostRun } from '../host/host-process.js';
import { mpiRequest } from '../mpi/settings.js';
import { addMpiEvents, mpiRecord } from '../mpi/record.js';
import { processRecord } from '../host/process-record.js';
import type { CommandExitEvent, HostEvent, ReadyEvent } from '../host/protocol.js';
import type { JobInfo } from '../host/protocol.generated.js';
import type { ClientRecord, CommandName } from './types.js';

export type { CommandExitEvent, ReadyEvent } from '../host/protocol.js';

export interface StackRef {
  conf: string;
  slurmVersion: string;
  pluginDirs: readonly string[];
}

/** What srun, sbatch and salloc run against. */
export interface CommandStack extends StackRef {
  hostEnv?: NodeJS.ProcessEnv;
  /** The emulated cluster: its name, partitions and nodes (slurm.conf's, or plugstack's own). */
  cluster: ClusterShape;
  /** The site's slurm.conf, when one was given. */
  slurmConf?: SlurmConf;
  /** slurm.conf's PrologEpilogTimeout. */
  prologEpilogTimeoutMs?: number;
  /** How the cli_filter plugins slurm.conf names are run. */
  cliFilter?: CliFilterOptions;
}

export interface ClientProcess {
  record: ClientRecord;
  /** Resolves at "ready", or with the command's own exit if it stopped first. */
  ready: Promise<ReadyEvent | CommandExitEvent>;
  /**
   * srun: env into srun's own environment, then local_user_init with the job
   * the launcher got; resolves with its rc, whether it failed, and srun's
   * environment after it (what the step is launched with).
   */
  localUserInit(
    job: { uid: number; gid: number; jobId: number; stepId: number; nodes: number; tasks: number; argv: string[] },
    record?: JobInfo,
    env?: string[],
  ): Promise<{ rc: number; failed: boolean; status: number; environ?: string[] }>;
  /**
   * srun got its allocation (own: it asked for one itself, not an srun
   * inside a job): from now on its exit callbacks will run. salloc asks for
   * its allocation. Each catches the signals it catches from then on.
   */
  allocated(own?: boolean): void;
  /** The job (srun: the step) exists: cli_filter post_submit; resolves once it ran. */
  postSubmit(jobId: number, stepId: number): Promise<void>;
  /** srun's step exists: the mpi plugin's client_prelaunch; ok false when it failed, env what every task gets. */
  mpiPrelaunch(step: { jobId: number; stepId: number; ntasks: number; nodeList: string; layout: number[][]; taskDist?: number; planeSize?: number }): Promise<{ ok: boolean; env: string[] }>;
  /** The step's output has ended: the mpi plugin's client_fini, and its result. */
  mpiFini(): Promise<number>;
  /** srun sends its step's launch: its IO exists from now on (and ignores SIGTTIN). */
  launching(): void;
  /** The command ends: env into its own environment (sbatch's and salloc's), then exit callbacks where Slurm runs them. */
  exit(status: number, env?: string[]): void;
  finished: Promise<HostRun>;
  handle: HostHandle;
}

function entries(list: string[]): Record<string, string> {
  return Object.fromEntries(list.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
}

function withCliFilter<T>(request: T | undefined): { cliFilter?: T } {
  return request ? { cliFilter: request } : {};
}

export function startClient(
  stack: StackRef & { slurmConf?: SlurmConf; cliFilter?: CliFilterOptions },
  command: CommandName,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  timeoutMs: number,
  onEvent: (event: HostEvent) => void,
  onOutput: (stream: 'stdout' | 'stderr', chunk: Buffer) => void,
  stdin?: string | Buffer | NodeJS.ReadableStream,
): ClientProcess {
  const context = command === 'srun' ? 'local' : 'allocator';
  const record: ClientRecord = {
    command,
    context,
    calls: [],
    optionCallbacks: [],
    items: [],
    env: [],
    log: [],
    problems: [],
    builtins: [],
    options: [],
    jobControlEnv: {},
    cliFilter: [],
    syslog: [],
  };
  let resolveReady!: (e: ReadyEvent | CommandExitEvent) => void;
  const ready = new Promise<ReadyEvent | CommandExitEvent>((r) => (resolveReady = r));
  let pendingResult: ((r: { rc: number; failed: boolean; status: number; env?: string[]; environ?: string[] }) => void) | undefined;
  let ended: number | undefined;
  // srun loaded an mpi plugin (its ready's mpi type): without one,
  // client_prelaunch and client_fini call nothing (native/core/mpi/
  // mpi_client.cc: no environment, 0), and Node answers them itself.
  let mpiPlugin = false;

  const handleEvent = (e: HostEvent) => {
    switch (e.t) {
      case 'ready':
        record.builtins = e.builtins;
        record.options = e.options.map((o) => ({ plugin: o.plugin, name: o.name, value: o.value }));
        record.jobControlEnv = entries(e.jobControlEnv);
        mpiPlugin = e.mpi !== undefined && e.mpi.type !== null;
        resolveReady(e);
        break;
      case 'commandExit':
        if (!record.stoppedAt && e.reason !== 'done') record.stoppedAt = e.reason;
        resolveReady(e);
        break;
      case 'result':
        pendingResult?.({ rc: e.rc, failed: e.failed, status: e.status ?? 1, ...(e.env ? { env: e.env } : {}), ...(e.environ ? { environ: e.environ } : {}) });
        pendingResult = undefined;
        break;
      default:
        break;
    }
    onEvent(e);
  };

  const filtering = cliFilterRequest(stack.slurmConf, stack.cliFilter ?? {});
  const handle = startHost(
    'client',
    {
      conf: stack.conf,
      context,
      command,
      slurmVersion: stack.slurmVersion,
      pluginDirs: stack.pluginDirs,
      argv: args,
      // -S and --thread-spec are ignored (with an error line) unless slurm.conf allows them.
      ...(slurmConfBoolean(stack.slurmConf, 'AllowSpecResourcesUsage') ? { allowSpecResources: true } : {}),
      // 24.11's -v lines for --mem-per-cpu/--mem-per-gpu (plugstack's own cluster tracks no memory).
      ...(stack.slurmConf && memoryConsumable(stack.slurmConf) ? { memoryConsumable: true } : {}),
      ...(stack.slurmConf && multipleSharingGres(stack.slurmConf) ? { multipleSharingGres: true } : {}),
      ...withCliFilter(filtering),
      ...(command === 'srun' ? { mpi: mpiRequest(stack.slurmConf, stack.slurmVersion) } : {}),
    },
    {
      label: command,
      timeoutMs,
      env,
      cwd,
      onEvent: handleEvent,
      ...(stdin !== undefined ? { stdin } : {}),
      onOutput,
    },
  );
  const finished = handle.finished.then((run) => {
    // Calls, option callbacks, items, environment operations, log lines and
    // problems, as the shared reducer and classifier have them.
    const whole = processRecord(run, context);
    record.items = whole.items;
    record.env = whole.env;
    record.log = whole.log;
    record.problems = whole.problems;
    const filters = cliFilterCalls(run.events, command);
    record.cliFilter = filters.calls;
    record.syslog = filters.syslog;
    if (command === 'srun') {
      const ready = run.events.find((e) => e.t === 'ready');
      const mpi = mpiRecord(ready?.t === 'ready' && ready.mpi ? ready.mpi.type : null);
      addMpiEvents(mpi, run.events, { process: 'srun' });
      if (mpi.type !== null || mpi.calls.length) record.mpi = mpi;
    }
    for (const c of run.record.calls) {
      const call: ClientRecord['calls'][number] = { plugin: c.plugin, hook: c.hook, context, role: 'client' };
      if (c.rc !== undefined) call.rc = c.rc;
      if (c.us !== undefined) call.us = c.us;
      if (c.at !== undefined) call.at = c.at;
      record.calls.push(call);
      if (c.hook === 'option_cb' && c.option !== undefined)
        record.optionCallbacks.push({ plugin: c.plugin, name: c.option, value: c.value ?? null, source: c.source ?? '', rc: c.rc ?? 0 });
    }
    if (run.fault && run.fault.kind !== 'cancelled') record.stoppedAt ??= 'crash';
    // A client that died (a plugin crash while parsing options, say) never
    // reported its end: it ends here, like the process did.
    // One that could not even start has the shell's status for a command
    // that cannot be executed (126).
    const status = run.fault?.kind === 'spawn' ? 126 : run.signal ? 128 : (run.exitCode ?? 1);
    resolveReady({ t: 'commandExit', status, reason: run.fault?.kind === 'spawn' ? 'exec' : 'crash' });
    pendingResult?.({ rc: -1, failed: true, status: status });
    pendingResult = undefined;
    ended = status;
    return run;
  });
  // A request to a client that has ended is answered at once, as failed.
  const request = (message: Parameters<HostHandle['send']>[0], onResult: (r: { rc: number; failed: boolean; status: number; env?: string[]; environ?: string[] }) => void) => {
    if (ended !== undefined) return onResult({ rc: -1, failed: true, status: ended });
    pendingResult = onResult;
    handle.send(message);
  };
  return {
    record,
    ready,
    handle,
    finished,
    localUserInit: (job, record, env) =>
      // record: what slurm_load_job answers with in srun (lib/cluster/job-info.ts).
      new Promise((resolve) => request({ t: 'local_user_init', job, ...(record ? { record } : {}), ...(env ? { env } : {}) }, resolve)),
    allocated: (own) => handle.send({ t: 'allocated', ...(own ? { own } : {}) }),
    postSubmit: (jobId, stepId) =>
      !filtering ? Promise.resolve() : new Promise((resolve) => request({ t: 'post_submit', jobId, stepId, components: 1 }, () => resolve())),
    // A client that died cannot run client_prelaunch: the launch fails.
    mpiPrelaunch: (step) =>
      !mpiPlugin && ended === undefined
        ? Promise.resolve({ ok: true, env: [] })
        : new Promise((resolve) => request({ t: 'mpi_prelaunch', step }, (r) => resolve({ ok: !r.failed, env: r.env ?? [] }))),
    // A client that died cannot run client_fini: 0, nothing to add.
    mpiFini: () => (!mpiPlugin ? Promise.resolve(0) : new Promise((resolve) => request({ t: 'mpi_fini' }, (r) => resolve(r.failed ? 0 : r.rc)))),
    launching: () => handle.send({ t: 'launching' }),
    exit: (status, env) => handle.send({ t: 'exit', status, ...(env?.length ? { env } : {}) }),
  };
}
