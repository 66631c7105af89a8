#include "libslurm/release.h"

#include "spank/stack.h"

namespace plugstack::libslurm {

Release currentRelease() {
  const Stack* stack = Stack::current();
  if (stack && stack->version().line() == 2205) return Release::S2205;
  return Release::S2411;
}

const char* releaseName(Release r) { return r == Release::S2411 ? "24.11" : "22.05"; }

}  // namespace plugstack::libslurm
