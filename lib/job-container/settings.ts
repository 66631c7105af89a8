/**
 * What a slurm.conf says about job_container plugins, as the hosts are told
 * it (the request's "jobContainer"): JobContainerType's plugins (Slurm's
 * list rules are slurm-conf.ts's), where the key is, PrologFlags,
 * SlurmdParameters=contain_spank and SlurmdSpoolDir (restore's directory).
 */
import type { SlurmConf } from '../config/slurm-conf.js';

export interface JobContainerSettings {
  types: string[];
  file: string;
  line: number;
  prologFlags?: string[];
  containSpank?: boolean;
  spoolDir?: string;
  /** The slurm.conf (job_container.conf is read beside it). */
  slurmConf?: string;
  recover?: boolean;
  /** 24.11: what slurmd's send_stepd wrote for one slurmstepd (hex), and whether it failed. */
  stepdData?: string;
  stepdSendFailed?: boolean;
}

/** Slurm's compiled-in SlurmdSpoolDir (upstream default). */
export const DEFAULT_SLURMD_SPOOL_DIR = '/var/spool/slurmd';

/** The request section for a slurm.conf; undefined when it names no job_container plugin. */
export function jobContainerSettings(conf: SlurmConf | undefined): JobContainerSettings | undefined {
  if (!conf || conf.jobContainerTypes.length === 0) return undefined;
  const where = conf.keyLines.JobContainerType ?? { file: conf.path, line: 0 };
  return {
    types: [...conf.jobContainerTypes],
    file: where.file,
    line: where.line,
    prologFlags: [...conf.prologFlags],
    containSpank: conf.slurmdParameters.some((p) => p.toLowerCase() === 'contain_spank'),
    spoolDir: conf.slurmdSpoolDir ?? DEFAULT_SLURMD_SPOOL_DIR,
    slurmConf: conf.path,
  };
}

/** PrologFlags=Contain (Slurm reads the flags case-insensitively). */
export function containsJobs(conf: SlurmConf | undefined): boolean {
  return !!conf && conf.prologFlags.some((f) => /^contain$/i.test(f));
}
