#include "libslurm/xmalloc.h"

#include <cstdlib>

#include "common/visibility.h"

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

extern "C" {

// xfree(p) is slurm_xfree((void **)&p): releases and clears the pointer.
PLUGSTACK_EXPORT void slurm_xfree(void** item) {
  if (!item || !*item) return;
  size_t* p = static_cast<size_t*>(*item) - 2;
  p[0] = 0;
  std::free(p);
  *item = nullptr;
}

// The same as a function of one pointer (a ListDelF).
PLUGSTACK_EXPORT void slurm_xfree_ptr(void* ptr) { slurm_xfree(&ptr); }

}  // extern "C"
