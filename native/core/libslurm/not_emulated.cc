// Every function of Slurm's public headers that plugstack does not answer,
// defined so that a plugin calling one gets Slurm's error value for it (and
// errno PLUGSTACK_ELIBSLURM_NOT_EMULATED) instead of dying of an undefined
// symbol. The list is generated (api_table.inc): the functions marked
// implemented are defined elsewhere in this folder.
//
// A stub ignores its arguments. In the x86-64 and AArch64 calling
// conventions the caller owns the argument registers and stack, so a
// definition without parameters serves any declaration; the return type
// only decides which register carries the failure value: 0 and -1 in the
// integer register serve int, long, ssize_t, uint32_t and pointers alike
// (no public function returns a floating-point value or a struct).
//
// The stubs are weak: code elsewhere in libslurmhost.so that starts
// answering one of these functions takes its place without a link error;
// it should then be declared in include/slurm/slurm.h and the table
// regenerated (test/libslurm-stubs.test.ts compares the two).
#include "common/visibility.h"
#include "libslurm/api_guard.h"

#define LIBSLURM_TYPE_V void
#define LIBSLURM_TYPE_P void*
#define LIBSLURM_TYPE_I long
#define LIBSLURM_TYPE_U unsigned long
#define LIBSLURM_FAIL_V
#define LIBSLURM_FAIL_P nullptr
#define LIBSLURM_FAIL_I -1L
#define LIBSLURM_FAIL_U 0UL

#define LIBSLURM_STUB_1(name, failure)
#define LIBSLURM_STUB_0(name, failure)                                        \
  __attribute__((weak)) PLUGSTACK_EXPORT LIBSLURM_TYPE_##failure name() {     \
    plugstack::libslurm::notEmulated(#name);                                  \
    return LIBSLURM_FAIL_##failure;                                           \
  }
#define LIBSLURM_FUNCTION(name, failure, releases, implemented, header) \
  LIBSLURM_STUB_##implemented(name, failure)

extern "C" {
#include "libslurm/api_table.inc"
}
