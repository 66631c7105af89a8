/**
 * check of a slurm.conf's mpi plugins: every mpi_*.so of PluginDir (and
 * plugstack's own) loaded as slurmd loads them at start, in a slurmd host
 * that does only that (their init() and fini() run), and whether
 * MpiDefault's type is among those that load.
 */
import fs from 'node:fs';
import { pluginFileSite, type PluginSite } from '../check/plugin-site.js';
import type { MpiCheck } from '../check/types.js';
import type { SlurmConf } from '../config/slurm-conf.js';
import { runHost } from '../host/host-process.js';
import { processRecord } from '../host/process-record.js';
import { daemonMpiPlugins } from './record.js';
import { mpiConfPath, mpiConfEvents } from './conf.js';

export async function checkMpi(
  stack: { conf: string; slurmVersion: string; pluginDirs: readonly string[] },
  slurmConf: SlurmConf,
  timeoutMs: number,
  env: NodeJS.ProcessEnv | undefined,
): Promise<MpiCheck> {
  const run = await runHost(
    'slurmd',
    {
      conf: stack.conf,
      context: 'slurmd',
      slurmVersion: stack.slurmVersion,
      pluginDirs: stack.pluginDirs,
      mpiCheck: true,
      // slurmd reads mpi.conf beside slurm.conf: its bad lines are reported here too.
      ...(mpiConfPath(slurmConf.path) ? { mpiConf: mpiConfPath(slurmConf.path)! } : {}),
    },
    { label: 'mpi check', timeoutMs, ...(env ? { env } : {}) },
  );
  const record = processRecord(run, 'slurmd');
  const plugins = daemonMpiPlugins(run.events);
  for (const c of mpiConfEvents(run.events)) {
    const p = plugins.find((x) => x.loaded && x.type === c.type);
    if (p && c.options.length) p.confOptions = c.options;
  }
  const confPath = mpiConfPath(slurmConf.path)!;
  const wanted = slurmConf.mpiDefault ?? null;
  const types = (t: string | null) => (t === 'openmpi' ? 'none' : t);
  const problems = [...record.problems];
  if (wanted !== null && !plugins.some((p) => p.loaded && p.type === types(wanted)))
    problems.push({
      severity: 'error',
      code: 'MPI_DEFAULT_NOT_LOADED',
      message: `MpiDefault=${wanted}: no mpi_${types(wanted)}.so loads from PluginDir; every srun without --mpi stops ("Invalid MPI type")`,
      context: 'local',
      ...(slurmConf.keyLines.MpiDefault ? { file: slurmConf.keyLines.MpiDefault.file, line: slurmConf.keyLines.MpiDefault.line } : {}),
    });
  return {
    default: wanted,
    ok: run.done?.ok === true && !problems.some((p) => p.severity === 'error' && p.code === 'MPI_DEFAULT_NOT_LOADED'),
    plugins,
    mpiConf: { path: confPath, exists: fs.existsSync(confPath) },
    problems,
    log: record.log,
  };
}

/**
 * `plugstack check mpi_NAME.so`: an mpi plugin is found by its file name, so
 * it is checked as a site with that file alone in PluginDir and
 * MpiDefault=NAME (slurmd loads it, srun would run it), beside an empty
 * plugstack.conf. null for a file that is not named as an mpi plugin.
 */
export function mpiPluginSite(file: string): PluginSite | null {
  return pluginFileSite(file, 'mpi', (name) => [`MpiDefault=${name}`]);
}
