// What differs between the emulated releases for mpi plugins, as data
// (src/common/slurm_mpi.c at slurm-22-05-8-1, src/interfaces/mpi.c at
// slurm-24-11-5-1, and their callers in srun and slurmstepd).
#pragma once

#include "rules/slurm_version.h"

namespace plugstack {

struct MpiRelease {
  unsigned line;  // 2205, 2411
  // "none" (and "openmpi", which becomes it) is a real plugin, mpi_none.so,
  // whose stubs are called (22.05); otherwise it loads nothing, every hook
  // is skipped and srun's environment gets SLURM_MPI_TYPE=none (24.11).
  bool noneIsPlugin;
  // srun loads its plugin while checking its options, before SPANK's
  // init_post_opt (22.05, _opt_verify); or after all options and
  // init_post_opt (24.11, create_srun_job).
  bool loadsBeforePostOpt;
  // The structs' layout: mpi_plugin_client_info_t / mpi_plugin_task_info_t
  // with `self` and a step id without sluid (22.05); mpi_step_info_t /
  // mpi_task_info_t, sluid first (24.11).
  bool layout2411;
  // MpiDefault when slurm.conf sets none: "none" (22.05); unset (24.11).
  const char* defaultType;
};

const MpiRelease& mpiRelease(const SlurmVersion& version);

// The hook symbols Slurm resolves, in its order; plugin_id first.
extern const char* const kMpiHooks[9];
// The names of Slurm 21.08 and older, which Slurm no longer calls.
extern const char* const kMpiOldHooks[4];

// Types whose shipped plugins need slurmstepd's or srun's internals: pmi2
// is served by plugstack's own plugin; the others are not provided.
bool mpiServedByPlugstack(const char* type);
bool mpiNotProvided(const char* type);

}  // namespace plugstack
