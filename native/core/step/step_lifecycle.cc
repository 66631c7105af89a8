#include "step/step_lifecycle.h"

#include "rules/releases.h"
#include "rules/slurm_errors.h"

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>

#include "common/events.h"
#include "common/problem.h"
#include "common/slurm_log.h"
#include "job_container/jc_stepd.h"
#include "lifecycle/containment.h"
#include "mpi/mpi_stepd.h"
#include "step/remote_options.h"
#include "step/task_env.h"
#include "step/task_output.h"
#include "step/task_scripts.h"
#include "protocol/messages.h"

namespace plugstack {

namespace {

// Task output is read and sent in slices this small so that each event,
// even with every byte escaped, stays far below the channel's frame size.
constexpr size_t kReadChunk = 2048;
// After the step's processes are killed, output still in flight is read
// for at most this long.
constexpr int kDrainMillis = 250;

// slurmstepd treats W_EXITCODE(1, 0) as "task failed before exec".
constexpr int kExitCodeOne = 1 << 8;

json::Array taskSummary(const StepRecord& step) {
  json::Array out;
  for (const auto& t : step.tasks) {
    json::Object o{{"task", t.id}, {"gtid", t.gtid}, {"pid", static_cast<int>(t.pid)},
                   {"exited", t.exited}};
    if (t.exited) o.emplace_back("status", t.estatus);
    out.emplace_back(std::move(o));
  }
  return out;
}

}  // namespace

// task_post_fork and task_exit, in a joining clone child under 24.11's
// contain_spank (job_container/jc_stepd.h), else in slurmstepd itself.
int StepLifecycle::spankTaskCall(Phase phase, const char* name, TaskRecord& task) {
  JcStepd* jc = JcStepd::current();
  if (jc && jc->containsSpank() && stack_.anyDefines(phase))
    return jc->runContained(name, static_cast<int>(task.id),
                            [&] { return stack_.callPass(phase, &spec_.record, &task).rc; });
  return stack_.callPass(phase, &spec_.record, &task).rc;
}

void StepLifecycle::fail(const char* where, const std::string& message) {
  outcome_.failedAt = where;
  slurmLog(LogLevel::Error, message);
  failLaunch();
}

// Whatever fails inside _fork_all_tasks (user_init, a fork, task_post_fork)
// becomes ESLURMD_EXECVE_FAILED in the launch response srun gets; a batch
// step sends none.
void StepLifecycle::failLaunch() {
  outcome_.managerRc = ESLURMD_EXECVE_FAILED;
  if (!spec_.batch()) outcome_.launchRc = ESLURMD_EXECVE_FAILED;
}

bool StepLifecycle::startStack(const ParsedConf& conf) {
  StepRecord& step = spec_.record;
  auto stackFailed = [&](const char* where) {
    // No task runs, no exit callback: Slurm jumps past them, and never even
    // unloads the stack.
    outcome_.failedAt = where;
    outcome_.launchRc = SLURM_PLUGIN_NAME_INVALID;
    slurmLog(LogLevel::Error, "Plugin stack initialization failed.");
    return false;
  };
  if (!stack_.load(conf)) return stackFailed("stack");
  if (stack_.isFailure(stack_.callPass(Phase::Init, &step, nullptr).rc)) return stackFailed("init");
  applyRemoteOptions(stack_, step, spec_.options);
  if (stack_.isFailure(stack_.callPass(Phase::InitPostOpt, &step, nullptr).rc))
    return stackFailed("init_post_opt");
  return true;
}

// _setup_normal_io: each task's input (a pipe fed with srun's, or a file
// opened as the user), then the tasks' output files (task_output.h). A
// file that does not open fails the launch with ESLURMD_IO_ERROR before
// user_init; what slurmstepd logs then stays in slurmd's log (the step's
// IO never started), and the exit callbacks run.
bool StepLifecycle::setupIo() {
  std::string path;
  int err = 0;
  if (input_.setup(spec_, &path, &err)) {
    // Then the tasks' output files (24.11 makes their directories).
    if (openOutputFiles(spec_, releases::step(stack_.version()).outputMakesParents)) return true;
  } else {
    slurmLog(LogLevel::Error, "Could not open stdin file " + path + ": " + std::strerror(err));
  }
  outcome_.failedAt = "io";
  slurmLog(LogLevel::Error, std::string("_fork_all_tasks: IO setup failed: ") + slurmErrorText(ESLURMD_IO_ERROR));
  outcome_.managerRc = ESLURMD_IO_ERROR;
  outcome_.launchRc = ESLURMD_IO_ERROR;
  if (!outcome_.stepRc) outcome_.stepRc = ESLURMD_IO_ERROR;
  return false;
}

bool StepLifecycle::runUserInit() {
  char cwd[PATH_MAX];
  savedCwd_ = getcwd(cwd, sizeof cwd) ? cwd : "/";
  if (!dropPrivileges(spec_.identity(), true, &privileges_)) {
    fail("user_init", std::string("drop_privileges: ") + std::strerror(errno));
    return false;
  }
  if (chdir(spec_.cwd.c_str()) < 0) {
    slurmLog(LogLevel::Error, "couldn't chdir to `" + spec_.cwd + "': " + std::strerror(errno) +
                                  ": going to /tmp instead");
    if (chdir("/tmp") < 0) slurmLog(LogLevel::Error, "couldn't chdir to /tmp either. dying.");
  }
  int rc;
  JcStepd* jc = JcStepd::current();
  if (jc && jc->containsSpank() && stack_.anyDefines(Phase::UserInit)) {
    // contain_spank: root again so that the child can join; it drops
    // privileges itself after joining, and so does slurmstepd after it.
    reclaimPrivileges(privileges_);
    rc = jc->runContained(
        "user_init", -1, [&] { return stack_.callPass(Phase::UserInit, &spec_.record, nullptr).rc; },
        [&] {
          PrivState unused;
          return dropPrivileges(spec_.identity(), true, &unused);
        });
    if (!dropPrivileges(spec_.identity(), true, &privileges_)) {
      fail("user_init", std::string("drop_privileges: ") + std::strerror(errno));
      return false;
    }
  } else {
    rc = stack_.callPass(Phase::UserInit, &spec_.record, nullptr).rc;
  }
  if (stack_.isFailure(rc)) {
    outcome_.failedAt = "user_init";
    slurmLog(LogLevel::Error, "spank_user failed.");
    failLaunch();
    if (releases::step(stack_.version()).failureMarksTask) {
      // 24.11 marks the step failed through task 0; 22.05 did not.
      TaskRecord& first = spec_.record.tasks[0];
      first.estatus = kExitCodeOne;
      first.exited = true;
      if (!outcome_.stepRc) outcome_.stepRc = SLURM_ERROR;
    }
    if (chdir(savedCwd_.c_str()) < 0) slurmLog(LogLevel::Error, "Unable to return to working directory");
    reclaimPrivileges(privileges_);
    return false;
  }
  return true;
}

bool StepLifecycle::forkTasks() {
  StepRecord& step = spec_.record;
  tasks_.reserve(step.tasks.size());
  for (size_t i = 0; i < step.tasks.size(); i++) {
    TaskProcess t;
    if (!forkTask(stack_, spec_, mpi_, i, privileges_, tasks_, input_, &t)) {
      int err = errno;
      reportForked();
      fail("fork", std::string("child fork: ") + std::strerror(err));
      Diagnostic d;
      d.severity = Severity::Error;
      d.code = "FORK_FAILED";
      d.message = "slurmstepd could not fork task " + std::to_string(step.tasks[i].id) + " of " +
                  std::to_string(step.tasks.size()) + ": " + std::strerror(err) +
                  "; no task of the node runs";
      reportProblem(d);
      for (auto& started : tasks_) kill(started.pid, SIGKILL);
      reclaimPrivileges(privileges_);
      return false;
    }
    t.forkedAt = monotonicMicros();
    // As slurmstepd does in its loop: a later child sees the earlier
    // tasks' pids (S_JOB_PID_TO_LOCAL_ID).
    step.tasks[i].pid = t.pid;
    input_.forked(i);
    mpi_.taskForked(i, t.pid);
    // The step's process group: task 0's pid, as in slurmstepd.
    if (i == 0) pgid_ = t.pid;
    tasks_.push_back(t);
  }
  reportForked();
  if (!reclaimPrivileges(privileges_)) slurmLog(LogLevel::Error, "Unable to reclaim privileges");
  if (chdir(savedCwd_.c_str()) < 0) slurmLog(LogLevel::Error, "Unable to return to working directory");
  return true;
}

// The forked tasks, for containment (our children, not a plugin's) and for
// Node (the step's process group, which Node kills if this host dies
// before it could; each task's pid and when it was forked), in the order
// the forks made them. Done once the loop is over rather than after each
// fork: until they exec, the children share every page of this process,
// and each fork makes every page written in the loop a copy again (an
// event's string, the events buffer, a tree node and the allocator's own
// records). No plugin code runs in between. They go to Node at once, before
// task_post_fork: should this host die there, Node has the tasks' pids and
// the step's process group (a spawned host's groups it kills by number).
void StepLifecycle::reportForked() {
  StepRecord& step = spec_.record;
  for (; reported_ < tasks_.size(); reported_++) {
    const TaskProcess& t = tasks_[reported_];
    const TaskRecord& task = step.tasks[t.index];
    containment::adopt(t.pid);
    if (t.index == 0) emitEvent({{"t", msg::kPgid}, {"pgid", static_cast<int>(pgid_)}});
    emitEvent(Event(msg::kTask).add("task", task.id).add("gtid", task.gtid).add("pid", static_cast<int>(t.pid))
                  .add("at", t.forkedAt));
  }
  flushEvents();
}

bool StepLifecycle::postForkAndRelease() {
  StepRecord& step = spec_.record;
  for (auto& t : tasks_) {
    TaskRecord& task = step.tasks[t.index];
    if (setpgid(t.pid, pgid_) < 0)
      slurmLog(LogLevel::Error, "Unable to put task " + std::to_string(task.id) + " (pid " +
                                    std::to_string(t.pid) + ") into pgrp " + std::to_string(pgid_) +
                                    ": " + std::strerror(errno));
    if (stack_.isFailure(spankTaskCall(Phase::TaskPostFork, "task_post_fork", task))) {
      fail("task_post_fork", "spank task " + std::to_string(task.id) + " post-fork failed");
      if (releases::step(stack_.version()).failureMarksTask) {
        if (!outcome_.stepRc) outcome_.stepRc = SLURM_ERROR;
        if (task.estatus <= 0) task.estatus = kExitCodeOne;
        task.exited = true;
      }
      // Closing the barriers makes every child's read return 0: each one
      // exits with status 1 without exec'ing.
      for (auto& other : tasks_) containment::closeOwned(&other.barrier);
      return false;
    }
  }
  // 22.05: the step's processes are in their container: add_cont.
  if (JcStepd* jc = JcStepd::current()) jc->addCont();
  // Release the barrier, task by task.
  for (auto& t : tasks_) {
    char go = '\0';
    if (write(t.barrier, &go, 1) != 1) {
      if (releases::step(stack_.version()).unblockFailureNamesFd)
        slurmLog(LogLevel::Error, "exec_wait_signal_child: write(fd:" + std::to_string(t.barrier) +
                                      ") to unblock task " + std::to_string(t.index) + " failed");
      else
        slurmLog(LogLevel::Error, "write to unblock task " + std::to_string(t.index) + " failed: " + std::strerror(errno));
    }
    containment::closeOwned(&t.barrier);
  }
  return true;
}

void StepLifecycle::drainOutput(TaskProcess& t) {
  char buf[kReadChunk];
  for (int* fd : {&t.out, &t.err}) {
    while (*fd >= 0) {
      ssize_t n = read(*fd, buf, sizeof buf);
      if (n > 0) {
        outputPending_ = true;
        emitEvent(Event(msg::kOutput)
                      .add("task", spec_.record.tasks[t.index].id)
                      .add("stream", fd == &t.out ? "stdout" : "stderr")
                      .add("data", std::string_view(buf, static_cast<size_t>(n))));
        continue;
      }
      if (n == 0) {
        containment::closeOwned(fd);
      } else if (errno == EINTR) {
        continue;
      }
      break;  // EAGAIN: nothing more for now
    }
  }
}

void StepLifecycle::onTaskExit(TaskProcess& t, int status) {
  StepRecord& step = spec_.record;
  TaskRecord& task = step.tasks[t.index];
  drainOutput(t);
  task.exited = true;
  task.estatus = status;
  emitEvent(Event(msg::kExit)
                .add("task", task.id)
                .add("gtid", task.gtid)
                .add("pid", static_cast<int>(t.pid))
                .add("status", status)
                .add("at", monotonicMicros()));
  // What the tasks printed goes on to srun before the task epilog and the
  // exit callbacks, which may take their time.
  if (outputPending_) {
    flushEvents();
    outputPending_ = false;
  }
  // The parent rebuilds the step env for this task before its task_exit.
  applyEpilogTaskEnv(step.env, spec_, task, stack_.version());
  runTaskEpilogs(spec_, t.index, step.env, privileges_, stack_.version());
  if (stack_.isFailure(spankTaskCall(Phase::TaskExit, "task_exit", task)))
    slurmLog(LogLevel::Error, "Unable to spank task " + std::to_string(task.id) + " at exit");
  if (task.estatus && !outcome_.stepRc) outcome_.stepRc = task.estatus;
}

namespace {
// How often slurmstepd looks for ended tasks it has no pidfd for: without
// pidfds (a kernel before 5.3), and while a task plugin code reaped is
// waited for (the end of the last child wakes no pidfd).
constexpr int kReapEveryMs = 10;
constexpr int kLostEveryMs = 100;
}  // namespace

void StepLifecycle::waitForTasks() {
  size_t left = tasks_.size();
  std::vector<struct pollfd> fds;
  std::vector<TaskProcess*> owner;  // which task each descriptor is of
  while (left > 0) {
    fds.clear();
    owner.clear();
    // Tasks that ended: their pidfds (SIGCHLD stays as slurmstepd has it,
    // unblocked and at its default, for plugin code to see and use).
    bool blind = false, lost = false;
    for (auto& t : tasks_) {
      if (spec_.record.tasks[t.index].exited) continue;
      if (t.ended >= 0) {
        fds.push_back({t.ended, POLLIN, 0});
        owner.push_back(&t);
      } else if (t.lost) {
        lost = true;
      } else {
        blind = true;
      }
    }
    size_t outputAt = fds.size();
    for (auto& t : tasks_)
      for (int fd : {t.out, t.err})
        if (fd >= 0) {
          fds.push_back({fd, POLLIN, 0});
          owner.push_back(&t);
        }
    // The tasks' input: srun's, and the pipes it goes into.
    size_t inputAt = fds.size();
    input_.addPollFds(&fds);
    owner.resize(fds.size(), nullptr);
    // Node's end of the channel: commands, or its end.
    fds.push_back({channel_.commandFd(), POLLIN, 0});
    owner.push_back(nullptr);
    int ready = poll(fds.data(), fds.size(), blind ? kReapEveryMs : lost ? kLostEveryMs : -1);
    if (ready < 0 && errno != EINTR) break;
    if (fds.back().revents) readCommand();
    fds.pop_back();
    input_.handle(std::vector<struct pollfd>(fds.begin() + static_cast<long>(inputAt), fds.end()));
    fds.resize(inputAt);

    // Read only where there is something to read: a step has many tasks.
    TaskProcess* last = nullptr;
    for (size_t i = outputAt; i < fds.size(); i++)
      if (fds[i].revents && owner[i] != last) drainOutput(*(last = owner[i]));

    // Without pidfds, or with a task lost, every wake-up looks (output may
    // keep the loop busy).
    bool look = blind || lost;
    for (size_t i = 0; i < outputAt; i++) {
      if (fds[i].revents & POLLNVAL) {
        // Plugin code closed the pidfd's number: not ours any more, and
        // the task is looked for at every wake-up instead.
        containment::disown(owner[i]->ended);
        owner[i]->ended = -1;
        look = true;
      } else if (fds[i].revents & (POLLIN | POLLHUP)) {
        look = true;
      }
    }
    bool noChild = false;
    if (look) {
      // Reap every child that ended, tasks and anything else (slurmstepd's
      // wait3 collects whatever it is given too).
      for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid < 0 && errno == ECHILD) noChild = true;
        if (pid <= 0) break;
        auto it = std::find_if(tasks_.begin(), tasks_.end(), [&](const TaskProcess& t) {
          return t.pid == pid && !spec_.record.tasks[t.index].exited;
        });
        if (it == tasks_.end()) continue;
        containment::closeOwned(&it->ended);
        onTaskExit(*it, status);
        left--;
      }
      // A task that ended and was not ours to reap: plugin code waited for
      // it first (or ignored SIGCHLD), and its status is gone.
      for (size_t i = 0; i < outputAt; i++)
        if ((fds[i].revents & (POLLIN | POLLHUP)) && owner[i]->ended >= 0 && !spec_.record.tasks[owner[i]->index].exited) {
          containment::closeOwned(&owner[i]->ended);
          owner[i]->lost = true;
        }
    }
    // No child left, and tasks not reaped: 24.11 says so and goes on to the
    // step's end; 22.05's wait3 answers ECHILD forever, so the step waits
    // until it is cancelled or killed.
    bool givesUp = noChild && left > 0 && releases::step(stack_.version()).waitEndsWithoutChildren;
    if (givesUp)
      slurmLog(LogLevel::Error, "_wait_for_all_tasks: No child processes. node_tasks:" + std::to_string(tasks_.size()) +
                                    ", expected:" + std::to_string(tasks_.size()) +
                                    ", reaped:" + std::to_string(tasks_.size() - left));
    // What the tasks printed and how they ended goes out once per wake-up.
    flushEvents();
    outputPending_ = false;
    if (givesUp) break;
  }
}

