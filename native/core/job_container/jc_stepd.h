// slurmstepd's side of the job_container interface, per release (24.11:
// slurmd/req.c _forkexec_slurmstepd and slurmstepd/slurmstepd.c, mgr.c;
// 22.05: slurmstepd/mgr.c):
//
//   24.11 (from 24.11.1): slurmd's forked child joins with step_create true
//     before it becomes the slurmstepd (every step but the extern one): an
//     instance of the plugins of its own (slurmd's address space in Slurm),
//     dropped without fini as exec drops it;
//   job_container_init (failure: fatal "Couldn't load all plugins");
//   24.11: recv_stepd on what slurmd's send_stepd wrote (failure: fatal);
//   each task joins before task_init_privileged, as root (failure: exit 1);
//   22.05: add_cont once the tasks are forked and task_post_fork ran;
//   the plugins are never unloaded (slurmstepd has no job_container_fini).
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "job_container/jc_list.h"

namespace plugstack {

struct StepSpec;

class JcStepd {
 public:
  JcStepd(JcSettings settings, const StepSpec& spec, std::vector<std::string> pluginDirs, const SlurmVersion& version);

  bool active() const { return settings_.present && !settings_.types.empty(); }
  bool externStep() const;

  // slurmd's child: false when its join failed (the slurmstepd is never
  // started: slurmd's child _exit(SLURM_ERROR)).
  bool slurmdChildJoin();
  // job_container_init and recv_stepd: false ends slurmstepd (fatal).
  bool start();
  // In task local's process, as root, before task_init_privileged; its rc.
  int taskJoin(size_t local);
  // In the child that runs a task epilog for task local (both releases'
  // _run_script_as_user), before it becomes the user; its rc.
  int scriptJoin(size_t local);
  // 22.05: container_g_add_cont after task_post_fork (an error only logged).
  void addCont();
  // The extern step: stepd_create first (false: the step fails), and
  // stepd_delete at its end.
  bool stepdCreate(void* stepRecord);
  // REQUEST_GET_NS_FD: container_g_join_external, its fd (<= 0: none).
  int joinExternal();
  void stepdDelete();

  // SlurmdParameters=contain_spank (24.11): SPANK's user_init,
  // task_post_fork and task_exit run in a clone(CLONE_VM) child that joins
  // the job's container first (the child shares slurmstepd's memory, so
  // what a plugin sets there is seen afterwards). call returns the pass's
  // rc; before (user_init: drop privileges) runs after the join.
  bool containsSpank() const;
  // The child's result: 0, or -1 when the call failed, the join failed
  // (the child exits -1) or the clone did.
  int runContained(const char* callback, int task, const std::function<int()>& call,
                   const std::function<bool()>& before = nullptr);

  static void setCurrent(JcStepd* jc);
  static JcStepd* current();

 private:
  // container_g_join for one task's process (a task or its epilog's child).
  int join(JcProcess process, size_t local);

  JcSettings settings_;
  std::vector<std::string> pluginDirs_;
  SlurmVersion version_;
  JcList list_;
  uint32_t jobId_, stepId_;
  uid_t uid_;
};

}  // namespace plugstack
