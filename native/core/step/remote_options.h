// The options srun forwarded, applied on the remote side as slurmstepd
// does between the init and init_post_opt passes (spank_init_remote).
#pragma once

#include <vector>

#include "spank/stack.h"
#include "step/step_spec.h"

namespace plugstack {

// 1. Each OPT_TYPE_SPANK entry of the launch request, looked up by plugin
//    and option name, gets cb(val, arg, 1); a missing option is a warning,
//    a failing callback an error message, neither is fatal.
// 2. Each cached option's "_SLURM_SPANK_OPTION_<plugin>_<option>" in the
//    job env gets the same callback and is removed from the env. Slurm
//    24.05 and later skip options already handled in step 1; 22.05 calls
//    the callback a second time.
// 3. Every _SLURM_SPANK_OPTION_* and SPANK__SLURM_SPANK_OPTION_* variable is
//    removed from the job env, with Slurm's skip-the-next-one quirk.
void applyRemoteOptions(Stack& stack, StepRecord& step, const std::vector<LaunchOption>& options);

// Step 3 alone (also what slurmd does before running the real prolog).
void clearRemoteOptionsEnv(EnvArray& env);

// Runs an option's callback the way _do_option_cb does: on success the
// option is marked found and, for options with an argument, the argument
// is kept. Returns the callback's result.
int runOptionCallback(CachedOption& option, const char* arg, int remote, const char* source);

}  // namespace plugstack
