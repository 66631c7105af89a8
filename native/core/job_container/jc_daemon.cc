#include "job_container/jc_daemon.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "common/events.h"
#include "common/slurm_log.h"
#include "protocol/messages.h"
#include "rules/slurm_errors.h"

namespace plugstack {

// slurmd's load of JobContainerType: a plugin that does not load ends it.
bool JcDaemon::load() {
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
  return true;
}

// slurmd's restore: a failure is only logged.
void JcDaemon::restore(JcCall call) {
  call.dir = list_.settings().spoolDir;
  call.recover = recover_;
  if (list_.call(JcHook::Restore, call) != 0) slurmLog(LogLevel::Error, "Unable to restore job_container state.");
}

bool JcDaemon::start() {
  if (!configured()) return true;
  if (!load()) return false;
  JcCall call;
  call.process = JcProcess::Slurmd;
  restore(call);
  return true;
}

bool JcDaemon::op(const std::string& op, uint32_t jobId, uid_t uid) {
  if (!configured()) return true;
  if (list_.init() != JcList::Init::Ok) {
    slurmLog(LogLevel::Error, "Unable to initialize job_container plugin.", /*fatal=*/true);
    return false;
  }
  JcCall call;
  call.process = JcProcess::Slurmd;
  call.jobId = jobId;
  call.uid = uid;
  if (op == "restore") {
    restore(call);
  } else if (op == "create" && list_.has(JcHook::Create)) {
    if (list_.call(JcHook::Create, call) != 0)
      slurmLog(LogLevel::Error, "container_g_create(" + std::to_string(jobId) + "): " + slurmErrorText(errno));
  } else if (op == "delete" && list_.has(JcHook::Delete)) {
    if (list_.call(JcHook::Delete, call) != 0)
      slurmLog(LogLevel::Error, "container_g_delete(" + std::to_string(jobId) + "): " + slurmErrorText(errno));
  } else if (op == "send_stepd" && list_.has(JcHook::SendStepd)) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0) return false;
    fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    call.fd = fds[1];
    int rc = list_.call(JcHook::SendStepd, call);
    close(fds[1]);
    std::string data;
    char buf[4096];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0) data.append(buf, static_cast<size_t>(n));
    close(fds[0]);
    if (rc != 0)
      slurmLog(LogLevel::Error, "_send_slurmstepd_init: container_g_send_stepd(" + std::to_string(fds[1]) +
                                    ") failed: " + slurmErrorText(errno));
    static const char* hex = "0123456789abcdef";
    std::string text;
    for (unsigned char c : data) {
      text.push_back(hex[c >> 4]);
      text.push_back(hex[c & 15]);
    }
    emitEvent(Event(msg::kJobContainer)
                  .add("ref", kJcRefBase - 1)
                  .add("hook", "send_stepd")
                  .add("process", "slurmd")
                  .add("rc", rc)
                  .add("data", text)
                  .add("pid", currentPid())
                  .add("mntNs", static_cast<long long>(currentMountNamespace())));
  }
  // slurmd keeps its plugins: no fini here.
  return true;
}

bool JcDaemon::check() {
  if (!configured()) return true;
  if (!load()) return false;
  list_.fini();
  return true;
}

}  // namespace plugstack
