// The jobs the emulated controller told this process about. Node sends
// the job record with the request of a stepd (its step's job) and with
// srun's local_user_init; slurm_load_job and friends answer from here, so
// a plugin sees the record of the job the command created -- the same one
// in a batch step and in the sruns inside it -- without a round trip to
// Node (a forked task child must never read the channel it shares with
// its stepd).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/json.h"

namespace plugstack::libslurm {

// Keeps a valid job (replacing one with the same job_id); false with
// *error when the record is malformed.
bool rememberJob(const json::Value& job, std::string* error);

const json::Value* knownJob(uint32_t jobId);
std::vector<const json::Value*> knownJobs();

}  // namespace plugstack::libslurm
