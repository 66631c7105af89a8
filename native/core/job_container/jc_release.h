// A job_container release as the core uses it, built from releases.json's
// jobContainer table (rules/releases.h): the hooks it requires, in Slurm's
// order, how it calls them, and what became of the hooks it no longer has.
#pragma once

#include <cstddef>

#include "rules/slurm_version.h"

namespace plugstack {

// The hooks plugstack calls, whatever the release names them.
enum class JcHook {
  Create,        // 22.05: slurmd, before a job's first step on the node
  AddCont,       // 22.05: slurmstepd, once the step's processes are contained
  Join,          // every process that runs the job's code
  JoinExternal,  // an adopt request: returns a namespace fd
  Delete,        // 22.05: slurmd, when the job has ended on the node
  Restore,       // slurmd at start
  Reconfig,      // 22.05: slurmd on reconfigure
  StepdCreate,   // the extern step, first
  StepdDelete,   // the extern step, at its end
  SendStepd,     // 24.11: slurmd, to every slurmstepd it starts
  RecvStepd,     // 24.11: slurmstepd, before anything of its step
};

struct JcSymbol {
  JcHook hook;
  const char* symbol;
};

struct JcObsolete;

struct JcRelease {
  unsigned line;      // 2205, 2411
  const char* name;   // "22.05", "24.11"
  // The ops table Slurm resolves, in its order: every symbol required.
  const JcSymbol* symbols;
  size_t count;
  // join(step_id*, uid, step_create) (24.11.1 on) or join(job_id, uid).
  bool join3;
  // stepd_create(job_id, stepd_step_rec_t*) (23.02 on) or (job_id, uid).
  bool stepdCreateTakesStep;
  // slurmd's forked child that becomes a slurmstepd joins (step_create
  // true) before exec, for every step but the extern one (24.11.1 on).
  bool joinInStepdChild;
  // slurmd's child that execs the SPANK job_prolog/job_epilog helper joins
  // first, with slurmd's uid, a failure only logged (22.05's
  // prep_script_slurmd.c _run_spank_job_script; 24.11 no longer does).
  bool joinInJobScript;
  // With SlurmdParameters=contain_spank, user_init, task_post_fork and
  // task_exit run in clone(CLONE_VM) children that join first (23.02 on;
  // 22.05 runs them in slurmstepd itself).
  bool containSpank;
  // The interface's older hooks this release no longer has, with their fate.
  const JcObsolete* obsolete;
  size_t obsoleteCount;
};

const JcRelease& jcRelease(const SlurmVersion& version);

// A hook's symbol in a release, or nullptr when the release has none.
const char* jcSymbol(const JcRelease& release, JcHook hook);
// The short name results use: "join", "stepd_create", ...
const char* jcHookName(JcHook hook);

// The hooks of older interfaces and what became of them, for check's
// message about a plugin that lacks some of the release's hooks.
struct JcObsolete {
  const char* symbol;
  const char* fate;  // in plugstack's words
};
// The ones that apply to this release (a hook it still has is not listed).
size_t jcObsoleteHooks(const JcRelease& release, const JcObsolete** out);

}  // namespace plugstack
