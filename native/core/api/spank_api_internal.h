// Helpers shared by the files that implement the exported spank_* calls.
#pragma once

#include <slurm/spank.h>

#include "rules/slurm_version.h"
#include "spank/spank_handle.h"

namespace plugstack::api {

// ESPANK_SUCCESS is a plain 0 macro in spank.h; C++ needs it typed.
constexpr spank_err_t kSuccess = static_cast<spank_err_t>(ESPANK_SUCCESS);

// Slurm's check: non-NULL with the right magic. A handle from a pass that
// has ended is refused as well, with a warning event naming the call, where
// Slurm would read whatever is left on its stack.
bool validHandle(spank_t spank, const char* function);

// The string an S_SLURM_VERSION* item returns for this version. The strings
// live as long as the process, like Slurm's build-time constants.
const char* versionString(const SlurmVersion& version, spank_item_t item);

// Emits a "warning" event: a plugin did something that Slurm would not
// survive or that is undefined there, and plugstack answered with an error.
void warnPlugin(const char* code, const std::string& message);

}  // namespace plugstack::api
