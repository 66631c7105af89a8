// libslurm's set-up calls and its version. Slurm's slurm_init() reads
// slurm.conf and starts the authentication plugins; a plugstack process has
// its configuration already, so slurm_init() only notes that it ran (a
// 24.11 job prolog/epilog helper needs it: controller.h) and slurm_fini()
// does nothing.
#include <slurm/slurm.h>

#include "common/visibility.h"
#include "libslurm/controller.h"
#include "libslurm/release.h"

extern "C" {

PLUGSTACK_EXPORT void slurm_init(const char* conf) {
  (void)conf;
  plugstack::libslurm::noteInit();
}

PLUGSTACK_EXPORT void slurm_fini(void) {}

PLUGSTACK_EXPORT long slurm_api_version(void) {
  // SLURM_API_VERSION: the soname's number (libslurm.so.42 for 24.11) in
  // the top byte pair.
  const int r = static_cast<int>(plugstack::libslurm::currentRelease());
  return static_cast<long>(plugstack::releases::kIdentity[r].libslurmSoname) << 16;
}

}  // extern "C"
