// The five SPANK contexts; the values are spank_context_t's.
#pragma once

#include <optional>
#include <string_view>

#include <slurm/spank.h>

namespace plugstack {

enum class Context {
  Local = S_CTX_LOCAL,          // srun
  Remote = S_CTX_REMOTE,        // slurmstepd
  Allocator = S_CTX_ALLOCATOR,  // sbatch, salloc
  Slurmd = S_CTX_SLURMD,        // slurmd
  JobScript = S_CTX_JOB_SCRIPT, // prolog/epilog helper
};

const char* contextName(Context c);  // "local", "remote", ..., "job_script"
std::optional<Context> contextByName(std::string_view name);

}  // namespace plugstack
