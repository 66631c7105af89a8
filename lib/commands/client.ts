/**
 * The client host process (srun, sbatch or salloc) and the record of what
 * happened in it. The process's environment and working directory are the
 * command's, as for the real command.
 */
import type { Problem } from '../check/types.js';
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
  };
  const plugins = new Map<number, string>();
  const pluginOf = (ref: number | undefined) => (ref === undefined ? '' : (plugins.get(ref) ?? String(ref)));
  const optionEnters: { option?: string; value?: string; source?: string }[] = [];
  let resolveReady!: (e: ReadyEvent | CommandExitEvent) => void;
  const ready = new Promise<ReadyEvent | CommandExitEvent>((r) => (resolveReady = r));
  let pendingResult: ((r: { rc: number; failed: boolean }) => void) | undefined;

  const handleEvent = (e: HostEvent | ReadyEvent | CommandExitEvent | { t: 'result'; rc: number; failed: boolean }) => {
    switch (e.t) {
      case 'line':
        plugins.set(e.ref, e.configPath);
        break;
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
      case 'item': {
        const read: ClientRecord['items'][number] = { plugin: pluginOf(e.ref), hook: e.hook, item: e.item, rc: e.rc };
        if ('value' in e) read.value = e.value;
        record.items.push(read);
        break;
      }
      case 'env': {
        const change: ClientRecord['env'][number] = { plugin: pluginOf(e.ref), hook: e.hook, op: e.op, name: e.name, rc: e.rc };
        if (e.value !== undefined) change.value = e.value;
        record.env.push(change);
        break;
      }
      case 'log': {
        const line: ClientRecord['log'][number] = { source: e.source, level: e.level, message: e.msg };
        if (e.ref !== undefined) line.plugin = pluginOf(e.ref);
        if (e.hook !== undefined) line.hook = e.hook;
        record.log.push(line);
        break;
      }
      case 'problem':
      case 'warning': {
        const p: Problem = { severity: e.t === 'warning' ? 'warning' : e.severity, code: e.code, message: e.message, context };
        if (e.ref !== undefined) p.plugin = pluginOf(e.ref);
        if (e.hook !== undefined) p.hook = e.hook;
        if (e.t === 'problem' && e.rc !== undefined) p.rc = e.rc;
        record.problems.push(p);
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
      onOutput,
    },
  );
  const finished = handle.finished.then((run) => {
    if (run.fault) {
      const open = [...run.openHooks.values()].flat();
      const top = open[open.length - 1];
      const p: Problem = {
        severity: 'error',
        code: run.fault.kind === 'signal' ? 'PLUGIN_CRASHED' : run.fault.kind === 'exit' ? 'PLUGIN_EXITED' : 'HOST_FAILED',
        message: `${command}${top ? `: ${pluginOf(top.ref)} in ${top.hook}` : ''}: ${run.fault.message}`,
        context,
      };
      if (top) {
        p.plugin = pluginOf(top.ref);
        p.hook = top.hook;
      }
      if (run.fault.signal) p.signal = run.fault.signal;
      record.problems.push(p);
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
