// One cli_filter plugin as srun, sbatch and salloc call it: a C plugin
// loaded from PluginDir (c_filter.cc), or one of the plugins Slurm ships,
// which plugstack provides itself because Slurm's own cannot load outside
// Slurm (lua/, syslog_filter.cc, user_defaults_filter.cc).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cli_filter/option_store.h"

namespace plugstack {

class CliFilter {
 public:
  virtual ~CliFilter() = default;
  virtual int setupDefaults(slurm_opt* opt, bool early) = 0;
  virtual int preSubmit(slurm_opt* opt, int offset) = 0;
  virtual void postSubmit(int offset, uint32_t jobid, uint32_t stepid) = 0;
  // fini() and dlclose, for those loaded from a file.
  virtual void unload() {}
};

// A problem Slurm passes over happened in the running hook (strict mode
// counts them).
void noteFilterProblem();
int filterProblemCount();

// The hook symbols of the interface, in Slurm's order.
extern const std::vector<const char*> kCliFilterHooks;
// The names Slurm 20.02 and older used; a plugin with only these is refused.
extern const std::vector<const char*> kCliFilterOldHooks;

// What a cli_filter plugin may need of the command's configuration.
struct CliFilterSettings {
  std::vector<std::string> plugins;     // CliFilterPlugins, without "cli_filter/"
  std::vector<std::string> pluginDirs;  // PluginDir
  std::string slurmConf;                // the slurm.conf: cli_filter.lua is beside it
  std::string file;                     // where CliFilterPlugins is (an Include, maybe)
  int line = 0;                         // and its line
  bool strict = false;                  // problems Slurm passes over fail the hook
  std::string clusterName;              // ClusterName
  std::string luaVersion = "5.1";       // the Lua cli_filter/lua runs with
  std::string userDefaults;             // user_defaults' file, when not ~/.slurm/defaults
};

}  // namespace plugstack
