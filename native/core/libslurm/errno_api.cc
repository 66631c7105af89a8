// slurm_get_errno(), which 22.05's slurm_errno.h declares and 24.11's no
// longer does (slurm_strerror, slurm_seterrno and slurm_perror are in
// rules/slurm_errors.cc).
#include <cerrno>

#include "common/visibility.h"
#include "libslurm/api_guard.h"

extern "C" PLUGSTACK_EXPORT int slurm_get_errno(void) {
  int e = errno;
  plugstack::libslurm::checkRelease("slurm_get_errno");
  return e;
}
