/**
 * What the mpi plugin did, read from the hosts' "mpi" events: which plugin
 * (type, file, plugin_id), and each hook call with the process it ran in
 * (srun, a node's slurmstepd, a task before exec), its result and what it
 * changed in the environment it was handed.
 */
import type { HostEvent } from '../host/protocol.js';

export type MpiHook = 'client_prelaunch' | 'client_fini' | 'slurmstepd_prefork' | 'slurmstepd_task';

export interface MpiEnvChange {
  op: 'set' | 'unset';
  name: string;
  value?: string;
}

export interface MpiCall {
  hook: MpiHook;
  /** srun (client_prelaunch, client_fini), a node's slurmstepd (prefork), a task's process before exec (task). */
  process: 'srun' | 'slurmstepd' | 'task';
  node?: number;
  /** Global task id (slurmstepd_task). */
  task?: number;
  /** The hook's result; client_prelaunch has ok instead (NULL fails it). */
  rc?: number;
  ok?: boolean;
  /** What the hook changed in the environment it was handed (client_prelaunch: its one-slot array). */
  changes: MpiEnvChange[];
  /** The hook left that array broken (not terminated, an entry without '=', not Slurm's allocation). */
  envBroken?: string;
}

/** What one rank did with plugstack's PMI server (mpi/pmi2). */
export interface PmiRank {
  rank: number;
  node: number;
  /** The PMI version it asked for at init ("1.1", "2.0"); null: it never spoke to the server. */
  version: string | null;
  connected: boolean;
  finalized: boolean;
  /** It called abort (exitCode: its code); the step's tasks were killed, as Slurm's pmi2 does. */
  aborted: boolean;
  exitCode?: number;
  /** The size it was told. */
  size?: number;
  /** With pmiTrace: every line, both ways, in order. */
  lines?: { from: 'rank' | 'server'; text: string }[];
  /** Lines past the per-rank limit that were not kept. */
  dropped?: number;
}

export interface MpiRecord {
  /** The type srun chose ("pmi2"); null when no plugin runs (24.11's none). */
  type: string | null;
  /** The plugin file srun (or the first node) loaded. */
  plugin?: string;
  pluginId?: number;
  calls: MpiCall[];
  /** plugstack's pmi2: each rank's dealings with the PMI server, by rank. */
  ranks?: PmiRank[];
}

type MpiEvent = Extract<HostEvent, { t: 'mpi' }>;

/** Folds one process's mpi events into record; gtidOf maps a local task id. */
export function addMpiEvents(
  record: MpiRecord,
  events: readonly HostEvent[],
  where: { process: 'srun' | 'slurmstepd'; node?: number; gtidOf?: (local: number) => number | undefined },
): void {
  const paths = new Map<number, string>();
  let ranked = false;
  for (const e of events) {
    if (e.t === 'plugin' && e.loaded) paths.set(e.ref, e.path);
    if (e.t === 'pmi') {
      const r: PmiRank = { rank: e.rank, node: where.node ?? 0, version: e.version, connected: e.connected, finalized: e.finalized, aborted: e.aborted };
      if (e.exitCode !== undefined) r.exitCode = e.exitCode;
      if (e.size !== undefined) r.size = e.size;
      if (e.lines !== undefined) r.lines = e.lines.map((l) => ({ from: l.from, text: l.text }));
      if (e.dropped !== undefined) r.dropped = e.dropped;
      (record.ranks ??= []).push(r);
      ranked = true;
      continue;
    }
    if (e.t !== 'mpi') continue;
    const m = e as MpiEvent;
    if (m.hook === 'load') {
      record.type ??= m.type ?? null;
      record.plugin ??= paths.get(m.ref);
      if (record.pluginId === undefined && m.pluginId !== undefined) record.pluginId = m.pluginId;
      continue;
    }
    if (m.hook === 'select') continue;
    const call: MpiCall = {
      hook: m.hook,
      process: m.hook === 'slurmstepd_task' ? 'task' : where.process,
      changes: (m.changes ?? []).map((c) => ({ op: c.op, name: c.name, ...(c.value !== undefined ? { value: c.value } : {}) })),
    };
    if (where.node !== undefined) call.node = where.node;
    if (m.task !== undefined) {
      const gtid = where.gtidOf?.(m.task);
      if (gtid !== undefined) call.task = gtid;
    }
    if (m.rc !== undefined) call.rc = m.rc;
    if (m.ok !== undefined) call.ok = m.ok;
    if (m.envBroken !== undefined) call.envBroken = m.envBroken;
    record.calls.push(call);
  }
  // In rank order, once (a stable sort: ranks reported twice keep their order).
  if (ranked) record.ranks!.sort((a, b) => a.rank - b.rank);
  if (record.plugin === undefined) delete record.plugin;
}

/** An empty record of a type. */
export function mpiRecord(type: string | null): MpiRecord {
  return { type, calls: [] };
}

/**
 * srun's record and its step's, as one: srun's choice of plugin, then
 * client_prelaunch, the nodes' calls, client_fini.
 */
export function mergeMpiRecords(client: MpiRecord | undefined, step: MpiRecord | undefined): MpiRecord | undefined {
  if (!client) return step;
  const out: MpiRecord = { ...client, calls: [] };
  out.calls.push(...client.calls.filter((c) => c.hook === 'client_prelaunch'));
  if (step) out.calls.push(...step.calls);
  out.calls.push(...client.calls.filter((c) => c.hook === 'client_fini'));
  if (step?.ranks) out.ranks = step.ranks;
  return out;
}

/** An mpi plugin as slurmd loaded it at start (every mpi_*.so of PluginDir). */
export interface DaemonMpiPlugin {
  /** "pmi2", without "mpi/". */
  type: string;
  /** The file loaded, or the type when none was found. */
  path: string;
  loaded: boolean;
  pluginId?: number;
  /** Why it did not load (PLUGIN_INIT_FAILED, PLUGIN_VERSION_MISMATCH, ...). */
  code?: string;
  /** The mpi.conf keys its conf_options declared (type: S_P_STRING, ...). */
  confOptions?: { key: string; type: string }[];
}

/** The mpi plugins a daemon's events name, in load order. */
export function daemonMpiPlugins(events: readonly HostEvent[]): DaemonMpiPlugin[] {
  const byRef = new Map<number, DaemonMpiPlugin>();
  for (const e of events) {
    if (e.t === 'line' && e.kind === 'mpi') byRef.set(e.ref, { type: e.configPath.replace(/^mpi\//, ''), path: e.configPath, loaded: false });
    const p = byRef.get((e as { ref?: number }).ref ?? -1);
    if (!p) continue;
    if (e.t === 'plugin') {
      p.path = e.path;
      p.loaded = e.loaded;
      if (e.code !== undefined) p.code = e.code;
    }
    if (e.t === 'mpi' && e.hook === 'load' && e.pluginId !== undefined) p.pluginId = e.pluginId;
  }
  return [...byRef.values()];
}
