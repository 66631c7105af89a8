// The extern step (PrologFlags=Contain; step id SLURM_EXTERN_CONT) as
// slurmstepd runs it for job_container plugins (mgr.c _spawn_job_container,
// slurmstepd.c): stepd_create first (its failure fails the step), a
// process that only sleeps for the job's lifetime (slurmstepd execs sleep),
// 22.05's add_cont, then it waits for the job's end (Node's "stop"), kills
// the sleeper and calls stepd_delete. The SPANK stack does not run in
// plugstack's extern step (Slurm's runs init and task_post_fork there):
// see the README's differences.
#pragma once

#include "common/channel.h"
#include "job_container/jc_stepd.h"
#include "step/step_spec.h"

namespace plugstack {

// Returns the role's status; reports launch, done and the calls.
int runExternStep(Channel& channel, StepSpec& spec, JcStepd& jc, const SlurmVersion& version);

}  // namespace plugstack
