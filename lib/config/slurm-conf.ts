/**
 * A site's slurm.conf as plugstack reads it (the parser is the core's,
 * native/core/config/slurm_conf.cc, with Slurm's rules): the keys that
 * decide which plugins run and how, and the nodes and partitions that shape
 * the emulated cluster. Keys plugstack does not use are accepted silently,
 * as long as Slurm knows them; problems carry file and line.
 */
import path from 'node:path';
import { SELECT_PLUGIN_IDS, type ControllerAddress } from '../cluster/names.js';
import { releaseRules } from '../releases.generated.js';
import { native, type NativeDiagnostic } from '../native/binding.js';
import { slurmConfNodes, type SlurmConfNode, type SlurmConfPartition } from './slurm-conf-nodes.js';
import { mpiDefault } from '../mpi/settings.js';
import { configuredPropagation } from '../cluster/limits.js';

/** Slurm's compiled-in PluginDir when slurm.conf sets none (upstream default). */
export const DEFAULT_PLUGIN_DIR = '/usr/local/lib/slurm';

export type { SlurmConfNode, SlurmConfPartition };

export interface SlurmConf {
  /** Absolute path of the slurm.conf read. */
  path: string;
  /** The file does not exist (Slurm's commands cannot run without it). */
  missing: boolean;
  /** False when srun, sbatch and salloc would stop on the file ("Unable to process configuration file"). */
  ok: boolean;
  /**
   * False when slurmctld would stop at its start on the file's nodes or
   * partitions (slurm-conf-nodes.ts): the commands read the file, then
   * cannot reach a controller.
   */
  controllerOk: boolean;
  /** The problems of problems that are slurmctld's (its fatal() at its start, and plugstack's own limit on the nodes it emulates). */
  controllerProblems: NativeDiagnostic[];
  /** PluginDir, ':'-separated in the file; Slurm's default when unset. */
  pluginDirs: string[];
  /** PlugStackConfig, absolute; default: plugstack.conf beside slurm.conf. */
  plugStackConfig: string;
  /** CliFilterPlugins, each without its "cli_filter/" prefix ("none" dropped, as Slurm does). */
  cliFilterPlugins: string[];
  /** MpiDefault as srun falls back to it in the release read for (22.05: "none" when unset, "openmpi" is "none"; 24.11: absent when it names no plugin). */
  mpiDefault?: string;
  /** JobContainerType, each without its "job_container/" prefix ("none" dropped). */
  jobContainerTypes: string[];
  /** PrologFlags and SlurmdParameters, as lists of flags. */
  prologFlags: string[];
  slurmdParameters: string[];
  slurmdSpoolDir?: string;
  /** The rlimits jobs get from srun and sbatch (PropagateResourceLimits, or all but PropagateResourceLimitsExcept's; default all), in Slurm's order. */
  propagatedLimits: string[];
  /** KillOnBadExit: srun kills a step once one of its tasks ends badly (-K overrides it). */
  killOnBadExit: boolean;
  /** JobFileAppend: a job's output files are appended to, not truncated (--open-mode overrides it). */
  jobFileAppend: boolean;
  /** SelectType, or the release's default when unset (22.05: select/linear; 24.11: select/cons_tres). */
  selectType: string;
  /** slurmctld's address and port and the select plugin's id, as SLURM_WORKING_CLUSTER names them. */
  controller: ControllerAddress;
  /** PrologEpilogTimeout in seconds, when set (Slurm's default is no limit). */
  prologEpilogTimeout?: number;
  clusterName?: string;
  nodes: SlurmConfNode[];
  partitions: SlurmConfPartition[];
  /** The partition jobs go to when they name none (Default=YES; without one, a job must name its partition). */
  defaultPartition?: SlurmConfPartition;
  /** Every key as written (last one wins for a key given twice), by Slurm's spelling. */
  keys: Record<string, string>;
  /** Where each key was given (the file may be an Include). */
  keyLines: Record<string, { file: string; line: number }>;
  problems: NativeDiagnostic[];
}

/** Slurm's rule for a plugin list value: a value containing "none" (any case) names none. */
function pluginList(value: string | undefined, prefix: string): string[] {
  if (!value || /none/i.test(value)) return [];
  return value
    .split(',')
    .filter((v) => v !== '')
    .map((v) => (v.startsWith(`${prefix}/`) ? v.slice(prefix.length + 1) : v));
}

/** A boolean key as Slurm reads it (yes, up, true or 1 in any case); fallback when the key is not given. */
export function slurmConfBoolean(conf: SlurmConf | undefined, key: string, fallback = false): boolean {
  const value = conf?.keys[key];
  return value === undefined ? fallback : /^(yes|up|true|1)$/i.test(value);
}

/**
 * SelectTypeParameters makes memory a consumable resource: one of its items is CR_Memory or
 * CR_<Socket|Core|CPU>_Memory, or, without it, SelectType is cons_tres (24.11's default, whose
 * default parameters are CR_Core_Memory).
 */
export function memoryConsumable(conf: SlurmConf): boolean {
  const params = conf.keys.SelectTypeParameters;
  if (params !== undefined) return params.split(',').some((p) => /^CR_((Socket|Core|CPU)_)?Memory$/i.test(p));
  return conf.selectType.includes('cons_tres');
}

