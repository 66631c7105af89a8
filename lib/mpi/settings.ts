/**
 * Which mpi plugin srun runs: slurm.conf's MpiDefault as each release reads
 * it, and what the client host is told (srun itself applies --mpi and
 * SLURM_MPI_TYPE over it, natively, where Slurm does).
 */
import type { SlurmConf } from '../config/slurm-conf.js';
import type { ClientRequest } from '../host/protocol.generated.js';
import { releaseRules } from '../releases.generated.js';

type MpiRequest = NonNullable<ClientRequest['mpi']>;

/** MpiDefault as srun falls back to it (undefined: no plugin): read_config's rule, per release. */
export function mpiDefault(value: string | undefined, slurmVersion: string): string | undefined {
  const rule = releaseRules(slurmVersion).mpi;
  if (value === undefined) return rule.mpiDefaultUnset ?? undefined;
  if (rule.mpiDefaultDropped !== null && new RegExp(rule.mpiDefaultDropped, 'i').test(value)) return undefined;
  return rule.mpiDefaultRenamed[value] ?? value;
}

/** The client host's mpi request: the default and where it was given. */
export function mpiRequest(slurmConf: SlurmConf | undefined, slurmVersion: string): MpiRequest {
  const value = mpiDefault(slurmConf?.keys.MpiDefault, slurmVersion);
  const where = slurmConf?.keyLines.MpiDefault;
  return {
    ...(value !== undefined ? { default: value } : {}),
    file: where?.file ?? slurmConf?.path ?? 'slurm.conf',
    line: where?.line ?? 0,
  };
}
