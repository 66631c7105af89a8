/**
 * The client host process (srun, sbatch or salloc) and the record of what
 * happened in it. The process's environment and working directory are the
 * command's, as for the real command.
 */
import { HookRecorder } from '../host/hook-record.js';
import { startHost, type HostHandle, type HostRun } from '../host/host-process.js';
import type { HostEvent } from '../host/events.js';
import type { ClientRecord, CommandName } from './types.js';

export interface StackRef {
  conf: string;
  slurmVersion: string;
  pluginDirs: readonly string[];
}

export interface ReadyEvent {
  t: 'ready';
  positional: string[];
  builtins: { name: string; value: string | null; source: 'argv' | 'env' | 'script' }[];
  options: { plugin: string; name: string; value: string | null; ref: number; byEnv: boolean }[];
  jobControlEnv: string[];
  environ: string[];
  script: string;
}

export interface CommandExitEvent {
  t: 'commandExit';
  status: number;
  reason: string;
}

export interface ClientProcess {
  record: ClientRecord;
  /** Resolves at "ready", or with the command's own exit if it stopped first. */
  ready: Promise<ReadyEvent | CommandExitEvent>;
  /** srun: local_user_init with the job the launcher got; resolves with its rc and whether it failed. */
  localUserInit(job: { uid: number; gid: number; jobId: number; stepId: number; nodes: number; tasks: number; argv: string[] }): Promise<{ rc: number; failed: boolean }>;
  /** srun got its allocation: from now on its exit callbacks will run. */
  allocated(): void;
  /** The command ends: exit callbacks where Slurm runs them. */
  exit(status: number): void;
  finished: Promise<HostRun>;
  /** Renders a log event of this process as the command prints it, or undefined if it prints nothing. */
  handle: HostHandle;
}

function entries(list: string[]): Record<string, string> {
  return Object.fromEntries(list.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
}

export function startClient(
  stack: StackRef,
  command: CommandName,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  onEvent: (event: HostEvent) => void,
  onOutput: (stream: 'stdout' | 'stderr', chunk: Buffer) => void,
  stdin?: string,
): ClientProcess {
  const context = command === 'srun' ? 'local' : 'allocator';
  // Item reads, environment operations, log lines and problems are
  // recorded as for any single host process; calls and option callbacks
  // carry the client's own details.
  const recorder = new HookRecorder(context);
  const record: ClientRecord = {
    command,
    context,
    calls: [],
    optionCallbacks: [],
    items: recorder.record.items,
    env: recorder.record.env,
    log: recorder.record.log,
    problems: recorder.record.problems,
    builtins: [],
    options: [],
    jobControlEnv: {},
  };
  const pluginOf = (ref: number | undefined) => recorder.plugin(ref);
  const optionEnters: { option?: string; value?: string; source?: string }[] = [];
  let resolveReady!: (e: ReadyEvent | CommandExitEvent) => void;
  const ready = new Promise<ReadyEvent | CommandExitEvent>((r) => (resolveReady = r));
  let pendingResult: ((r: { rc: number; failed: boolean }) => void) | undefined;

  const handleEvent = (e: HostEvent | ReadyEvent | CommandExitEvent | { t: 'result'; rc: number; failed: boolean }) => {
    if (e.t === 'line' || e.t === 'item' || e.t === 'env' || e.t === 'log' || e.t === 'problem' || e.t === 'warning') {
      recorder.add(e);
      return;
    }
    switch (e.t) {
      case 'enter':
        optionEnters.push(e.hook === 'option_cb' ? { option: e.option!, value: e.value!, source: e.source! } : {});
        break;
      case 'leave': {
        const enter = optionEnters.pop();
        const call: ClientRecord['calls'][number] = { plugin: pluginOf(e.ref), hook: e.hook, context, role: 'client', us: e.us };
        if (e.rc !== undefined) call.rc = e.rc;
        record.calls.push(call);
        if (e.hook === 'option_cb' && enter?.option !== undefined)
          record.optionCallbacks.push({
            plugin: pluginOf(e.ref),
            name: enter.option,
            value: enter.value ?? null,
            source: enter.source ?? '',
            rc: e.rc ?? 0,
          });
        break;
      }
      case 'ready':
        record.builtins = e.builtins;
        record.options = e.options.map((o) => ({ plugin: o.plugin, name: o.name, value: o.value }));
        record.jobControlEnv = entries(e.jobControlEnv);
        resolveReady(e);
        break;
      case 'commandExit':
        if (!record.stoppedAt && e.reason !== 'done') record.stoppedAt = e.reason;
        resolveReady(e);
        break;
      case 'result':
        pendingResult?.({ rc: e.rc, failed: e.failed });
        pendingResult = undefined;
        break;
      default:
        break;
    }
  };

  const handle = startHost(
    'client',
    { conf: stack.conf, context, command, slurmVersion: stack.slurmVersion, pluginDirs: stack.pluginDirs, argv: args },
    {
      timeoutMs: 0,
      env,
      cwd,
      onEvent: (e) => {
        handleEvent(e as Parameters<typeof handleEvent>[0]);
        onEvent(e);
      },
      ...(stdin !== undefined ? { stdin } : {}),
      onOutput,
    },
  );
  const finished = handle.finished.then((run) => {
    if (run.fault) {
      recorder.addFault(run, command);
      record.stoppedAt ??= 'crash';
    }
    // A client that died (a plugin crash while parsing options, say) never
    // reported its end: it ends here, like the process did.
    resolveReady({ t: 'commandExit', status: run.signal ? 128 : (run.exitCode ?? 1), reason: 'crash' });
    pendingResult?.({ rc: -1, failed: true });
    return run;
  });
  return {
    record,
    ready,
    handle,
    finished,
    localUserInit: (job) =>
      new Promise((resolve) => {
        pendingResult = resolve;
        handle.send({ t: 'local_user_init', job });
      }),
    allocated: () => handle.send({ t: 'allocated' }),
    exit: (status) => handle.send({ t: 'exit', status }),
  };
}
