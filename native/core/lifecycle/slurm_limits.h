#pragma once
// Resource limits as Slurm's processes have them (rules/releases.json,
// table "limits": names without RLIMIT_, comma-separated).
//
// slurmd sets a few soft limits to their hard ones once its slurmd_init
// callbacks have run; slurmstepd and the job prolog/epilog helper inherit
// them. srun and sbatch send their own soft limits in the job's
// environment (SLURM_RLIMIT_<NAME>, "U" first when the user asked with
// --propagate), and slurmstepd applies them to a task right before its
// execve, as the user: every plugin callback, the task prologs included,
// runs with slurmstepd's limits.

#include <cstdint>
#include <string>
#include <vector>

#include "spank/env_array.h"

namespace plugstack::slurm_limits {

// Each named soft limit set to its hard one (srun's rlimits_use_max_nofile
// with "NOFILE").
void raiseToHard(const std::string& names);

// _slurmd_init: raiseToHard in slurmd and in what inherits its limits
// (slurmstepd, the job prolog/epilog helper). The core file size among
// them usually becomes unlimited, and Slurm's slurmstepd makes itself
// dumpable: a plugin crashing there leaves a core file in its working
// directory. plugstack reports the crash instead and leaves nothing
// behind: as root its processes are made non-dumpable (a task's execve
// makes it dumpable again, as in Slurm); without root, where a job
// container's user namespace needs them dumpable, the core file size
// stays the caller's.
void raiseAsSlurmd(const std::string& names);

// One of Slurm's rlimits as a node's slurmstepd treats it.
struct TaskLimit {
  std::string name;  // CORE, NOFILE...
  int resource;
  bool propagated;  // by the node's PropagateResourceLimits[Except]
};

// The release's rlimit table (names in order) with the node's propagated
// ones flagged: worked out once, in slurmstepd, before the tasks' forks.
std::vector<TaskLimit> taskLimits(const std::string& table, const std::string& propagated);

// set_user_limits in a task's child. env: the task's environment, which
// is not changed; stepMemMb: the step's memory per node (0: none), which
// caps RLIMIT_RSS. Returns the environment to exec with: without the
// valid SLURM_RLIMIT_<NAME> variables, propagated or not (a malformed one
// stays), in a new array rather than by rewriting the environment's own
// (the child's copy of slurmstepd's memory).
std::vector<char*> applyToTask(const EnvArray& env, const std::vector<TaskLimit>& limits, uint64_t stepMemMb);

}  // namespace plugstack::slurm_limits
