/**
 * mpi.conf as slurmd reads it when it starts (mpi_g_daemon_init): every
 * mpi plugin loaded, its keys asked for, mpi.conf read into each plugin's
 * table, conf_set, then conf_get's table packed for the slurmstepds of
 * that plugin's steps. plugstack runs that in a slurmd host of its own
 * before a step with an mpi plugin, and keeps its answer (in memory and in
 * the user's state directory, as slurmd-scan.ts keeps its scans) for as
 * long as what it read is unchanged: mpi.conf and the files it includes,
 * every mpi_*.so along PluginDir and plugstack's own. A slurmd that stops
 * on mpi.conf is not kept: every step tries again and says why.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Problem } from '../check/types.js';
import { startHost, type HostHandle } from '../host/host-process.js';
import { processRecord } from '../host/process-record.js';
import type { HostEvent } from '../host/protocol.js';
import { hostExecutable } from '../native/paths.js';
import { fileState, KeptAnswers } from '../cluster/kept-answers.js';
import { slurmdEnv } from '../cluster/command-env.js';

/** The mpi.conf beside a slurm.conf (get_extra_conf_path); none without a slurm.conf. */
export function mpiConfPath(slurmConfPath: string | undefined): string | undefined {
  return slurmConfPath ? path.join(path.dirname(path.resolve(slurmConfPath)), 'mpi.conf') : undefined;
}

/** One mpi plugin's part of mpi.conf, as slurmd saw it. */
export interface MpiPluginConf {
  type: string;
  pluginId: number;
  /** The keys its conf_options declared, with their types (S_P_STRING, ...). */
  options: { key: string; type: string }[];
  /** conf_get's table, packed for its slurmstepds (hex); absent: conf_get returned NULL. */
  data?: string;
}

export interface SlurmdMpiConf {
  /** slurmd started: mpi.conf was read and every conf_get packed. */
  ok: boolean;
  plugins: MpiPluginConf[];
  problems: Problem[];
  log: { level: string; message: string }[];
  /** The kept answer was used (no slurmd ran). */
  kept?: boolean;
}

export interface MpiConfStack {
  conf: string;
  slurmVersion: string;
  pluginDirs: readonly string[];
  hostEnv?: NodeJS.ProcessEnv | undefined;
  /** mpiConfPath(slurm.conf). */
  mpiConf?: string | undefined;
  /** slurmd's environment (command-env.ts), which its plugins see; default: from hostEnv. */
  daemonEnv?: Record<string, string>;
}

/** The plugins' conf events of a slurmd's run. */
export function mpiConfEvents(events: readonly HostEvent[]): MpiPluginConf[] {
  const out: MpiPluginConf[] = [];
  for (const e of events)
    if (e.t === 'mpiConf')
      out.push({ type: e.type, pluginId: e.pluginId, options: e.options.map((o) => ({ key: o.key, type: o.type })), ...(e.data !== undefined ? { data: e.data } : {}) });
  return out;
}

const kept = new KeptAnswers<MpiPluginConf[]>('mpi-conf', (v): v is MpiPluginConf[] => Array.isArray(v));
const TIMEOUT_MS = 60_000;

function mpiPluginFiles(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((f) => /^mpi_.*\.so$/.test(f))
      .sort()
      .map((f) => path.join(dir, f));
  } catch {
    return [];
  }
}

/** What slurmd's reading depends on, as it is now. */
function fingerprint(stack: MpiConfStack): string {
  const parts: string[] = [];
  const files: string[] = [];
  if (stack.mpiConf) {
    files.push(stack.mpiConf);
    // Include lines (one level is what sites use; deeper ones are read too but not watched).
    try {
      for (const m of fs.readFileSync(stack.mpiConf, 'utf8').matchAll(/^\s*include\s+(\S+)/gim))
        files.push(path.isAbsolute(m[1]!) ? m[1]! : path.join(path.dirname(stack.mpiConf), m[1]!));
    } catch {
      // no mpi.conf
    }
  }
  let builtin = '';
  try {
    builtin = path.join(path.dirname(hostExecutable()), 'mpi');
  } catch {
    // reported when a host starts
  }
  for (const dir of [...stack.pluginDirs, builtin]) {
    parts.push(`dir ${dir}=${fileState(dir)}`);
    files.push(...mpiPluginFiles(dir));
  }
  for (const f of files) parts.push(`${f}=${fileState(f)}`);
  return parts.join('\n');
}

/**
 * slurmd's mpi.conf for a stack: a slurmd host the first time, and
 * whenever what it read has changed.
 */
export async function slurmdMpiConf(stack: MpiConfStack, owner?: { track(handle: HostHandle): HostHandle }): Promise<SlurmdMpiConf> {
  // slurmd's own environment, never the caller's.
  const env = stack.daemonEnv ?? slurmdEnv(stack.hostEnv, stack.hostEnv?.SLURM_CONF);
  const key = JSON.stringify([stack.slurmVersion, stack.pluginDirs, stack.mpiConf ?? null, env.LD_LIBRARY_PATH ?? null, env.LD_PRELOAD ?? null]);
  const now = fingerprint(stack);
  const plugins = kept.get(key, now);
  if (plugins) return { ok: true, plugins, problems: [], log: [], kept: true };
  const handle = startHost(
    'slurmd',
    {
      conf: stack.conf,
      context: 'slurmd',
      slurmVersion: stack.slurmVersion,
      pluginDirs: [...stack.pluginDirs],
      mpiCheck: true,
      ...(stack.mpiConf ? { mpiConf: stack.mpiConf } : {}),
    },
    { label: `slurmd's mpi.conf`, timeoutMs: TIMEOUT_MS, env: { ...env }, cwd: '/' },
  );
  owner?.track(handle);
  const run = await handle.finished;
  const record = processRecord(run, 'slurmd');
  const read = mpiConfEvents(run.events);
  const ok = run.done?.ok === true && !run.fault;
  if (ok) kept.set(key, now, read);
  return { ok, plugins: read, problems: record.problems, log: record.log.map((l) => ({ level: l.level, message: l.message })) };
}
