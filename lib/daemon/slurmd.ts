/**
 * An emulated slurmd's SPANK life: a long-lived host process in slurmd
 * context. It loads the plugins that define init or slurmd_exit and runs
 * init at start (a failure stops slurmd from starting); stop() runs
 * slurmd_exit. Start and stop each have a time limit: a plugin that hangs in
 * init or slurmd_exit is reported as a timeout of that hook. If Node goes
 * away first, the host sees its channel close and exits without
 * slurmd_exit, like a slurmd killed with SIGKILL.
 */
import { PlugstackError } from '../errors.js';
import { startHost, type HostRun } from '../host/host-process.js';
import { processRecord, snapshot } from '../host/process-record.js';
import type { HostEvent, StartedEvent } from '../host/protocol.js';
import { uint32 } from '../validate.js';
import { daemonMpiPlugins } from '../mpi/record.js';
import { mpiConfPath } from '../mpi/conf.js';
import { addJobContainerEvents, type JobContainerRecord } from '../job-container/record.js';
import { jobContainerSettings } from '../job-container/settings.js';
import { slurmdEnv } from '../cluster/command-env.js';
import type { JobScriptStack } from './job-script.js';
import type { SlurmdDaemon, SlurmdOptions, SlurmdStop } from './types.js';

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

export async function startSlurmd(stack: JobScriptStack, options: SlurmdOptions = {}): Promise<SlurmdDaemon> {
  const node = options.node ?? 'node0';
  const timeoutMs = uint32('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS) || DEFAULT_TIMEOUT_MS;
  let onStarted!: (e: StartedEvent | undefined) => void;
  const startedEvent = new Promise<StartedEvent | undefined>((r) => (onStarted = r));
  let phaseTimer: NodeJS.Timeout | undefined;
  const startEvents: HostEvent[] = [];
  const jobContainer = jobContainerSettings(stack.slurmConf);
  if (jobContainer && options.cleanStart) jobContainer.recover = false;

  const handle = startHost(
    'slurmd',
    {
      conf: stack.conf,
      context: 'slurmd',
      slurmVersion: stack.slurmVersion,
      pluginDirs: stack.pluginDirs,
      ...(jobContainer ? { jobContainer } : {}),
      ...(mpiConfPath(stack.slurmConfPath) ? { mpiConf: mpiConfPath(stack.slurmConfPath)! } : {}),
    },
    {
      label: `slurmd on ${node}`,
      // The daemon runs until stopped; start and stop have their own limits.
      timeoutMs: 0,
      daemon: true,
      // slurmd's own environment: the stack's env, else a service's (PATH
      // only), with the SLURM_CONF it read, never the caller's (a real
      // slurmd has PATH and SLURM_CONF, no SLURMD_NODENAME).
      env: slurmdEnv(stack.hostEnv, stack.slurmConfPath ?? stack.hostEnv?.SLURM_CONF),
      cwd: '/',
      onEvent: (e: HostEvent) => {
        if (e.t === 'started') onStarted(e);
        else if (e.t === 'line' || e.t === 'plugin' || e.t === 'mpi' || e.t === 'jobContainer') startEvents.push(e);
      },
    },
  );
  const finished: Promise<HostRun> = handle.finished.then((run) => {
    if (phaseTimer) clearTimeout(phaseTimer);
    onStarted(undefined);
    return run;
  });
  phaseTimer = setTimeout(() => handle.kill('timeout'), timeoutMs);
  const started = await startedEvent;
  clearTimeout(phaseTimer);
  if (!started) {
    const run = await finished;
    const fatal = run.events.find((e) => e.t === 'fatal');
    if (fatal && fatal.t === 'fatal') throw new PlugstackError('HOST_FAILED', `plugstack-host refused slurmd: ${fatal.message}`);
  }

  let stopped: Promise<SlurmdStop> | undefined;
  const stop = (): Promise<SlurmdStop> => {
    stopped ??= (async () => {
      if (started?.ok) {
        handle.send({ t: 'stop' });
        phaseTimer = setTimeout(() => handle.kill('timeout'), timeoutMs);
      }
      const run = await finished;
      const done = run.done;
      // fini's calls (and any after start) join restore's in the same record.
      if (jcRecord) {
        jcRecord.calls.length = 0;
        addJobContainerEvents(jcRecord, run.events);
      }
      return { exitRc: typeof done?.exitRc === 'number' ? done.exitRc : null, ...processRecord(run, 'slurmd') };
    })();
    return stopped;
  };

  let jcRecord: JobContainerRecord | undefined;
  if (jobContainer) {
    jcRecord = { types: jobContainer.types.map((t) => `job_container/${t}`), calls: [] };
    addJobContainerEvents(jcRecord, startEvents);
  }
  const result: SlurmdDaemon = {
    node,
    started: started?.ok ?? false,
    initRc: started?.initRc ?? -1,
    runsJobProlog: started?.anyJobProlog ?? false,
    runsJobEpilog: started?.anyJobEpilog ?? false,
    get record() {
      return snapshot(handle.record, 'slurmd');
    },
    mpi: daemonMpiPlugins(startEvents),
    ...(jcRecord ? { jobContainer: jcRecord } : {}),
    stop,
  };
  if (!started) {
    // slurmd never started: what it did up to its end, fault included.
    const run = await finished;
    const whole = processRecord(run, 'slurmd');
    Object.defineProperty(result, 'record', { value: whole });
  }
  return result;
}
