// libslurm's set-up calls and its version. Slurm's slurm_init() reads
// slurm.conf; a plugstack process has its configuration already, so both
// calls do nothing.
#include <slurm/slurm.h>

#include "common/visibility.h"
#include "libslurm/release.h"

namespace {

// SLURM_API_VERSION of each release's libslurm: its soname's number
// (libslurm.so.42 for 24.11, .38 for 22.05) in the top byte pair.
constexpr long kApiVersion[plugstack::libslurm::kReleaseCount] = {
    42L << 16,  // 24.11
    38L << 16,  // 22.05
};

}  // namespace

extern "C" {

PLUGSTACK_EXPORT void slurm_init(const char* conf) { (void)conf; }

PLUGSTACK_EXPORT void slurm_fini(void) {}

PLUGSTACK_EXPORT long slurm_api_version(void) {
  return kApiVersion[static_cast<int>(plugstack::libslurm::currentRelease())];
}

}  // extern "C"
