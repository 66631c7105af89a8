// The checks srun, sbatch and salloc share (Slurm's
// validate_options_salloc_sbatch_srun in slurm_opt.c), the first thing each
// command's _opt_verify does: after cli_filter's pre_submit (which sees the
// options before them) and before init_post_opt.
//
// They read and change the command's slurm_opt_t (the OptionStore): which
// options are set, by the command line or by the environment, and their
// values. A conflict ends the command with fatal() (exit 1, the exit
// callbacks of sbatch and salloc running as for any exit); some resets
// quietly drop what the environment gave when the command line gave its
// rival; -S and --thread-spec are ignored, with an error line, unless
// slurm.conf has AllowSpecResourcesUsage=YES. Which checks a release runs
// is releases::client(v).sharedChecks.
#pragma once

#include "cli_filter/option_store.h"

namespace plugstack {

struct SharedCheckSettings {
  // slurm.conf's AllowSpecResourcesUsage (Slurm's default: no).
  bool allowSpecResources = false;
  // SelectTypeParameters makes memory a consumable resource (CR_*_Memory,
  // or cons_tres's default); only 24.11's -v lines read it.
  bool memoryConsumable = false;
};

// Runs the checks; Slurm's lines are logged as the commands write them.
// Returns 0 to go on, else the status the command ends with.
int validateSharedOptions(OptionStore& store, const SharedCheckSettings& settings);

}  // namespace plugstack
