// The plugins of JobContainerType, as Slurm's job_container interface
// handles them: loaded in the order of the list (job_container_init; one
// that does not load unloads those before it and fails the whole), every
// container_g_* call going through them in order and stopping at the first
// non-zero result (join_external: at the first fd), fini() in load order.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/json.h"
#include "job_container/jc_plugin.h"

namespace plugstack {

struct JcSettings {
  bool present = false;
  std::vector<std::string> types;  // without "job_container/"
  std::string file;                // slurm.conf, for the record
  int line = 0;
  std::vector<std::string> flags;  // PrologFlags
  bool containSpank = false;       // SlurmdParameters=contain_spank
  std::string spoolDir;            // SlurmdSpoolDir (restore's dir_name)
  std::string slurmConf;           // the slurm.conf (job_container.conf is beside it)
  // 24.11: what slurmd's send_stepd wrote for this slurmstepd (hex in the
  // request), and whether send_stepd failed (slurmd then closes the pipe).
  std::string stepdData;
  bool stepdSendFailed = false;
};

// Reads a request's "jobContainer" (absent: no JobContainerType).
bool readJcSettings(const json::Value& v, JcSettings* out, std::string* error);

class JcList {
 public:
  JcList(JcSettings settings, std::vector<std::string> pluginDirs, const SlurmVersion& version);
  ~JcList();

  bool active() const { return !plugins_.empty(); }
  const JcSettings& settings() const { return settings_; }
  const JcRelease& release() const { return *release_; }

  enum class Init { Ok, Failed, Fatal };
  // job_container_init. Failed: Slurm's error lines are logged, the
  // plugins loaded before are unloaded; Fatal: a hook is missing (the
  // process ends, Slurm's fatal line logged).
  Init init();
  // container_g_<hook>: every plugin in order until one returns non-zero.
  int call(JcHook hook, const JcCall& args);
  // Whether the release has this hook at all.
  bool has(JcHook hook) const { return jcSymbol(*release_, hook) != nullptr; }
  // job_container_fini.
  void fini();
  // Unloaded without fini (what exec does to a forked child's plugins).
  void drop();

 private:
  JcSettings settings_;
  std::vector<std::string> pluginDirs_;
  SlurmVersion version_;
  const JcRelease* release_;
  std::vector<std::unique_ptr<JcPlugin>> plugins_;
};

}  // namespace plugstack
