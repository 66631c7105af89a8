// The stepd role: one node of a job step, as slurmstepd runs it.
#include <unistd.h>

#include "common/events.h"
#include "job_container/jc_extern.h"
#include "job_container/jc_stepd.h"
#include "libslurm/job_table.h"
#include "lifecycle/slurm_limits.h"
#include "lifecycle/slurm_signals.h"
#include "mpi/mpi_stepd.h"
#include "roles/role.h"
#include "roles/stack_request.h"
#include "step/step_lifecycle.h"
#include "step/step_spec.h"
#include "step/task_stdin.h"
#include "protocol/messages.h"
#include "rules/releases.h"

namespace plugstack {

int runStepdRole(Channel& channel, const json::Value& request) {
  // What Node sends of srun's input comes on descriptor 0: off it before
  // any plugin code, which finds /dev/null there as in slurmstepd.
  TaskStdin::takeHostInput();
  StackSettings settings;
  StepSpec spec;
  MpiStepdSettings mpiSettings;
  JcSettings jcSettings;
  std::string error;
  if (!readRoleStack(request, Context::Remote, "stepd", &settings, &error)) {
  } else if (!readStepSpec(request["step"], &spec, &error)) {
    // The job record slurm_load_job answers with (libslurm/job_table.h).
  } else if (!request["step"]["job"].isNull() && !libslurm::rememberJob(request["step"]["job"], &error)) {
  } else if (!readMpiStepdSettings(request["step"]["mpi"], spec, &mpiSettings, &error)) {
  } else if (!readJcSettings(request["step"]["jobContainer"], &jcSettings, &error)) {
  } else if (getuid() != 0 && (spec.record.uid != getuid() || spec.record.gid != getgid())) {
    error = "a step of uid " + std::to_string(spec.record.uid) + " gid " +
            std::to_string(spec.record.gid) + " needs root: plugstack-host runs as uid " +
            std::to_string(getuid()) + " gid " + std::to_string(getgid());
  }
  if (!error.empty()) {
    emitEvent({{"t", msg::kFatal}, {"message", error}});
    return 2;
  }
  // Until slurmd's child execs slurmstepd (the job_container join below),
  // slurmd's signals; then slurmstepd's, set in its main() before anything:
  // 22.05 blocks the common termination signals, 24.11's connection manager
  // catches them. A task's child starts with the same (task_process.cc).
  const releases::Signals& signals = releases::signals(settings.version);
  const releases::Limits& limits = releases::limits(settings.version);
  slurm_limits::raiseAsSlurmd(limits.slurmdRaised);
  // What set_user_limits will apply in each task (from slurmd's settings in
  // 24.11, the node's slurm.conf in 22.05): worked out once, here.
  const json::Value& propagated = request["step"]["propagateLimits"];
  spec.taskLimits =
      slurm_limits::taskLimits(limits.propagated, propagated.isString() ? propagated.asString() : limits.propagated);
  slurm_signals::block(signals.slurmdBlockedAfterInit);
  slurm_signals::catchIgnoring(signals.slurmdCaughtAfterInit);
  const auto becomeSlurmstepd = [&signals] {
    slurm_signals::uncatch(signals.slurmdCaughtAfterInit);
    slurm_signals::block(signals.stepdBlocked);
    slurm_signals::catchIgnoring(signals.stepdCaught);
  };

  ParsedConf parsed = readRequestConf(request);

  // job_container: slurmd's child joins before it becomes slurmstepd
  // (24.11), then slurmstepd loads the plugins and receives what slurmd
  // sent, before the mpi plugin (slurmd sends in that order). Never
  // unloaded: slurmstepd has no job_container_fini.
  auto* jc = new JcStepd(std::move(jcSettings), spec, settings.pluginDirs, settings.version);
  JcStepd::setCurrent(jc);
  bool childJoined = jc->slurmdChildJoin();
  becomeSlurmstepd();
  if (!childJoined || !jc->start()) {
    // slurmd's child failing: slurmd fails the launch on the node ("slurmd").
    emitEvent({{"t", msg::kDone},
               {"ok", false},
               {"step", json::Object{{"failedAt", childJoined ? "job_container" : "slurmd"}, {"stepRc", SLURM_ERROR}, {"exitCode", 0},
                                     {"launchRc", SLURM_ERROR}, {"exitCallbacksRan", false}}}});
    // Reported as JOB_CONTAINER_FAILED: the role did its job.
    return 0;
  }
  if (jc->externStep()) return runExternStep(channel, spec, *jc, settings, parsed);

  // Heap-allocated because on the early-failure paths Slurm never destroys
  // the stack (no fini(), no dlclose): neither do we.
  auto* stack = new Stack(settings);
  Stack::setCurrent(stack);
  // The mpi plugin slurmd names is loaded first (mpi_conf_recv_stepd); one
  // that does not load ends slurmstepd (fatal) before the step starts.
  MpiStepd mpi(std::move(mpiSettings), spec, settings.pluginDirs, settings.version);
  if (!mpi.load()) {
    emitEvent({{"t", msg::kDone},
               {"ok", false},
               {"step", json::Object{{"failedAt", "mpi"}, {"stepRc", SLURM_ERROR}, {"exitCode", 0},
                                     {"launchRc", SLURM_MPI_PLUGIN_NAME_INVALID}, {"exitCallbacksRan", false}}}});
    return 1;
  }
  StepOutcome outcome = StepLifecycle(*stack, spec, channel, mpi).run(parsed);
  if (outcome.exitCallbacksRan) delete stack;
  // stepd_cleanup: mpi_fini, whatever happened to the step.
  mpi.fini();

  emitEvent({{"t", msg::kDone},
             {"ok", outcome.failedAt.empty()},
             {"step",
              json::Object{{"failedAt", outcome.failedAt.empty() ? json::Value() : json::Value(outcome.failedAt)},
                           {"stepRc", outcome.stepRc},
                           {"exitCode", outcome.exitCode},
                           {"launchRc", outcome.launchRc},
                           {"exitCallbacksRan", outcome.exitCallbacksRan}}}});
  return 0;
}

}  // namespace plugstack
