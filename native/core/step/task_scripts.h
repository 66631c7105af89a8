// The task prolog and task epilog (slurm.conf TaskProlog/TaskEpilog, srun's
// --task-prolog/--task-epilog), run where slurmstepd runs them:
//
//   prolog: in each task's process, as the job's user, after task_init and
//     before TMPDIR and exec (task.c exec_task, _run_script_and_set_env):
//     slurm.conf's first, then srun's; the script runs through run_command
//     (stdin /dev/null, stdout and stderr into one pipe, its own process
//     group, no job_container join of its own: it is in the task's
//     container). Its output's lines "export NAME=value", "unset NAME" and
//     "print text" change the task's environment or go to its stdout. A
//     script that fails ends the task with its status ("TaskProlog failed
//     status=N", "--task-prolog failed status=N").
//   epilog: in slurmstepd when it reaps a task, before task_exit (mgr.c
//     _wait_for_any_task, _run_script_as_user): srun's first, then
//     slurm.conf's, each in a child that joins the job's container, becomes
//     the user, enters the step's cwd and execs the script with the task's
//     rebuilt environment; a failure is only logged (srun's epilog is
//     killed after 5 seconds).
#pragma once

#include <string>

#include "rules/slurm_version.h"
#include "spank/env_array.h"
#include "step/privileges.h"
#include "step/step_spec.h"

namespace plugstack {

// In the task's process: each prolog the step has; 0, or the status the
// task must exit with (its message logged).
int runTaskPrologs(const StepSpec& spec, EnvArray& env, const SlurmVersion& version);

// In slurmstepd, for local task `local`, with the environment rebuilt for
// it (SLURM_SCRIPT_CONTEXT=epilog_task): each epilog the step has.
void runTaskEpilogs(const StepSpec& spec, size_t local, EnvArray& env, const PrivState& privileges,
                    const SlurmVersion& version);

}  // namespace plugstack
