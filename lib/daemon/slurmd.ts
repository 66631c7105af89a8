/**
 * An emulated slurmd's SPANK life: a long-lived host process in slurmd
 * context. It loads the plugins that define init or slurmd_exit and runs
 * init at start (a failure stops slurmd from starting); stop() runs
 * slurmd_exit. If Node goes away first, the host sees its channel close and
 * exits without slurmd_exit, like a slurmd killed with SIGKILL.
 */
import { PlugstackError } from '../errors.js';
import type { DoneEvent, HostEvent } from '../host/events.js';
import { HookRecorder } from '../host/hook-record.js';
import { startHost, type HostRun } from '../host/host-process.js';
import { uint32 } from '../validate.js';
import type { JobScriptStack } from './job-script.js';
import type { SlurmdDaemon, SlurmdOptions, SlurmdStop } from './types.js';

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

interface StartedEvent {
  t: 'started';
  ok: boolean;
  initRc: number;
  anyJobProlog: boolean;
  anyJobEpilog: boolean;
}

export async function startSlurmd(stack: JobScriptStack, options: SlurmdOptions = {}): Promise<SlurmdDaemon> {
  const node = options.node ?? 'node0';
  const timeoutMs = uint32('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS);
  const recorder = new HookRecorder('slurmd');
  let onStarted!: (e: StartedEvent | undefined) => void;
  const startedEvent = new Promise<StartedEvent | undefined>((r) => (onStarted = r));
  let stopTimer: NodeJS.Timeout | undefined;

  const handle = startHost(
    'slurmd',
    { conf: stack.conf, context: 'slurmd', slurmVersion: stack.slurmVersion, pluginDirs: stack.pluginDirs },
    {
      // The daemon runs until stopped; start and stop have their own limits.
      timeoutMs: 0,
      env: { ...(stack.hostEnv ?? process.env), SLURMD_NODENAME: node },
      cwd: '/',
      onEvent: (e: HostEvent) => {
        recorder.add(e);
        if ((e as { t: string }).t === 'started') onStarted(e as unknown as StartedEvent);
      },
    },
  );
  const finished: Promise<HostRun> = handle.finished.then((run) => {
    if (stopTimer) clearTimeout(stopTimer);
    onStarted(undefined);
    return run;
  });
  const startTimer = setTimeout(() => handle.kill(), timeoutMs || DEFAULT_TIMEOUT_MS);
  const started = await startedEvent;
  clearTimeout(startTimer);
  if (!started) {
    const run = await finished;
    const fatal = run.events.find((e) => e.t === 'fatal');
    if (fatal && fatal.t === 'fatal') throw new PlugstackError('HOST_FAILED', `plugstack-host refused slurmd: ${fatal.message}`);
    recorder.addFault(run.fault ? run : { ...run, fault: { kind: 'timeout', timeoutMs, message: `slurmd init still running after ${timeoutMs} ms; killed` } }, `slurmd on ${node}`);
  }

  let stopped: Promise<SlurmdStop> | undefined;
  const stop = (): Promise<SlurmdStop> => {
    stopped ??= (async () => {
      if (started?.ok) {
        handle.send({ t: 'stop' });
        stopTimer = setTimeout(() => handle.kill(), timeoutMs || DEFAULT_TIMEOUT_MS);
      }
      const run = await finished;
      recorder.addFault(run, `slurmd on ${node}`);
      const done = run.done as (DoneEvent & { exitRc?: number }) | undefined;
      return { exitRc: typeof done?.exitRc === 'number' ? done.exitRc : null, ...recorder.record };
    })();
    return stopped;
  };

  return {
    node,
    started: started?.ok ?? false,
    initRc: started?.initRc ?? -1,
    runsJobProlog: started?.anyJobProlog ?? false,
    runsJobEpilog: started?.anyJobEpilog ?? false,
    record: recorder.record,
    stop,
  };
}
