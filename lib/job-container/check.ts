/**
 * check of a slurm.conf's job_container plugins: JobContainerType's
 * plugins loaded as slurmd loads them at start (job_container_init: init()
 * runs, every hook of the release is required), in a slurmd host that does
 * only that and unloads them again (restore is not called: it may create
 * and remove directories).
 */
import { pluginFileSite, type PluginSite } from '../check/plugin-site.js';
import type { JobContainerCheck } from '../check/types.js';
import type { SlurmConf } from '../config/slurm-conf.js';
import { runHost } from '../host/host-process.js';
import { processRecord } from '../host/process-record.js';
import { daemonJobContainerPlugins } from './record.js';
import { jobContainerSettings } from './settings.js';

export async function checkJobContainer(
  stack: { conf: string; slurmVersion: string; pluginDirs: readonly string[] },
  slurmConf: SlurmConf,
  timeoutMs: number,
  env: NodeJS.ProcessEnv | undefined,
): Promise<JobContainerCheck | undefined> {
  const jobContainer = jobContainerSettings(slurmConf);
  if (!jobContainer) return undefined;
  const run = await runHost(
    'slurmd',
    { conf: stack.conf, context: 'slurmd', slurmVersion: stack.slurmVersion, pluginDirs: stack.pluginDirs, jobContainerCheck: true, jobContainer },
    { label: 'job_container check', timeoutMs, ...(env ? { env } : {}) },
  );
  const record = processRecord(run, 'slurmd');
  const plugins = daemonJobContainerPlugins(run.events);
  return {
    types: jobContainer.types.map((t) => `job_container/${t}`),
    ok: run.done?.ok === true,
    plugins,
    problems: record.problems,
    log: record.log,
  };
}

/**
 * `plugstack check job_container_NAME.so`: a job_container plugin is found
 * by its file name, so it is checked as a site with that file alone in
 * PluginDir and JobContainerType=job_container/NAME, beside an empty
 * plugstack.conf. null for a file that is not named as one.
 */
export function jobContainerPluginSite(file: string): PluginSite | null {
  return pluginFileSite(file, 'job_container', (name) => [`JobContainerType=job_container/${name}`, 'PrologFlags=Contain']);
}
