#pragma once
// The user's login environment, as slurmd loads it for a batch job whose
// environment carries SLURM_GET_USER_ENV=1 (sbatch --get-user-env, and any
// --export other than ALL): slurmd's _get_user_env calls Slurm's
// env_array_user_default, which runs
//
//   su - <user> -c "/bin/echo; ...; /bin/echo <start>; slurmstepd getenv; /bin/echo <stop>"
//
// and keeps what slurmstepd printed between the two marks: the login
// shell's soft limits as SLURM_RLIMIT_<NAME>, then its environment.
// slurmd merges the job's environment over it (the job's values win, the
// login's variables come first).

#include <string>
#include <vector>

namespace plugstack::user_env {

struct Loaded {
  bool ok = false;
  std::vector<std::string> env;  // in the order su's shell printed them
};

// env_array_user_default(user, timeoutSec, 0, ...): su's output read for at
// most timeoutSec seconds (then su's process group is killed), parsed as
// Slurm parses it. getenv: the command that prints the environment, its
// words (our `plugstack-host getenv ...`, for slurmstepd's). What goes
// wrong is logged with Slurm's lines; ok is false then.
Loaded loadDefault(const std::string& user, const std::vector<std::string>& getenv, int timeoutSec);

// `slurmstepd getenv` (print_rlimits, then environ): what
// `plugstack-host getenv <rlimit table>` prints. Returns its exit status.
int printLoginEnv(const std::string& rlimitTable);

}  // namespace plugstack::user_env