void StepLifecycle::readCommand() {
  std::string payload, error;
  json::Value command;
  // Node is gone: nobody will read a result, and the step goes with it.
  if (!channel_.read(&payload, &error)) containment::abandon();
  if (!json::parse(payload, &command, &error) || command["t"].asString() != msg::kSignalCommand ||
      !command["signal"].isNumber()) {
    emitEvent({{"t", msg::kFatal}, {"message", "unexpected command: " + payload.substr(0, 200)}});
    return;
  }
  signalTasks(static_cast<int>(command["signal"].asNumber()), command["why"].asString());
}

// A signal request (req.c _handle_signal_container): node 0 logs the
// cancellation once, tasks killed by SIGTERM or SIGKILL no longer count for
// the step's exit code, and the step's process group gets the signal.
void StepLifecycle::signalTasks(int sig, const std::string& why) {
  StepRecord& step = spec_.record;
  if ((why == "cancel" || why == "time_limit") && step.nodeId == 0 && !cancelLogged_) {
    cancelLogged_ = true;
    char when[32];
    time_t now = time(nullptr);
    struct tm tm;
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", localtime_r(&now, &tm));
    std::string entity = spec_.batch() ? "JOB " + std::to_string(step.jobId)
                                       : "STEP " + std::to_string(step.jobId) + "." + std::to_string(step.stepId);
    slurmLog(LogLevel::Error, "*** " + entity + " ON " + spec_.nodeName + " CANCELLED AT " + when +
                                  (why == "time_limit" ? " DUE TO TIME LIMIT ***" : " ***"));
  }
  if (sig == SIGTERM || sig == SIGKILL)
    for (auto& t : step.tasks)
      if (!t.exited) t.killedByCmd = true;
  if (sig > 0 && pgid_ > 0) kill(-pgid_, sig);
}

