#include "job_container/jc_daemon.h"

#include "common/slurm_log.h"

namespace plugstack {

bool JcDaemon::start() {
  if (!configured()) return true;
  JcList::Init init = list_.init();
  if (init == JcList::Init::Fatal) {
    slurmLog(LogLevel::Error, "plugin_load_and_link: Plugin loading failed due to missing symbols. Plugin is corrupted.",
             /*fatal=*/true);
    return false;
  }
  if (init == JcList::Init::Failed) {
    slurmLog(LogLevel::Error, "Unable to initialize job_container plugin.", /*fatal=*/true);
    return false;
  }
  JcCall call;
  call.process = JcProcess::Slurmd;
  call.dir = list_.settings().spoolDir;
  call.recover = recover_;
  if (list_.call(JcHook::Restore, call) != 0) slurmLog(LogLevel::Error, "Unable to restore job_container state.");
  return true;
}

bool JcDaemon::check() {
  if (!configured()) return true;
  JcList::Init init = list_.init();
  if (init == JcList::Init::Fatal) {
    slurmLog(LogLevel::Error, "plugin_load_and_link: Plugin loading failed due to missing symbols. Plugin is corrupted.",
             /*fatal=*/true);
    return false;
  }
  if (init == JcList::Init::Failed) {
    slurmLog(LogLevel::Error, "Unable to initialize job_container plugin.", /*fatal=*/true);
    return false;
  }
  list_.fini();
  return true;
}

}  // namespace plugstack
