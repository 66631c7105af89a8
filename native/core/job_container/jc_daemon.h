// slurmd's side of the job_container interface: job_container_init after
// SPANK's init (a plugin that does not load ends slurmd: "Unable to
// initialize job_container plugin."), then container_g_restore(SlurmdSpoolDir,
// recover), whose failure is only logged; job_container_fini at the very
// end, after SPANK's slurmd_exit. check loads the plugins the same way and
// unloads them at once (no restore: it may create and remove directories).
#pragma once

#include <string>
#include <vector>

#include "common/json.h"
#include "job_container/jc_list.h"

namespace plugstack {

class JcDaemon {
 public:
  JcDaemon(JcSettings settings, std::vector<std::string> pluginDirs, const SlurmVersion& version, bool recover)
      : list_(std::move(settings), std::move(pluginDirs), version), recover_(recover) {}

  bool configured() const { return list_.settings().present && !list_.settings().types.empty(); }
  // false: slurmd ends.
  bool start();
  // plugstack check: init and fini only.
  bool check();
  // One of slurmd's calls for a job, in a slurmd process of its own:
  // restore (slurmd's start, as the job's slurmd has just started),
  // create (22.05, before the job's first step on the node; an error only
  // logged), delete (22.05, once the job has ended there), send_stepd
  // (24.11, for one slurmstepd: what it wrote goes to Node as hex in a
  // last jobContainer event with data). false: the plugins did not load.
  bool op(const std::string& op, uint32_t jobId, uid_t uid);
  void stop() { list_.fini(); }

 private:
  bool load();
  void restore(JcCall call);

  JcList list_;
  bool recover_;
};

}  // namespace plugstack
