/**
 * What the job_container plugins did, read from the hosts' "jobContainer"
 * events: each hook call with the Slurm process it ran in, the node and
 * task, its arguments, its result and the mount namespace the process was
 * in afterwards (what no Slurm shows).
 */
import type { HostEvent } from '../host/protocol.js';

export type JobContainerHook =
  | 'create'
  | 'add_cont'
  | 'join'
  | 'join_external'
  | 'delete'
  | 'restore'
  | 'reconfig'
  | 'stepd_create'
  | 'stepd_delete'
  | 'send_stepd'
  | 'recv_stepd';

/** The Slurm process a hook ran in. */
export type JobContainerProcess = 'slurmd' | 'slurmd_child' | 'slurmstepd' | 'task' | 'spank_child' | 'script' | 'check';

export interface JobContainerCall {
  /** The plugin's type, "job_container/tmpfs". */
  plugin: string;
  hook: JobContainerHook;
  process: JobContainerProcess;
  node?: number;
  /** The step of the slurmstepd it ran in (the extern step is 4294967292). */
  step?: number;
  /** Global task id. */
  task?: number;
  /** contain_spank: the SPANK callback whose child it ran in. */
  spank?: string;
  rc?: number;
  /** join_external's result: a namespace fd (<= 0: none). */
  fd?: number;
  jobId?: number;
  stepId?: number;
  stepHetComp?: number;
  stepCreate?: boolean;
  uid?: number;
  dir?: string;
  recover?: boolean;
  pid: number;
  /**
   * The mount namespace the process was in after the call: the kernel's id
   * of it (Linux 6.8 on; never reused), else the inode of /proc/<pid>/ns/mnt
   * (which a later namespace may get once this one is gone).
   */
  mntNs: number;
}

export interface JobContainerRecord {
  /** JobContainerType's plugins, "job_container/tmpfs", in order. */
  types: string[];
  calls: JobContainerCall[];
}

type JcEvent = Extract<HostEvent, { t: 'jobContainer' }>;

/** Folds one process's job_container events into record. */
export function addJobContainerEvents(
  record: JobContainerRecord,
  events: readonly HostEvent[],
  where: { node?: number; step?: number; gtidOf?: (local: number) => number | undefined } = {},
): void {
  const types = new Map<number, string>();
  for (const e of events) {
    if (e.t === 'line' && e.kind === 'job_container') types.set(e.ref, e.configPath);
    if (e.t !== 'jobContainer') continue;
    const j = e as JcEvent;
    // The bytes send_stepd wrote, on their way to a slurmstepd: not a call.
    if (j.data !== undefined) continue;
    const call: JobContainerCall = { plugin: types.get(j.ref) ?? '?', hook: j.hook, process: j.process, pid: j.pid, mntNs: j.mntNs };
    if (where.node !== undefined) call.node = where.node;
    if (where.step !== undefined) call.step = where.step;
    if (j.task !== undefined) {
      const gtid = where.gtidOf ? where.gtidOf(j.task) : j.task;
      if (gtid !== undefined) call.task = gtid;
    }
    for (const k of ['spank', 'rc', 'fd', 'jobId', 'stepId', 'stepHetComp', 'stepCreate', 'uid', 'dir', 'recover'] as const)
      if (j[k] !== undefined) (call as unknown as Record<string, unknown>)[k] = j[k];
    record.calls.push(call);
  }
}

/** A job_container plugin as a daemon loaded it. */
export interface DaemonJobContainerPlugin {
  /** "tmpfs", without "job_container/". */
  type: string;
  /** The file loaded, or the type when none was found. */
  path: string;
  loaded: boolean;
  /** Why it did not load (PLUGIN_VERSION_MISMATCH, JOB_CONTAINER_MISSING_HOOKS, ...). */
  code?: string;
}

/** The job_container plugins a daemon's events name, in load order. */
export function daemonJobContainerPlugins(events: readonly HostEvent[]): DaemonJobContainerPlugin[] {
  const byRef = new Map<number, DaemonJobContainerPlugin>();
  for (const e of events) {
    if (e.t === 'line' && e.kind === 'job_container')
      byRef.set(e.ref, { type: e.configPath.replace(/^job_container\//, ''), path: e.configPath, loaded: false });
    const p = byRef.get((e as { ref?: number }).ref ?? -1);
    if (!p || e.t !== 'plugin') continue;
    p.path = e.path;
    p.loaded = e.loaded;
    if (e.code !== undefined) p.code = e.code;
  }
  return [...byRef.values()];
}
