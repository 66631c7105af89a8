/*
 * Replacements for glibc symbols newer than 2.28 that the addon and
 * libslurmhost.so reference, mostly through the static libstdc++ and
 * libgcc. See glibc_floor.h for why and how.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "glibc_floor.h"

extern "C" {

/* GLIBC_2.32. libstdc++ skips atomic operations when it says the process
 * has one thread; saying "maybe not" is always correct. */
char __wrap___libc_single_threaded = 0;

/* GLIBC_2.33 made stat, lstat and fstat real functions; before, they were
 * inline wrappers of __xstat & co. The system calls are the same
 * everywhere, and on 64-bit Linux the kernel's struct stat is glibc's. */
static int stat_at(int dirfd, const char* path, struct stat64* buf, int flags) {
  return (int)syscall(SYS_newfstatat, dirfd, path, buf, flags);
}
int __wrap_stat64(const char* path, struct stat64* buf) { return stat_at(AT_FDCWD, path, buf, 0); }
int __wrap_lstat64(const char* path, struct stat64* buf) { return stat_at(AT_FDCWD, path, buf, AT_SYMLINK_NOFOLLOW); }
int __wrap_fstat64(int fd, struct stat64* buf) { return (int)syscall(SYS_fstat, fd, buf); }
int __wrap_stat(const char* path, struct stat64* buf) { return __wrap_stat64(path, buf); }
int __wrap_lstat(const char* path, struct stat64* buf) { return __wrap_lstat64(path, buf); }
int __wrap_fstat(int fd, struct stat64* buf) { return __wrap_fstat64(fd, buf); }

/* GLIBC_2.34 moved the pthread functions from libpthread into libc under
 * a new version; the old versions still resolve (from libpthread.so.0,
 * which binding.gyp links for older systems). */
extern int plugstack_pthread_once(pthread_once_t*, void (*)(void));
extern int plugstack_pthread_key_create(pthread_key_t*, void (*)(void*));
PLUGSTACK_PIN_BASE(plugstack_pthread_once, pthread_once);
PLUGSTACK_PIN_BASE(plugstack_pthread_key_create, __pthread_key_create);
int __wrap_pthread_once(pthread_once_t* once, void (*fn)(void)) { return plugstack_pthread_once(once, fn); }
int __wrap___pthread_key_create(pthread_key_t* key, void (*fn)(void*)) { return plugstack_pthread_key_create(key, fn); }

/* GLIBC_2.36. libstdc++'s random_device takes its numbers from here. */
uint32_t __wrap_arc4random(void) {
  uint32_t v = 0;
  if (syscall(SYS_getrandom, &v, sizeof v, 0) == (long)sizeof v) return v;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ssize_t n = read(fd, &v, sizeof v);
    close(fd);
    if (n == (ssize_t)sizeof v) return v;
  }
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint32_t)(ts.tv_nsec ^ ((uint32_t)getpid() << 16));
}

#ifdef DLFO_STRUCT_HAS_EH_DBASE
/* GLIBC_2.35. The static libgcc's unwinder finds a function's unwind
 * tables through it when the build machine's glibc has it; before 2.35 it
 * walked the loaded objects with dl_iterate_phdr, which this does too. */
struct find_object {
  uintptr_t pc;
  struct dl_find_object* out;
};

static int find_object_in(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  struct find_object* f = static_cast<struct find_object*>(data);
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  const ElfW(Phdr)* eh = nullptr;
  int inside = 0;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD) {
      uintptr_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;
      if (start < lo) lo = start;
      if (end > hi) hi = end;
      if (f->pc >= start && f->pc < end) inside = 1;
    } else if (ph->p_type == PT_GNU_EH_FRAME) {
      eh = ph;
    }
  }
  if (!inside) return 0;
  memset(f->out, 0, sizeof *f->out);
  f->out->dlfo_map_start = reinterpret_cast<void*>(lo);
  f->out->dlfo_map_end = reinterpret_cast<void*>(hi);
  f->out->dlfo_eh_frame = eh ? reinterpret_cast<void*>(info->dlpi_addr + eh->p_vaddr) : nullptr;
  return 1;
}

int __wrap__dl_find_object(void* pc, struct dl_find_object* result) {
  struct find_object f = {reinterpret_cast<uintptr_t>(pc), result};
  return dl_iterate_phdr(find_object_in, &f) ? 0 : -1;
}
#endif

}  // extern "C"
