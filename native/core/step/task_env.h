// The environment slurmstepd gives a task (exec_task + setup_env), and the
// one it rebuilds in the parent when a task is reaped (for task_exit).
#pragma once

#include <string>

#include "rules/slurm_version.h"
#include "spank/env_array.h"
#include "step/step_spec.h"

namespace plugstack {

// In the task child, before task_init: the step env plus what slurmstepd
// sets itself, in the order it sets it (SLURM_CPUS_ON_NODE, SLURM_JOB_ID,
// SLURM_JOBID, SLURM_TASK_PID, SLURM_NODEID, SLURM_PROCID, SLURM_LOCALID,
// SLURM_STEP_ID/STEPID for normal steps, SLURM_GTIDS, SLURM_JOB_UID,
// SLURM_JOB_USER, SLURM_JOB_GID, SLURMD_NODENAME, ...).
void applyTaskEnv(EnvArray& env, const StepSpec& spec, const TaskRecord& task,
                  const SlurmVersion& version);

// In the parent, when task is reaped: SLURM_PROCID and SLURM_LOCALID of
// that task, SLURM_SCRIPT_CONTEXT=epilog_task and SLURMD_NODENAME, among
// others. The record's job and step ids and CPU count are not set here (the
// parent never filled them in), and SLURM_JOB_GID reads 0: in Slurm 24.11
// the parent's copy of that field is never set either.
void applyEpilogTaskEnv(EnvArray& env, const StepSpec& spec, const TaskRecord& task,
                        const SlurmVersion& version);

// set_umask, before the step's IO and user_init: the umask SLURM_UMASK of
// the job's environment names (octal) becomes slurmstepd's, and so its
// tasks'; the batch, extern and interactive steps also take the variable
// out of the job's environment.
void applyStepUmask(StepSpec& spec);

// TMPDIR for local task 0: /tmp when unset; created when set, and reset to
// /tmp (with Slurm's messages) when it cannot be used.
void makeTmpdir(EnvArray& env);

// argv[0] resolved along PATH of the task env (absolute paths unchanged,
// "./x" against the cwd), or unchanged when nothing matches.
std::string resolveCommand(const std::string& argv0, const EnvArray& env);

}  // namespace plugstack
