// The job_script role: the helper slurmd runs for each job prolog and
// epilog on each node ("slurmstepd spank prolog|epilog"). A fresh process
// each time, so nothing a plugin keeps in memory survives from one run to
// the next, nor is shared with slurmd or the steps.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/events.h"
#include "common/slurm_log.h"
#include "job_container/jc_list.h"
#include "libslurm/job_table.h"
#include "lifecycle/slurm_limits.h"
#include "lifecycle/slurm_signals.h"
#include "roles/role.h"
#include "roles/stack_request.h"
#include "spank/job_records.h"
#include "spank/stack.h"
#include "protocol/messages.h"
#include "rules/releases.h"

namespace plugstack {

namespace {

// The helper reads the job from its own environment, which slurmd built;
// each of the three must be present and a plain decimal number.
bool readIdFromEnv(const char* name, uint32_t* out) {
  const char* val = std::getenv(name);
  if (!val) {
    slurmLog(LogLevel::Error, std::string("Unable to get ") + name + " in env!");
    return false;
  }
  char* end;
  unsigned long n = std::strtoul(val, &end, 10);
  if (*end != '\0') {
    slurmLog(LogLevel::Error, std::string("Invalid ") + name + "=" + val);
    return false;
  }
  *out = static_cast<uint32_t>(n);
  return true;
}

// The helper's exit status travels in the report; the host process itself
// ends with 0 once it has reported, so that only a plugin's exit(), crash
// or hang shows up as a fault.
int finish(int status, const char* stoppedAt) {
  emitEvent({{"t", msg::kDone},
             {"ok", status == 0},
             {"status", status},
             {"stoppedAt", stoppedAt ? json::Value(stoppedAt) : json::Value()}});
  return 0;
}

}  // namespace

int runJobScriptRole(Channel& channel, const json::Value& request) {
  (void)channel;
  StackSettings settings;
  std::string error;
  const std::string mode = request["mode"].isString() ? request["mode"].asString() : "";
  if (mode != "prolog" && mode != "epilog") error = "request.mode must be prolog or epilog";
  else if (!readRoleStack(request, Context::JobScript, "job_script", &settings, &error)) {
    // The job's record as slurmctld has it while this helper runs (running
    // at the prolog, completing at the epilog): what slurm_load_job answers.
  } else if (!request["job"].isNull()) libslurm::rememberJob(request["job"], &error);
  if (!error.empty()) {
    emitEvent({{"t", msg::kFatal}, {"message", error}});
    return 2;
  }
  // What slurmd blocks, its helper has blocked from the start; its limits
  // are slurmd's.
  slurm_signals::block(releases::signals(settings.version).jobScriptBlocked);
  slurm_limits::raiseAsSlurmd(releases::limits(settings.version).slurmdRaised);

  JobScriptRecord job;
  uint32_t uid = 0, gid = 0;
  if (!readIdFromEnv("SLURM_JOBID", &job.jobId) || !readIdFromEnv("SLURM_UID", &uid) ||
      !readIdFromEnv("SLURM_JOB_GID", &gid)) {
    slurmLog(LogLevel::Error, "spank environment invalid");
    return finish(1, "environment");
  }
  job.uid = static_cast<uid_t>(uid);
  job.gid = static_cast<gid_t>(gid);

  // 22.05: slurmd's child joins the job's container before it execs the
  // helper (slurmd's plugins, slurmd's uid); a failure is only logged.
  JcSettings jc;
  if (!readJcSettings(request["jobContainer"], &jc, &error)) {
    emitEvent({{"t", msg::kFatal}, {"message", error}});
    return 2;
  }
  if (jc.present && !jc.types.empty() && jcRelease(settings.version).joinInJobScript) {
    JcList list(jc, settings.pluginDirs, settings.version);
    if (list.init() == JcList::Init::Ok) {
      JcCall call;
      call.process = JcProcess::SlurmdChild;
      call.jobId = job.jobId;
      call.uid = getuid();
      if (list.call(JcHook::Join, call) != 0)
        slurmLog(LogLevel::Error, "container_g_join(" + std::to_string(job.jobId) + "): " + std::strerror(errno));
      list.drop();
    }
  }

  ParsedConf parsed = readRequestConf(request);

  // spank_job_prolog/epilog: a stack of the plugins that define the
  // callback, only that callback (no init, no exit), then the stack is
  // destroyed. Only a negative result fails the helper.
  Stack stack(settings);
  Stack::setCurrent(&stack);
  if (!stack.load(parsed)) return finish(1, "load");
  int rc = stack.callPass(mode == "prolog" ? Phase::JobProlog : Phase::JobEpilog, &job, nullptr).rc;
  return finish(stack.isFailure(rc) ? 1 : 0, stack.isFailure(rc) ? mode.c_str() : nullptr);
}

}  // namespace plugstack
