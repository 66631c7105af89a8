// The slurm_hostlist_* functions: those slurm.h declares, and the other
// ones libslurm.so exports (iterators, nth, pop, delete, copy), so that a
// plugin linked with -lslurm never hands one of plugstack's hostlists to
// the real library. The rules of the emulated release apply (hostlist.h).
// Strings are malloc()ed, as Slurm's are, except the _xmalloc one (Slurm's
// xmalloc layout, api/xmalloc_api.cc: xfree() releases it).
#include <sys/types.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "common/visibility.h"
#include "libslurm/api_guard.h"
#include "libslurm/hostlist_log.h"
#include "api/xmalloc_internal.h"

using plugstack::libslurm::HostList;

struct hostlist {
  HostList list;
};

// An iterator is the list's cursor itself (the list owns it), behind
// Slurm's opaque type.
struct hostlist_iterator;

namespace {

using namespace plugstack::libslurm;

char* dup(const std::string& s) { return strdup(s.c_str()); }

HostList::Cursor* cursor(hostlist_iterator* i) { return reinterpret_cast<HostList::Cursor*>(i); }

hostlist* create(const char* expression) {
  auto* hl = new hostlist;
  if (!parseAndLog(hl->list, expression, hostlistRules(currentRelease()))) {
    delete hl;
    return nullptr;  // errno EINVAL
  }
  return hl;
}

}  // namespace

extern "C" {

PLUGSTACK_EXPORT hostlist* slurm_hostlist_create(const char* str) { return create(str); }

PLUGSTACK_EXPORT hostlist* slurm_hostlist_create_dims(const char* str, int dims) {
  (void)dims;  // plugstack's clusters are one-dimensional
  return create(str);
}

PLUGSTACK_EXPORT hostlist* slurm_hostlist_copy(hostlist* hl) { return hl ? new hostlist{hl->list} : nullptr; }

PLUGSTACK_EXPORT void slurm_hostlist_destroy(hostlist* hl) {
  delete hl;
}

PLUGSTACK_EXPORT int slurm_hostlist_count(hostlist* hl) { return hl ? hl->list.count() : -1; }

PLUGSTACK_EXPORT int slurm_hostlist_find(hostlist* hl, const char* hostname) {
  return hl && hostname ? hl->list.find(hostname) : -1;
}

PLUGSTACK_EXPORT int slurm_hostlist_find_dims(hostlist* hl, const char* hostname, int dims) {
  (void)dims;
  return slurm_hostlist_find(hl, hostname);
}

PLUGSTACK_EXPORT int slurm_hostlist_push(hostlist* hl, const char* hosts) {
  if (!hl || !hosts) return 0;
  hostlist* add = create(hosts);
  if (!add) return 0;
  int n = add->list.count();
  hl->list.pushList(add->list);
  delete add;
  return n;
}

PLUGSTACK_EXPORT int slurm_hostlist_push_host(hostlist* hl, const char* str) {
  return hl && str ? hl->list.pushHost(str) : 0;
}

PLUGSTACK_EXPORT int slurm_hostlist_push_host_dims(hostlist* hl, const char* str, int dims) {
  (void)dims;
  return slurm_hostlist_push_host(hl, str);
}

PLUGSTACK_EXPORT int slurm_hostlist_push_list(hostlist* h1, hostlist* h2) {
  return h1 && h2 ? h1->list.pushList(h2->list) : 0;
}

PLUGSTACK_EXPORT char* slurm_hostlist_shift(hostlist* hl) {
  std::string host;
  return hl && hl->list.shift(&host) ? dup(host) : nullptr;
}

PLUGSTACK_EXPORT char* slurm_hostlist_shift_dims(hostlist* hl, int dims) {
  (void)dims;
  return slurm_hostlist_shift(hl);
}

PLUGSTACK_EXPORT char* slurm_hostlist_pop(hostlist* hl) {
  std::string host;
  return hl && hl->list.pop(&host) ? dup(host) : nullptr;
}

PLUGSTACK_EXPORT char* slurm_hostlist_nth(hostlist* hl, int n) {
  std::string host;
  return hl && hl->list.nth(n, &host) ? dup(host) : nullptr;
}

PLUGSTACK_EXPORT int slurm_hostlist_delete_nth(hostlist* hl, int n) { return hl ? hl->list.deleteNth(n) : -1; }

PLUGSTACK_EXPORT int slurm_hostlist_delete_host(hostlist* hl, const char* hostname) {
  if (!hl) return -1;
  int n = hostname ? hl->list.find(hostname) : -1;
  if (n >= 0) hl->list.deleteNth(n);
  return n >= 0 ? 1 : 0;
}

PLUGSTACK_EXPORT int slurm_hostlist_delete(hostlist* hl, const char* hosts) {
  if (!hl) return -1;
  hostlist* gone = create(hosts);
  if (!gone) return 0;
  int n = 0;
  std::string host;
  while (gone->list.pop(&host)) n += slurm_hostlist_delete_host(hl, host.c_str());
  delete gone;
  return n;
}

PLUGSTACK_EXPORT void slurm_hostlist_uniq(hostlist* hl) {
  if (hl) hl->list.uniq();
}

PLUGSTACK_EXPORT ssize_t slurm_hostlist_ranged_string(hostlist* hl, size_t n, char* buf) {
  if (!hl || !buf) return -1;
  return hl->list.ranged(n, buf);
}

PLUGSTACK_EXPORT ssize_t slurm_hostlist_ranged_string_dims(hostlist* hl, size_t n, char* buf, int dims,
                                                           int brackets) {
  (void)dims;
  (void)brackets;
  return slurm_hostlist_ranged_string(hl, n, buf);
}

// 22.05 only.
PLUGSTACK_EXPORT char* slurm_hostlist_ranged_string_malloc(hostlist* hl) {
  checkRelease("slurm_hostlist_ranged_string_malloc");
  return hl ? dup(hl->list.ranged()) : nullptr;
}

PLUGSTACK_EXPORT char* slurm_hostlist_ranged_string_xmalloc(hostlist* hl) {
  std::string s = hl ? hl->list.ranged() : std::string();
  // Slurm's buffer starts at 8 KiB and doubles.
  size_t size = 8192;
  while (size <= s.size()) size *= 2;
  auto* buf = static_cast<char*>(plugstack::api::xcalloc(1, size, true));
  if (!buf) std::abort();  // as xmalloc
  std::memcpy(buf, s.c_str(), s.size() + 1);
  return buf;
}

PLUGSTACK_EXPORT hostlist_iterator* slurm_hostlist_iterator_create(hostlist* hl) {
  if (!hl) return nullptr;
  return reinterpret_cast<hostlist_iterator*>(hl->list.newCursor());
}

PLUGSTACK_EXPORT void slurm_hostlist_iterator_reset(hostlist_iterator* i) {
  if (i) cursor(i)->reset();
}

PLUGSTACK_EXPORT void slurm_hostlist_iterator_destroy(hostlist_iterator* i) {
  if (!i) return;
  cursor(i)->owner->dropCursor(cursor(i));
}

PLUGSTACK_EXPORT char* slurm_hostlist_next(hostlist_iterator* i) {
  std::string host;
  return i && cursor(i)->owner->next(cursor(i), &host) ? dup(host) : nullptr;
}

}  // extern "C"
