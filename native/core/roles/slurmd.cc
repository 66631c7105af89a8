// The slurmd role: the SPANK part of a node daemon's life. The stack of
// the plugins that define init or slurmd_exit is loaded and init runs at
// start; the process then waits until Node stops it, when slurmd_exit
// runs. Whether job prologs and epilogs run SPANK at all is decided here,
// by the scan of the whole plugstack.conf.
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "common/events.h"
#include "common/slurm_log.h"
#include "job_container/jc_daemon.h"
#include "lifecycle/slurm_limits.h"
#include "lifecycle/slurm_signals.h"
#include "lifecycle/user_env.h"
#include "mpi/mpi_daemon.h"
#include "rules/releases.h"
#include "rules/slurm_errors.h"
#include "roles/role.h"
#include "roles/stack_request.h"
#include "spank/stack.h"
#include "protocol/messages.h"

namespace plugstack {

int runSlurmdRole(Channel& channel, const json::Value& request) {
  StackSettings settings;
  std::string error;
  if (!readRoleStack(request, Context::Slurmd, "slurmd", &settings, &error)) {
    emitEvent({{"t", msg::kFatal}, {"message", error}});
    return 2;
  }
  JcSettings jcSettings;
  if (!readJcSettings(request["jobContainer"], &jcSettings, &error)) {
    emitEvent({{"t", msg::kFatal}, {"message", error}});
    return 2;
  }
  // A one-off call of slurmd's for a job, in a process of its own: slurmd
  // is past its start-up then, with its raised limits and its signals.
  const releases::Signals& signals = releases::signals(settings.version);
  const auto pastStartUp = [&] {
    slurm_limits::raiseAsSlurmd(releases::limits(settings.version).slurmdRaised);
    slurm_signals::block(signals.slurmdBlockedAfterInit);
    slurm_signals::catchIgnoring(signals.slurmdCaughtAfterInit);
  };
  if (request["jobContainerOp"].isObject()) {
    pastStartUp();
    const json::Value& op = request["jobContainerOp"];
    JcDaemon jc(std::move(jcSettings), settings.pluginDirs, settings.version, true);
    bool ok = jc.op(op["op"].asString(), static_cast<uint32_t>(op["jobId"].asNumber()),
                    static_cast<uid_t>(op["uid"].asNumber()));
    emitEvent({{"t", msg::kDone}, {"ok", ok}, {"status", ok ? 0 : 1}});
    return 0;
  }
  // _get_user_env for a batch job (lifecycle/user_env.h): su and the login
  // shell inherit slurmd's limits and signals.
  if (request["userEnvOp"].isObject()) {
    pastStartUp();
    const json::Value& op = request["userEnvOp"];
    const std::string user = op["user"].asString();
    slurmLog(LogLevel::Verbose, "_get_user_env: get env for user " + user + " here");
    // `slurmstepd getenv` (here this program's), or env where that is not
    // there (then without the limits); slurmd ends when neither is.
    std::vector<std::string> getenv;
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    struct stat st;
    if (n > 0 && (self[n] = '\0', stat(self, &st) == 0))
      getenv = {self, "getenv", releases::limits(settings.version).propagated};
    else if (stat("/bin/env", &st) == 0)
      getenv = {"/bin/env"};
    else if (stat("/usr/bin/env", &st) == 0)
      getenv = {"/usr/bin/env"};
    user_env::Loaded loaded;
    if (getenv.empty())
      slurmLog(LogLevel::Error, "Could not locate command: env", true);
    else
      loaded = user_env::loadDefault(user, getenv, static_cast<int>(op["timeoutSec"].asNumber()));
    if (!loaded.ok)
      slurmLog(LogLevel::Error, "_get_user_env: Unable to get user's local environment, running only with passed environment");
    json::Array env;
    for (const std::string& e : loaded.env) env.push_back(e);
    emitEvent({{"t", msg::kUserEnv}, {"ok", loaded.ok}, {"env", std::move(env)}});
    emitEvent({{"t", msg::kDone}, {"ok", loaded.ok}, {"status", loaded.ok ? 0 : 1}});
    return 0;
  }
  // plugstack check: only the job_container plugins, loaded as slurmd loads them.
  if (request["jobContainerCheck"].isBool() && request["jobContainerCheck"].asBool()) {
    JcDaemon jc(std::move(jcSettings), settings.pluginDirs, settings.version, false);
    bool ok = jc.check();
    emitEvent({{"t", msg::kDone}, {"ok", ok}, {"status", ok ? 0 : 1}});
    return 0;
  }
  // plugstack check: only the mpi plugins, loaded as slurmd loads them.
  if (request["mpiCheck"].isBool() && request["mpiCheck"].asBool()) {
    setMpiEmulatedVersion(settings.version);
    MpiDaemon mpi(settings.pluginDirs, settings.version, request["mpiConf"].asString());
    bool ok = mpi.init();
    if (ok) mpi.fini();
    // slurmd would end (status 1) when ok is false; the check itself did its job.
    emitEvent({{"t", msg::kDone}, {"ok", ok}, {"status", ok ? 0 : 1}});
    return 0;
  }
  ParsedConf parsed = readRequestConf(request);

  // Never destroyed when start-up fails: slurmd exit(1)s without fini.
  auto* stack = new Stack(settings);
  Stack::setCurrent(stack);
  bool ok = stack->load(parsed);
  int initRc = ok ? stack->callPass(Phase::Init, nullptr, nullptr).rc : -1;
  // Right after spank_slurmd_init, whatever it returned: CPU, core and
  // open files to their hard limits. job_container and mpi come later.
  slurm_limits::raiseAsSlurmd(releases::limits(settings.version).slurmdRaised);
  ok = ok && !stack->isFailure(initRc);
  if (!ok) slurmLog(LogLevel::Error, "slurmd initialization failed");
  // After SPANK's init: job_container_init and container_g_restore, then
  // every mpi plugin (mpi_g_daemon_init).
  bool recover = !(request["jobContainer"]["recover"].isBool() && !request["jobContainer"]["recover"].asBool());
  // Never destroyed when slurmd ends early (fatal): no fini, as in Slurm.
  auto* jc = new JcDaemon(std::move(jcSettings), settings.pluginDirs, settings.version, recover);
  if (ok && !jc->start()) ok = false;
  setMpiEmulatedVersion(settings.version);
  MpiDaemon mpi(settings.pluginDirs, settings.version, request["mpiConf"].asString());
  if (ok && !mpi.init()) ok = false;
  emitEvent({{"t", msg::kStarted},
             {"ok", ok},
             {"initRc", initRc},
             {"anyJobProlog", stack->anyJobProlog()},
             {"anyJobEpilog", stack->anyJobEpilog()}});
  if (!ok) {
    emitEvent({{"t", msg::kDone}, {"ok", false}, {"status", 1}});
    return 1;
  }
  flushEvents();
  // Started: slurmd blocks (22.05) or catches (24.11) its signals now.
  slurm_signals::block(signals.slurmdBlockedAfterInit);
  slurm_signals::catchIgnoring(signals.slurmdCaughtAfterInit);

  // Running until told to stop. A closed channel is a slurmd killed
  // without notice: no slurmd_exit, as with SIGKILL.
  std::string payload;
  json::Value msg;
  if (!channel.read(&payload, &error) || !json::parse(payload, &msg, &error) ||
      !msg["t"].isString() || msg["t"].asString() != msg::kStopCommand) {
    emitEvent({{"t", msg::kDone}, {"ok", true}, {"status", 0}, {"killed", true}});
    return 0;
  }
  // _slurmd_fini: mpi_fini before SPANK's slurmd_exit.
  mpi.fini();
  int exitRc = stack->callPass(Phase::SlurmdExit, nullptr, nullptr).rc;
  // 24.11 logs a failing slurmd_exit; 22.05 ignores its result.
  if (exitRc && releases::slurmd(stack->version()).logsSlurmdExitFailure)
    slurmLog(LogLevel::Error, std::string("_slurmd_fini: SPANK slurmd exit failed: ") + slurmErrorText(exitRc));
  delete stack;
  // job_container_fini comes after slurmd_exit.
  jc->stop();
  delete jc;
  emitEvent({{"t", msg::kDone}, {"ok", true}, {"status", 0}, {"exitRc", exitRc}});
  return 0;
}

}  // namespace plugstack
