// Slurm's xmalloc family, which plugins reach through the xmalloc(),
// xfree() and xstrdup() macros: every block carries two size_t words in
// front of it, a magic value and the size, so that xfree() and xsize() of
// a block Slurm (here: plugstack) handed out work exactly as in Slurm.
// Strings slurm_option_get returns come from here.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "api/xmalloc_internal.h"
#include "common/visibility.h"

namespace plugstack::api {

namespace {
constexpr size_t kMagic = 0x42;
}  // namespace

void* xcalloc(size_t count, size_t size, bool clear) {
  if (size && count > (SIZE_MAX - 2 * sizeof(size_t)) / size) return nullptr;
  size_t total = count * size;
  auto* base = static_cast<size_t*>(clear ? std::calloc(1, total + 2 * sizeof(size_t))
                                          : std::malloc(total + 2 * sizeof(size_t)));
  if (!base) return nullptr;
  base[0] = kMagic;
  base[1] = total;
  return &base[2];
}

char* xstrdup(const char* text) {
  if (!text) return nullptr;
  size_t n = std::strlen(text);
  auto* out = static_cast<char*>(xcalloc(1, n + 1, false));
  if (out) std::memcpy(out, text, n + 1);
  return out;
}

}  // namespace plugstack::api

using plugstack::api::xcalloc;

extern "C" {

PLUGSTACK_EXPORT void* slurm_xcalloc(size_t count, size_t size, bool clear, bool tryOnly, const char*, int,
                                     const char*) {
  void* p = xcalloc(count, size, clear);
  // Slurm's xmalloc ends the process when memory runs out, unless asked
  // only to try.
  if (!p && !tryOnly && count != 0 && size != 0) std::abort();
  return p;
}

PLUGSTACK_EXPORT void* slurm_xrecalloc(void** item, size_t count, size_t size, bool clear, bool tryOnly,
                                       const char*, int, const char*) {
  if (!*item) return *item = slurm_xcalloc(count, size, clear, tryOnly, nullptr, 0, nullptr);
  size_t* base = static_cast<size_t*>(*item) - 2;
  size_t old = base[1];
  size_t total = count * size;
  auto* grown = static_cast<size_t*>(std::realloc(base, total + 2 * sizeof(size_t)));
  if (!grown) {
    if (!tryOnly) std::abort();
    return nullptr;
  }
  if (clear && total > old) std::memset(reinterpret_cast<char*>(&grown[2]) + old, 0, total - old);
  grown[1] = total;
  return *item = &grown[2];
}

PLUGSTACK_EXPORT void slurm_xfree(void** item) {
  if (!item || !*item) return;
  size_t* base = static_cast<size_t*>(*item) - 2;
  // A pointer that is not an xmalloc block is left alone, where Slurm
  // would assert.
  if (base[0] == 0x42) std::free(base);
  *item = nullptr;
}

// The same as a function of one pointer (a ListDelF).
PLUGSTACK_EXPORT void slurm_xfree_ptr(void* item) { slurm_xfree(&item); }

PLUGSTACK_EXPORT void slurm_xfree_array(void*** array) {
  if (!array || !*array) return;
  for (void** p = *array; *p; p++) slurm_xfree(p);
  slurm_xfree(reinterpret_cast<void**>(array));
}

PLUGSTACK_EXPORT size_t slurm_xsize(void* item) {
  return item ? (static_cast<size_t*>(item) - 2)[1] : 0;
}

PLUGSTACK_EXPORT char* slurm_xstrdup(const char* text) { return plugstack::api::xstrdup(text); }

PLUGSTACK_EXPORT char* slurm_xstrndup(const char* text, size_t n) {
  if (!text) return nullptr;
  size_t len = strnlen(text, n);
  auto* out = static_cast<char*>(xcalloc(1, len + 1, true));
  if (out) std::memcpy(out, text, len);
  return out;
}

}  // extern "C"
