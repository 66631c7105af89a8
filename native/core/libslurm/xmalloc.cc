#include "libslurm/xmalloc.h"

#include <cstdlib>

namespace plugstack::libslurm {

namespace {
constexpr size_t kMagic = 0x42;
}

void* xmallocBlock(size_t size) {
  auto* p = static_cast<size_t*>(std::calloc(1, size + 2 * sizeof(size_t)));
  if (!p) std::abort();
  p[0] = kMagic;
  p[1] = size;
  return p + 2;
}

}  // namespace plugstack::libslurm