/** SelectTypeParameters has MULTIPLE_SHARING_GRES_PJ (24.11's --gres-flags=one-task-per-sharing needs it). */
export function multipleSharingGres(conf: SlurmConf): boolean {
  return (conf.keys.SelectTypeParameters ?? '').split(',').some((p) => /^MULTIPLE_SHARING_GRES_PJ$/i.test(p));
}

function flags(value: string | undefined): string[] {
  return value ? value.split(',').filter((v) => v !== '') : [];
}

/**
 * slurmctld's address as the commands read it: SlurmctldAddr, else the
 * first SlurmctldHost line's address (`name(address)`), else its name; the
 * first port of SlurmctldPort (default 6817); the select plugin's id.
 */
function controllerAddress(keys: readonly { key: string; value: string }[], records: readonly { kind: string; name: string }[], selectType: string): ControllerAddress {
  const host = records.find((r) => r.kind === 'SlurmctldHost')?.name ?? 'localhost';
  const last = (key: string) => [...keys].reverse().find((k) => k.key === key)?.value;
  const addr = last('SlurmctldAddr') ?? /\(([^)]*)\)/.exec(host)?.[1] ?? host.replace(/\(.*$/, '');
  const port = Number.parseInt(last('SlurmctldPort') ?? '6817', 10);
  return { address: addr, port: Number.isFinite(port) ? port : 6817, selectPluginId: SELECT_PLUGIN_IDS[selectType] ?? SELECT_PLUGIN_IDS['select/linear']! };
}

export function readSlurmConf(file: string, slurmVersion: string): SlurmConf {
  const absolute = path.resolve(file);
  const parsed = native().parseSlurmConf(absolute, slurmVersion);
  const keys: Record<string, string> = {};
  const keyLines: Record<string, { file: string; line: number }> = {};
  for (const k of parsed.keys) {
    keys[k.key] = k.value;
    keyLines[k.key] = { file: k.file, line: k.line };
  }
  const dir = path.dirname(absolute);
  const cluster = slurmConfNodes(parsed.records, slurmVersion);
  const { nodes, partitions } = cluster;
  const number = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined);

  const conf: SlurmConf = {
    path: absolute,
    missing: parsed.missing,
    ok: parsed.ok && !parsed.missing,
    controllerOk: !cluster.problems.some((p) => p.severity === 'error'),
    controllerProblems: cluster.problems,
    pluginDirs: keys.PluginDir ? keys.PluginDir.split(':').filter((d) => d !== '') : [DEFAULT_PLUGIN_DIR],
    plugStackConfig: keys.PlugStackConfig ? path.resolve(dir, keys.PlugStackConfig) : path.join(dir, 'plugstack.conf'),
    cliFilterPlugins: pluginList(keys.CliFilterPlugins, 'cli_filter'),
    jobContainerTypes: pluginList(keys.JobContainerType, 'job_container'),
    prologFlags: flags(keys.PrologFlags),
    slurmdParameters: flags(keys.SlurmdParameters),
    propagatedLimits: [],
    killOnBadExit: Number.parseInt(keys.KillOnBadExit ?? '0', 10) > 0,
    selectType: keys.SelectType ?? releaseRules(slurmVersion).identity.selectTypeDefault,
    controller: { address: '', port: 0, selectPluginId: 0 },
    jobFileAppend: Number.parseInt(keys.JobFileAppend ?? '0', 10) > 0,
    nodes,
    partitions,
    keys,
    keyLines,
    problems: [...parsed.diagnostics, ...cluster.problems],
  };
  const propagation = configuredPropagation(keys, slurmVersion);
  conf.propagatedLimits = propagation.propagated;
  if (propagation.bad !== undefined) {
    // A bad name fails the file's validation: no command runs with it.
    const key = propagation.key!;
    conf.problems.push({
      kind: 'diagnostic',
      severity: 'error',
      code: 'SLURM_CONF_BAD_VALUE',
      message: `${key} = "${keys[key]}": Bad rlimit name: ${propagation.bad}`,
      ...keyLines[key],
      slurmLog: [
        { level: 'error', text: `Bad rlimit name: ${propagation.bad}` },
        { level: 'error', text: `Bad ${key}: ${keys[key]}` },
      ],
    });
    conf.ok = false;
  }
  conf.controller = controllerAddress(parsed.keys, parsed.records, conf.selectType);
  const mpi = mpiDefault(keys.MpiDefault, slurmVersion);
  if (mpi !== undefined) conf.mpiDefault = mpi;
  if (keys.SlurmdSpoolDir) conf.slurmdSpoolDir = keys.SlurmdSpoolDir;
  const timeout = number(keys.PrologEpilogTimeout);
  if (timeout !== undefined) conf.prologEpilogTimeout = timeout;
  // Slurm lowercases the cluster's name.
  if (keys.ClusterName) conf.clusterName = keys.ClusterName.toLowerCase();
  const dflt = partitions.find((p) => p.default);
  if (dflt) conf.defaultPartition = dflt;
  return conf;
}