void StepLifecycle::sendLaunchResponse(int rc) {
  if (launchResponded_) return;
  launchResponded_ = true;
  emitEvent(Event(msg::kLaunch).add("rc", rc).urgent());
}

void StepLifecycle::killLeftovers() {
  // proctrack: everything in the step's process group goes.
  if (pgid_ > 0) kill(-pgid_, SIGKILL);
  // The host is a subreaper, so processes the tasks started and abandoned
  // are its children now: kill and reap them too (each orphan comes back
  // once its parent is dead, hence the rounds). Processes plugin code
  // started in this process may live until it ends.
  for (int round = 0; round < 50; round++) {
    if (containment::killStrays(true) == 0) break;
    struct timespec pause = {0, 1000000};
    nanosleep(&pause, nullptr);
  }
  // Output still in the pipes.
  long long deadline = monotonicMicros() + kDrainMillis * 1000LL;
  for (;;) {
    std::vector<struct pollfd> fds;
    for (auto& t : tasks_)
      for (int fd : {t.out, t.err})
        if (fd >= 0) fds.push_back({fd, POLLIN, 0});
    long long left = deadline - monotonicMicros();
    if (fds.empty() || left <= 0) break;
    poll(fds.data(), fds.size(), static_cast<int>(left / 1000) + 1);
    for (auto& t : tasks_) drainOutput(t);
  }
}

