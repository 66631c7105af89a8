/**
 * Which mpi plugin srun runs: slurm.conf's MpiDefault as each release reads
 * it, and what the client host is told (srun itself applies --mpi and
 * SLURM_MPI_TYPE over it, natively, where Slurm does).
 */
import type { SlurmConf } from '../config/slurm-conf.js';
import type { ClientRequest } from '../host/protocol.generated.js';

type MpiRequest = NonNullable<ClientRequest['mpi']>;

/** read_config's rule for MpiDefault, per release. */
const MPI_DEFAULT_RULES: Record<'22.05' | '24.11', { unset: string | undefined; drop: (v: string) => boolean; rename: Record<string, string> }> = {
  // Unset is "none"; exactly "openmpi" becomes "none".
  '22.05': { unset: 'none', drop: () => false, rename: { openmpi: 'none' } },
  // A value containing "none" or "openmpi" (any case) is dropped: no plugin.
  '24.11': { unset: undefined, drop: (v) => /none|openmpi/i.test(v), rename: {} },
};

/** The release line of a version text ("22.05.8" → "22.05"). */
function line(slurmVersion: string): '22.05' | '24.11' {
  return slurmVersion.startsWith('22.') ? '22.05' : '24.11';
}

/** MpiDefault as srun falls back to it (undefined: no plugin). */
export function mpiDefault(value: string | undefined, slurmVersion: string): string | undefined {
  const rule = MPI_DEFAULT_RULES[line(slurmVersion)];
  if (value === undefined) return rule.unset;
  if (rule.drop(value)) return undefined;
  return rule.rename[value] ?? value;
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
