#include "job_container/jc_extern.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/events.h"
#include "common/slurm_log.h"
#include "lifecycle/containment.h"
#include "mpi/structs.h"
#include "protocol/messages.h"
#include "rules/slurm_errors.h"

namespace plugstack {

namespace {

void done(bool ok, const char* failedAt, int launchRc) {
  emitEvent({{"t", msg::kDone},
             {"ok", ok},
             {"step", json::Object{{"failedAt", failedAt ? json::Value(failedAt) : json::Value()},
                                   {"stepRc", ok ? 0 : SLURM_ERROR},
                                   {"exitCode", 0},
                                   {"launchRc", launchRc},
                                   {"exitCallbacksRan", false}}}});
}

}  // namespace

int runExternStep(Channel& channel, StepSpec& spec, JcStepd& jc, const SlurmVersion& version) {
  // stepd_create gets the step's record (23.02 on) or the uid (22.05).
  StepShape shape;
  shape.jobId = spec.record.jobId;
  shape.stepId = spec.record.stepId;
  shape.ntasks = spec.record.ntasks;
  shape.nodeList = spec.nodeName;
  shape.tids.assign(spec.record.nnodes, {});
  for (uint32_t n = 0; n < spec.record.nnodes; n++) shape.tids[n].push_back(n);
  StepdShape node;
  node.nodeId = spec.record.nodeId;
  node.nodeName = spec.nodeName;
  node.uid = spec.record.uid;
  node.gid = spec.record.gid;
  node.userName = spec.userName;
  node.cwd = spec.cwd;
  node.argv = spec.record.argvStore;
  StructHolder holder;
  void* record = mpiStructsFor(version).stepRecord(shape, node, holder);
  if (!jc.stepdCreate(record)) {
    emitEvent(Event(msg::kLaunch).add("rc", SLURM_ERROR));
    done(false, "job_container", SLURM_ERROR);
    return 0;
  }
  // The sleeper: what proctrack keeps for the job (slurmstepd execs sleep).
  flushEvents();
  pid_t sleeper = fork();
  if (sleeper == 0) {
    discardBufferedEvents();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    setpgid(0, 0);
    setsid();
    execl("/bin/sleep", "sleep", "100000000", static_cast<char*>(nullptr));
    _exit(0);
  }
  if (sleeper > 0) containment::adopt(sleeper);
  jc.addCont();
  emitEvent(Event(msg::kLaunch).add("rc", 0));
  flushEvents();
  // Until the job ends on this node.
  std::string payload, error;
  for (;;) {
    json::Value command;
    if (!channel.read(&payload, &error)) break;
    if (json::parse(payload, &command, &error) && command["t"].isString() && command["t"].asString() == msg::kStopCommand)
      break;
  }
  if (sleeper > 0) {
    kill(sleeper, SIGKILL);
    int status;
    waitpid(sleeper, &status, 0);
  }
  jc.stepdDelete();
  done(true, nullptr, 0);
  return 0;
}

}  // namespace plugstack
