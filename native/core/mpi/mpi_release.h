// mpi plugins: what differs between the emulated releases (the mpi table of
// rules/releases.json), the hook names Slurm resolves, and the types
// plugstack serves itself.
#pragma once

#include "rules/releases.h"

namespace plugstack {

// The mpi table of rules/releases.json.
using MpiRelease = releases::Mpi;

inline const MpiRelease& mpiRelease(const SlurmVersion& version) { return releases::mpi(version); }

// The hook symbols Slurm resolves, in its order; plugin_id first.
extern const char* const kMpiHooks[9];
// The names of Slurm 21.08 and older, which Slurm no longer calls.
extern const char* const kMpiOldHooks[4];

// Types whose shipped plugins need slurmstepd's or srun's internals: pmi2
// is served by plugstack's own plugin; the others are not provided.
bool mpiServedByPlugstack(const char* type);
bool mpiNotProvided(const char* type);

}  // namespace plugstack
