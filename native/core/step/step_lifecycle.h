// One node of a job step, run the way slurmstepd runs it (mgr.c
// job_manager and _fork_all_tasks, spank-facts §3):
//
//   SLURM_MPI_TYPE in the step environment (mpi_process_env)
//   load the stack; init; remote options; init_post_opt
//   the mpi plugin's slurmstepd_prefork (not for a batch step)
//   drop to the user's effective ids; user_init
//   fork every task (child: task_init_privileged as root, become the user,
//     block on the barrier)
//   back to root; task_post_fork for each task; release the barrier
//   (child: task environment, the mpi plugin's slurmstepd_task, task_init,
//   the task prologs, execve)
//   answer the launch request (srun stops waiting for the launch)
//   reap each task as it ends: its task epilogs (step/task_scripts.h), then
//     task_exit with its raw wait status; signal
//     the tasks when Node asks (srun's Ctrl-C, a cancel, the time limit)
//   kill what is left of the step; exit; a failed launch is answered now
//
// with each failure's consequence as the emulated release has it.
#pragma once

#include <string>
#include <vector>

#include "common/channel.h"
#include "config/plugstack_conf.h"
#include "spank/stack.h"
#include "step/step_spec.h"
#include "step/task_process.h"
#include "step/task_stdin.h"

namespace plugstack {
class MpiStepd;
}

namespace plugstack {

struct StepOutcome {
  // Where the step stopped early: "" (it ran), "mpi_env" (no
  // SLURM_MPI_TYPE), "stack" (plugstack.conf did not load), "init",
  // "init_post_opt", "mpi_prefork", "io" (a task's input did not open),
  // "user_init", "fork", "task_post_fork".
  std::string failedAt;
  // Slurm's step_complete.step_rc: the first non-zero task status, or -1
  // (SLURM_ERROR) for a failure before the tasks ran (24.11).
  int stepRc = 0;
  // What slurmstepd reports as the step's exit code (_get_exit_code).
  int exitCode = 0;
  // The launch response srun gets: SLURM_PLUGIN_NAME_INVALID when the
  // plugin stack could not start, ESLURMD_EXECVE_FAILED when user_init, a
  // fork or task_post_fork failed (a batch step sends none).
  int launchRc = 0;
  // job_manager's own rc: ESLURMD_EXECVE_FAILED when something inside
  // _fork_all_tasks failed (logged as "exiting abnormally" at the end).
  int managerRc = 0;
  bool exitCallbacksRan = false;
};

class StepLifecycle {
 public:
  // mpi: the step's mpi plugin (mpi/mpi_stepd.h), prefork and task hooks.
  StepLifecycle(Stack& stack, StepSpec& spec, Channel& channel, MpiStepd& mpi)
      : stack_(stack), spec_(spec), channel_(channel), mpi_(mpi) {}
  StepOutcome run(const ParsedConf& conf);

 private:
  bool startStack(const ParsedConf& conf);
  bool setupIo();
  bool runUserInit();
  bool forkTasks();
  void reportForked();
  bool postForkAndRelease();
  void waitForTasks();
  void readCommand();
  void signalTasks(int sig, const std::string& why);
  void sendLaunchResponse(int rc);
  void drainOutput(TaskProcess& t);
  void onTaskExit(TaskProcess& t, int status);
  void killLeftovers();
  void closeAll();
  int exitCode() const;
  void failLaunch();
  void fail(const char* where, const std::string& message);
  int spankTaskCall(Phase phase, const char* name, TaskRecord& task);

  Stack& stack_;
  StepSpec& spec_;
  Channel& channel_;
  MpiStepd& mpi_;
  bool cancelLogged_ = false;
  bool launchResponded_ = false;
  StepOutcome outcome_;
  std::vector<TaskProcess> tasks_;
  size_t reported_ = 0;  // tasks_ already adopted and announced to Node
  // Tasks' output read and not yet sent: it goes before the next plugin
  // call that may take long (a task's exit callbacks), as slurmstepd's IO
  // thread would not wait for them.
  bool outputPending_ = false;
  TaskStdin input_;
  PrivState privileges_;
  std::string savedCwd_;
  pid_t pgid_ = -1;
};

}  // namespace plugstack
