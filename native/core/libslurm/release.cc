#include "libslurm/release.h"

#include "spank/stack.h"

namespace plugstack::libslurm {

Release currentRelease() {
  const Stack* stack = Stack::current();
  return static_cast<Release>(stack ? releaseIndex(stack->version()) : 0);
}

const char* releaseName(Release r) { return releases::kReleases[static_cast<int>(r)].name; }

}  // namespace plugstack::libslurm
