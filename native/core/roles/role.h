// The roles plugstack-host plays (DESIGN.md, "Process model"). Each takes
// the request Node sent and reports everything as events on the channel.
// The return value becomes the process's exit status.
#pragma once

#include "common/channel.h"
#include "common/json.h"

namespace plugstack {

// Loads a stack in one context, runs slurm_spank_init where that context
// runs it, and reports plugins, callbacks, options, --help text and
// problems. Used by `plugstack check` and `plugstack help`.
int runInspectRole(Channel& channel, const json::Value& request);

// Runs one node of a job step as slurmstepd does: the remote context, real
// task processes, their output and exit statuses.
int runStepdRole(Channel& channel, const json::Value& request);

// srun, sbatch or salloc up to the hand-over to the scheduler, then what
// Node asks for (local_user_init, exit).
int runClientRole(Channel& channel, const json::Value& request);

// A node daemon's SPANK life: init at start, slurmd_exit when Node says
// stop. Reports whether the stack has job prologs and epilogs.
int runSlurmdRole(Channel& channel, const json::Value& request);

// One job prolog or epilog on one node, as slurmd's helper process runs it;
// the exit status is the helper's (1 when the stack failed).
int runJobScriptRole(Channel& channel, const json::Value& request);

}  // namespace plugstack
