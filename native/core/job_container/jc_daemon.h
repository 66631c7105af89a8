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
  void stop() { list_.fini(); }

 private:
  JcList list_;
  bool recover_;
};

}  // namespace plugstack
