#include "step/task_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/events.h"
#include "common/slurm_log.h"
#include "job_container/jc_stepd.h"
#include "lifecycle/containment.h"
#include "lifecycle/slurm_limits.h"
#include "lifecycle/slurm_signals.h"
#include "mpi/mpi_stepd.h"
#include "rules/releases.h"
#include "step/task_env.h"
#include "step/task_scripts.h"
#include "step/task_stdin.h"
#include "protocol/messages.h"
#include "rules/slurm_errors.h"

namespace plugstack {

namespace {

// close_range(2) as a raw system call: glibc's wrapper is GLIBC_2.34, newer
// than the oldest glibc the shipped binaries load on (native/compat/).
// Kernels before 5.9 answer ENOSYS; then each descriptor is closed alone.
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
// pidfd_open(2), Linux 5.3; glibc has no wrapper before 2.36.
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
void closeRange(unsigned first, unsigned last) {
  if (syscall(SYS_close_range, first, last, 0) == 0) return;
  for (unsigned fd = first; fd <= last; fd++) close(static_cast<int>(fd));
}

// Closes these descriptors (ours only: a plugin's open files must survive
// into the task as in Slurm), one close_range per run of consecutive
// numbers rather than one close each: with many tasks the list is long.
void closeDescriptors(std::vector<int> fds) {
  for (int fd : fds) containment::disown(fd);
  std::sort(fds.begin(), fds.end());
  size_t i = 0;
  while (i < fds.size()) {
    size_t j = i;
    while (j + 1 < fds.size() && fds[j + 1] <= fds[j] + 1) j++;
    if (fds[i] >= 0) closeRange(static_cast<unsigned>(fds[i]), static_cast<unsigned>(fds[j]));
    i = j + 1;
  }
}

[[noreturn]] void childExit(int status) {
  flushEvents();
  // Leave without running atexit handlers or flushing the parent's stdio
  // copies: only exec or _exit are safe after fork.
  _exit(status);
}

// prepare_stdio: the task reads its input (a pipe slurmstepd feeds, a
// file, else /dev/null) and writes into its two pipes.
bool prepareStdio(int in, int out, int err) {
  int null = in >= 0 ? -1 : open("/dev/null", O_RDONLY);
  if (in < 0 && null < 0) return false;
  if (dup2(in >= 0 ? in : null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) return false;
  if (null > 2) close(null);
  return true;
}

// _exec_wait_child_wait_for_parent: one byte means go; anything else
// (the parent closed the pipe after a failed task_post_fork) means die.
bool waitForRelease(int fd) {
  char c;
  ssize_t n;
  do n = read(fd, &c, 1);
  while (n < 0 && errno == EINTR);
  return n == 1;
}

[[noreturn]] void execTask(Stack& stack, StepSpec& spec, MpiStepd& mpi, size_t index) {
  StepRecord& step = spec.record;
  TaskRecord& task = step.tasks[index];

  // The task's environment replaces the step's in this process, so that
  // task_init's spank_getenv/setenv work on what the task will get. Built
  // in place: this child's copy of the step's environment is its own, and
  // is what it execs with (a copy would be one more allocation per entry,
  // each a page of the parent's heap copied on write).
  applyTaskEnv(step.env, spec, task, stack.version());
  // _setup_mpi, not for a batch step: the plugin's slurmstepd_task on the
  // task's environment, as the job's user.
  if (!spec.batch()) {
    errno = 0;
    int rc = mpi.task(index, step.env);
    if (rc != 0) {
      // Slurm's %m: slurm_strerror(errno), "No error" when the plugin set none.
      slurmLog(LogLevel::Error, std::string("Unable to configure MPI plugin: ") + slurmErrorText(errno));
      childExit(1);
    }
  }

  PassResult r = stack.callPass(Phase::TaskInit, &step, &task);
  if (stack.isFailure(r.rc)) {
    slurmLog(LogLevel::Error, "Failed to invoke spank plugin stack");
    childExit(1);
  }
  // The task prologs, after task_init (their output may change the
  // environment) and before TMPDIR is made.
  if (int status = runTaskPrologs(spec, step.env, stack.version())) childExit(status);
  if (index == 0) makeTmpdir(step.env);

  if (task.argv.empty() || task.argv[0] == nullptr) {
    slurmLog(LogLevel::Error, "No executable program specified for this task");
    childExit(2);
  }
  std::string command = task.argv[0];
  if (command[0] != '/') command = resolveCommand(command, step.env);
  std::vector<char*> argv(task.argv.begin(), task.argv.end());
  argv[0] = command.data();

  // set_user_limits, last before the exec and as the user: the limits srun
  // or sbatch sent, where the node propagates them (every callback above
  // ran with slurmstepd's).
  std::vector<char*> envp = slurm_limits::applyToTask(step.env, spec.taskLimits, step.stepMem);

  // Descriptors plugin code opened here without close-on-exec go with the
  // task: say so before they do.
  containment::beforeExec(task.id);
  emitEvent(Event(msg::kExec).add("task", task.id).add("path", command));
  flushEvents();
  execve(command.c_str(), argv.data(), envp.data());

  int saved = errno;
  if (saved == ENOENT) {
    // A script whose interpreter is missing also fails with ENOENT; Slurm
    // names the interpreter then.
    int fd = open(command.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      char buf[256];
      ssize_t n = read(fd, buf, sizeof buf - 1);
      close(fd);
      if (n >= 3 && buf[0] == '#' && buf[1] == '!') {
        buf[n] = '\0';
        if (char* eol = std::strchr(buf, '\n')) *eol = '\0';
        slurmLog(LogLevel::Error,
                 std::string("execve(): bad interpreter(") + (buf + 2) + "): " + std::strerror(saved));
        childExit(saved);
      }
    }
  }
  slurmLog(LogLevel::Error, "execve(): " + std::string(task.argv[0]) + ": " + std::strerror(saved));
  childExit(saved);
}

[[noreturn]] void runChild(Stack& stack, StepSpec& spec, MpiStepd& mpi, size_t index, const PrivState& privileges,
                           int barrier, int in, int out, int err, pid_t parent) {
  // The signals stay as slurmstepd has them (blocked, caught, and what
  // plugin code set there) until _unblock_signals below.
  // If the host dies, so do its tasks: what proctrack would do.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) childExit(1);

  StepRecord& step = spec.record;
  TaskRecord& task = step.tasks[index];
  const JobIdentity job = spec.identity();

  // _pre_task_child_privileged: root again for task_init_privileged.
  if (!reclaimPrivileges(privileges)) childExit(1);
  // Into the job's container first (exit(1) on failure, as Slurm's).
  if (JcStepd* jc = JcStepd::current()) {
    if (jc->taskJoin(index) != 0) {
      slurmLog(LogLevel::Error, "container_g_join failed: " + std::to_string(step.jobId));
      flushEvents();
      std::exit(1);
    }
  }
  PassResult r = stack.callPass(Phase::TaskInitPrivileged, &step, &task);
  if (stack.isFailure(r.rc)) {
    slurmLog(LogLevel::Error, "spank_task_init_privileged failed");
    // 24.11 ends the child with fatal(), which is exit(1): plugin ELF
    // destructors run. 22.05 calls _exit(1).
    if (releases::step(stack.version()).taskInitPrivilegedFatal) {
      slurmLog(LogLevel::Error, "_fork_all_tasks: _pre_task_child_privileged() failed: Unspecified error", /*fatal=*/true);
      flushEvents();
      std::exit(1);
    }
    childExit(1);
  }
  PrivState unused;
  if (!dropPrivileges(job, true, &unused)) {
    slurmLog(LogLevel::Error, std::string("drop_privileges: ") + std::strerror(errno));
    childExit(1);
  }
  if (chdir(spec.cwd.c_str()) < 0) {
    slurmLog(LogLevel::Error, "couldn't chdir to `" + spec.cwd + "': " + std::strerror(errno) +
                                  ": going to /tmp instead");
    if (chdir("/tmp") < 0) childExit(1);
  }
  if (!becomeUser(job, privileges)) {
    slurmLog(LogLevel::Error, std::string("_become_user failed: ") + std::strerror(errno));
    childExit(1);
  }
  // _unblock_signals (22.05): what slurmstepd blocks goes back to its
  // default, and nothing stays blocked. 24.11 has no such step: its
  // handlers stay until execve, and what is blocked stays blocked.
  const releases::Signals& signals = releases::signals(stack.version());
  if (signals.taskChildUnblocks) slurm_signals::unblockAsTaskChild(signals.stepdBlocked);
  if (!prepareStdio(in, out, err)) childExit(1);
  if (!waitForRelease(barrier)) childExit(1);
  execTask(stack, spec, mpi, index);
}

}  // namespace

bool forkTask(Stack& stack, StepSpec& spec, MpiStepd& mpi, size_t index, const PrivState& privileges,
              const std::vector<TaskProcess>& earlier, const TaskStdin& input, TaskProcess* process) {
  int barrier[2], out[2], err[2];
  if (pipe2(barrier, O_CLOEXEC) < 0) return false;
  if (pipe2(out, O_CLOEXEC) < 0) {
    close(barrier[0]);
    close(barrier[1]);
    return false;
  }
  if (pipe2(err, O_CLOEXEC) < 0) {
    for (int fd : {barrier[0], barrier[1], out[0], out[1]}) close(fd);
    return false;
  }
  for (int fd : {barrier[0], barrier[1], out[0], out[1], err[0], err[1]}) containment::own(fd);
  // What the parent reported so far goes out before the first child can
  // report anything: Node reads the shared socket in order, and a child's
  // line (an execve error) must not overtake the parent's events ("io")
  // that give it its meaning. Later children find nothing of that kind
  // waiting.
  if (earlier.empty()) flushEvents();
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    for (int* fd : {&barrier[0], &barrier[1], &out[0], &out[1], &err[0], &err[1]}) containment::closeOwned(fd);
    return false;
  }
  if (pid == 0) {
    // The fork left us nothing buffered (the parent's events are the
    // parent's to send); ours go to the task's slot, where Node finds them
    // if we die.
    useTaskEventSlot(index);
    resetPid();
    containment::enterChild();
    // slurmstepd's child drops its copy of the earlier tasks' pipes (it
    // destroys its wait list): that is what lets a barrier closed by the
    // parent reach every task.
    std::vector<int> inputDrops = input.childDrops(index);
    std::vector<int> drop;
    drop.reserve(3 + 4 * earlier.size() + inputDrops.size());
    for (int fd : {barrier[1], out[0], err[0]}) drop.push_back(fd);
    for (const auto& t : earlier)
      for (int fd : {t.barrier, t.out, t.err, t.ended})
        if (fd >= 0) drop.push_back(fd);
    // The other tasks' inputs and slurmstepd's writing ends: a task's
    // reader must see EOF when slurmstepd closes its pipe.
    for (int fd : inputDrops) drop.push_back(fd);
    closeDescriptors(std::move(drop));
    runChild(stack, spec, mpi, index, privileges, barrier[0], input.taskEnd(index), out[1], err[1], parent);
  }

  containment::closeOwned(&barrier[0]);
  containment::closeOwned(&out[1]);
  containment::closeOwned(&err[1]);
  fcntl(out[0], F_SETFL, O_NONBLOCK);
  fcntl(err[0], F_SETFL, O_NONBLOCK);
  process->index = index;
  process->pid = pid;
  process->barrier = barrier[1];
  process->out = out[0];
  process->err = err[0];
  // close-on-exec by nature; a kernel without pidfds says ENOSYS. ESRCH:
  // the child is already gone, reaped by plugin code (a thread of its own,
  // or SIGCHLD ignored): its status is lost to slurmstepd.
  process->ended = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (process->ended >= 0) containment::own(process->ended);
  else if (errno == ESRCH) process->lost = true;
  return true;
}

}  // namespace plugstack
