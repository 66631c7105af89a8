#include "job_container/jc_extern.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/events.h"
#include "common/slurm_log.h"
#include "lifecycle/containment.h"
#include "lifecycle/slurm_signals.h"
#include "mpi/structs.h"
#include "protocol/messages.h"
#include "rules/releases.h"
#include "rules/slurm_errors.h"

#include <cerrno>
#include <cstring>
#include <vector>

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

// pam_slurm_adopt's side of REQUEST_GET_NS_FD: the fd join_external gives,
// setns() into it in a process of its own, run argv there.
void adopt(JcStepd& jc, const json::Value& argv) {
  int fd = jc.joinExternal();
  Event ev(msg::kAdopted);
  ev.add("fd", fd);
  std::vector<std::string> words;
  for (const auto& a : argv.asArray()) words.push_back(a.asString());
  if (fd <= 0 || words.empty()) {
    emitEvent(ev);
    flushEvents();
    return;
  }
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
    emitEvent(ev.add("error", std::string("pipe: ") + std::strerror(errno)));
    return;
  }
  flushEvents();
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    // A process of sshd's, not slurmstepd's: none of slurmstepd's signals.
    slurm_signals::allDefault();
    if (setns(fd, 0) != 0) {
      dprintf(err[1], "setns: %s\n", std::strerror(errno));
      _exit(126);
    }
    dup2(out[1], 1);
    dup2(err[1], 2);
    std::vector<char*> args;
    for (auto& w : words) args.push_back(w.data());
    args.push_back(nullptr);
    execvp(args[0], args.data());
    dprintf(2, "%s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  std::string texts[2];
  int fds[2] = {out[0], err[0]};
  for (int i = 0; i < 2; i++) {
    char buf[4096];
    ssize_t n;
    while ((n = read(fds[i], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
      if (n > 0) texts[i].append(buf, static_cast<size_t>(n));
    close(fds[i]);
  }
  int status = 0;
  if (pid > 0)
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  ev.add("status", pid > 0 ? status : -1).add("stdout", texts[0]).add("stderr", texts[1]);
  emitEvent(ev);
  flushEvents();
}

}  // namespace

int runExternStep(Channel& channel, StepSpec& spec, JcStepd& jc, const StackSettings& settings, const ParsedConf& conf) {
  const SlurmVersion& version = settings.version;
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
    // job_manager fails; stepd_cleanup still calls stepd_delete.
    jc.stepdDelete();
    emitEvent(Event(msg::kLaunch).add("rc", SLURM_ERROR));
    done(false, "job_container", SLURM_ERROR);
    return 0;
  }
  // spank_init in the extern step: init, then init_post_opt (a stack that
  // fails ends the step; Slurm never unloads it then).
  auto* stack = new Stack(settings);
  Stack::setCurrent(stack);
  if (!stack->load(conf) || stack->isFailure(stack->callPass(Phase::Init, &spec.record, nullptr).rc) ||
      stack->isFailure(stack->callPass(Phase::InitPostOpt, &spec.record, nullptr).rc)) {
    slurmLog(LogLevel::Error, "_spawn_job_container: Plugin stack initialization failed.");
    emitEvent(Event(msg::kLaunch).add("rc", SLURM_PLUGIN_NAME_INVALID));
    jc.stepdDelete();
    done(false, "init", SLURM_PLUGIN_NAME_INVALID);
    return 0;
  }
  // The sleeper: what proctrack keeps for the job (slurmstepd execs sleep).
  flushEvents();
  pid_t sleeper = fork();
  if (sleeper == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    // _unblock_signals before the exec, as for a task (22.05).
    const releases::Signals& signals = releases::signals(settings.version);
    if (signals.taskChildUnblocks) slurm_signals::unblockAsTaskChild(signals.stepdBlocked);
    setpgid(0, 0);
    setsid();
    execl("/bin/sleep", "sleep", "100000000", static_cast<char*>(nullptr));
    _exit(0);
  }
  if (sleeper > 0) containment::adopt(sleeper);
  jc.addCont();
  // The sleeper is no task of the step: task_post_fork with none (-1).
  // Under 24.11's contain_spank in a joining clone child, as a step's.
  auto postFork = [&] { return stack->callPass(Phase::TaskPostFork, &spec.record, nullptr).rc; };
  int rc = jc.containsSpank() && stack->anyDefines(Phase::TaskPostFork) ? jc.runContained("task_post_fork", -1, postFork) : postFork();
  if (stack->isFailure(rc)) slurmLog(LogLevel::Error, "spank extern task post-fork failed");
  emitEvent(Event(msg::kLaunch).add("rc", 0));
  flushEvents();
  // Until the job ends on this node.
  std::string payload, error;
  for (;;) {
    json::Value command;
    if (!channel.read(&payload, &error)) break;
    if (!json::parse(payload, &command, &error) || !command["t"].isString()) continue;
    if (command["t"].asString() == msg::kStopCommand) break;
    if (command["t"].asString() == msg::kAdoptCommand) adopt(jc, command["argv"]);
  }
  if (sleeper > 0) {
    kill(sleeper, SIGKILL);
    int status;
    while (waitpid(sleeper, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (stack->isFailure(stack->callPass(Phase::Exit, &spec.record, nullptr).rc)) slurmLog(LogLevel::Error, "spank_fini failed");
  delete stack;
  jc.stepdDelete();
  done(true, nullptr, 0);
  return 0;
}

}  // namespace plugstack
