/**
 * `plugstack check KIND_NAME.so` for the plugins slurm.conf names by type
 * (mpi_NAME.so, job_container_NAME.so): the file is checked as a site with
 * it alone in PluginDir, slurm.conf naming it as the kind's key does, beside
 * an empty plugstack.conf. null for a file that is not named as one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface PluginSite {
  slurmConf: string;
  conf: string;
  link: string;
  dispose(): void;
}

export function pluginFileSite(file: string, kind: string, keys: (name: string) => string[]): PluginSite | null {
  const m = new RegExp(`^${kind}_(.+)\\.so$`).exec(path.basename(file));
  if (!m) return null;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `plugstack-check-${kind}-`));
  const plugins = path.join(dir, 'plugins');
  fs.mkdirSync(plugins);
  const link = path.join(plugins, path.basename(file));
  fs.symlinkSync(path.resolve(file), link);
  const conf = path.join(dir, 'plugstack.conf');
  fs.writeFileSync(conf, '');
  const slurmConf = path.join(dir, 'slurm.conf');
  fs.writeFileSync(slurmConf, [`PluginDir=${plugins}`, ...keys(m[1]!), `PlugStackConfig=${conf}`, ''].join('\n'));
  return { slurmConf, conf, link, dispose: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
