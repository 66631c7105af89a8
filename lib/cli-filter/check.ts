/**
 * check of the cli_filter plugins a slurm.conf names: they are loaded as
 * srun, sbatch and salloc load them (the same list in each), in a client
 * host that stops there. cli_filter/lua reads and runs the site's
 * cli_filter.lua at load, so its problems show here too.
 */
import type { CliFilterCheck, Problem } from '../check/types.js';
import type { SlurmConf } from '../config/slurm-conf.js';
import { runHost } from '../host/host-process.js';
import { processRecord } from '../host/process-record.js';
import { cliFilterRequest, type CliFilterOptions } from './settings.js';

export async function checkCliFilter(
  stack: { conf: string; slurmVersion: string; pluginDirs: readonly string[] },
  slurmConf: SlurmConf,
  options: CliFilterOptions,
  timeoutMs: number,
  env: NodeJS.ProcessEnv | undefined,
): Promise<CliFilterCheck | undefined> {
  const request = cliFilterRequest(slurmConf, options);
  if (!request) return undefined;
  const run = await runHost(
    'client',
    {
      conf: stack.conf,
      context: 'local',
      command: 'srun',
      slurmVersion: stack.slurmVersion,
      pluginDirs: stack.pluginDirs,
      argv: [],
      checkOnly: true,
      cliFilter: request,
    },
    { label: 'cli_filter check', timeoutMs, ...(env ? { env } : {}) },
  );
  const record = processRecord(run, 'local');
  const plugins: CliFilterCheck['plugins'] = [];
  for (const p of run.record.plugins.values()) {
    const loaded = p.loaded;
    plugins.push({
      type: p.configPath,
      file: p.file,
      line: p.line,
      path: loaded?.path ?? p.configPath,
      loaded: loaded?.loaded ?? false,
      ...(loaded?.code ? { code: loaded.code } : {}),
      ...(loaded?.version !== undefined ? { version: loaded.version } : {}),
    });
  }
  const problems: Problem[] = record.problems;
  return {
    commands: ['srun', 'sbatch', 'salloc'],
    ok: !problems.some((p) => p.severity === 'error'),
    plugins,
    problems,
    log: record.log,
  };
}