void StepLifecycle::closeAll() {
  input_.closeAll();
  for (auto& t : tasks_)
    for (int* fd : {&t.barrier, &t.out, &t.err, &t.ended})
      containment::closeOwned(fd);
}

int StepLifecycle::exitCode() const {
  // _get_exit_code, literally: a task killed by a signal decides; otherwise
  // each task overwrites the result with MAX(step rc, its status), so the
  // last task's status counts against the first failure.
  const auto& tasks = spec_.record.tasks;
  bool any = false;
  int rc = 0;
  for (const auto& t : tasks) {
    // Its status only says that a signal request killed it.
    if (t.killedByCmd) continue;
    if (WIFSIGNALED(t.estatus) && t.estatus) return t.estatus;
    rc = std::max(outcome_.stepRc, t.estatus);
    any = true;
  }
  // Every task killed by a request (srun cancelled): the first task's
  // status all the same, so that the step, and the job's derived exit
  // code, say it was killed (a real 22.05's epilog saw derived_ec 9 for an
  // srun ended by SIGTERM).
  if (!any && !tasks.empty()) return tasks.front().estatus;
  return any ? rc : 0;
}

StepOutcome StepLifecycle::run(const ParsedConf& conf) {
  // slurmstepd is alone in its process group (slurmd double-forks it), and
  // blocks (22.05) or catches (24.11) the common termination signals (the
  // stepd role set them): a plugin's killpg(0, SIGTERM) in task_exit, say,
  // ends nothing. Here a keeper of the host's own (a spawned host's) must
  // not share the group either, or it would take the signal for Node's
  // request to end the run; a host the zygote forked leads its group
  // already.
  setpgid(0, 0);
  // Step setup adds the node's topology address to the job env before the
  // plugin stack starts (slurmstepd.c); on a flat topology it is the node
  // name, with pattern "node".
  spec_.record.env.set("SLURM_TOPOLOGY_ADDR", spec_.nodeName);
  spec_.record.env.set("SLURM_TOPOLOGY_ADDR_PATTERN", "node");
  // mpi_process_env, before the stack: a step without SLURM_MPI_TYPE fails
  // there (fail1).
  if (!spec_.batch() && !mpi_.processEnv(spec_.record.env)) {
    outcome_.failedAt = "mpi_env";
    outcome_.launchRc = SLURM_MPI_PLUGIN_NAME_INVALID;
    slurmLog(LogLevel::Error, std::string("job_manager: exiting abnormally: ") + slurmErrorText(outcome_.launchRc));
    sendLaunchResponse(outcome_.launchRc);
    return outcome_;
  }
  if (!startStack(conf)) {
    // fail1: the launch is answered with the failure, no exit callbacks.
    sendLaunchResponse(outcome_.launchRc);
    return outcome_;
  }
  // The mpi plugin's threads, before the step's IO (fail2: the exit
  // callbacks run, the launch is answered with SLURM_ERROR).
  bool preforked = spec_.batch() || mpi_.prefork(spec_.record.env) == SLURM_SUCCESS;
  if (!preforked) {
    outcome_.failedAt = "mpi_prefork";
    slurmLog(LogLevel::Error, "Failed mpi_g_slurmstepd_prefork");
    outcome_.managerRc = SLURM_ERROR;
    outcome_.launchRc = SLURM_ERROR;
  } else {
    applyStepUmask(spec_);
  }
  bool ioReady = preforked && setupIo();
  if (ioReady) {
    // slurmstepd sets up the step's IO here: from now on its error
    // messages reach srun (through task 0's stderr).
    emitEvent(Event(msg::kIo));
  }

  if (ioReady && runUserInit() && forkTasks() && postForkAndRelease()) {
    // job_manager answers the launch once every task is released.
    sendLaunchResponse(0);
    waitForTasks();
  }

  killLeftovers();
  closeAll();
  // The step's IO is shut down before the exit callbacks: what slurmstepd
  // logs from here on no longer reaches srun (seen on a real 22.05).
  emitEvent(Event(msg::kIoEnd));
  // fail2 in job_manager: the exit callbacks run whatever happened after
  // init_post_opt.
  if (stack_.isFailure(stack_.callPass(Phase::Exit, &spec_.record, nullptr).rc))
    slurmLog(LogLevel::Error, "spank_fini failed");
  outcome_.exitCallbacksRan = true;
  // A batch step still writes this to the job's error file; an srun step's
  // IO is closed by now.
  if (outcome_.managerRc) {
    slurmLog(LogLevel::Error, std::string("job_manager: exiting abnormally: ") + slurmErrorText(outcome_.managerRc));
    // A failed launch is answered only now, after the exit callbacks.
    sendLaunchResponse(outcome_.managerRc);
  }
  outcome_.exitCode = exitCode();
  emitEvent({{"t", msg::kTasks}, {"tasks", taskSummary(spec_.record)}});
  return outcome_;
}

}  // namespace plugstack
