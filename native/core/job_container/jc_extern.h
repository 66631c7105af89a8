// The extern step (PrologFlags=Contain; step id SLURM_EXTERN_CONT) as
// slurmstepd runs it for job_container plugins (mgr.c _spawn_job_container,
// slurmstepd.c): stepd_create first (its failure fails the step), a
// process that only sleeps for the job's lifetime (slurmstepd execs sleep),
// 22.05's add_cont, then it waits for the job's end (Node's "stop"), kills
// the sleeper and calls stepd_delete. The SPANK stack runs there as in
// slurmstepd: init and init_post_opt after stepd_create (a failure fails the step), the
// task_post_fork of no task (-1) once the sleeper is forked (a failure only
// logged), and exit (spank_fini) before stepd_delete.
#pragma once

#include "common/channel.h"
#include "config/plugstack_conf.h"
#include "job_container/jc_stepd.h"
#include "spank/stack.h"
#include "step/step_spec.h"

namespace plugstack {

// Returns the role's status; reports launch, done and the calls.
int runExternStep(Channel& channel, StepSpec& spec, JcStepd& jc, const StackSettings& settings, const ParsedConf& conf);

}  // namespace plugstack
