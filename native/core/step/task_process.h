// One task of a step: the child side of slurmstepd's fork (mgr.c
// _fork_all_tasks, task.c exec_task) and the parent's handles on it.
#pragma once

#include <sys/types.h>

#include <vector>

#include "spank/stack.h"
#include "step/privileges.h"
#include "step/step_spec.h"

namespace plugstack {

class MpiStepd;
class TaskStdin;

struct TaskProcess {
  size_t index = 0;
  pid_t pid = -1;
  int barrier = -1;  // write end: one byte releases the child to exec
  int out = -1;      // read ends of the task's stdout and stderr
  int err = -1;
  long long forkedAt = 0;  // monotonicMicros() right after the fork
  // A pidfd, readable once the task has ended: slurmstepd never blocks
  // SIGCHLD (it waits in wait3), so neither does this one; -1 where the
  // kernel has none (before 5.3), and the parent then looks at a bound.
  int ended = -1;
  // It ended and plugin code reaped it first: its status is gone.
  bool lost = false;
};

// Forks task `index`. The child runs task_init_privileged as root, becomes
// the job's user, waits on the barrier, builds its environment, runs the
// mpi plugin's slurmstepd_task, task_init and the task prologs
// (step/task_scripts.h), and execs; it never returns. In the parent, fills `process`
// (pid, barrier, output pipes); false with errno set if fork failed. The
// caller adopts the child (containment::adopt) before any plugin code runs
// in this process again.
// `earlier` are the tasks forked before: the child closes our ends of their
// pipes, as slurmstepd's child destroys its copy of the wait list, so that
// closing a barrier in the parent really reaches that task.
// mpi: the step's mpi plugin, whose slurmstepd_task runs in the child
// after the task environment is built and before task_init. input: each
// task's standard input (task_stdin.h).
// The child keeps slurmstepd's signals (rules/releases.json, "signals")
// through task_init_privileged, as Slurm's does, and only then unblocks them.
bool forkTask(Stack& stack, StepSpec& spec, MpiStepd& mpi, size_t index, const PrivState& privileges,
              const std::vector<TaskProcess>& earlier, const TaskStdin& input, TaskProcess* process);

}  // namespace plugstack
