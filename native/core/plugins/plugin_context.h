// plugin_context_create: how Slurm loads one plugin of a kind other than
// SPANK (cli_filter, mpi, job_container) by its type, "cli_filter/lua":
//
//   1. cli_filter_lua.so in each PluginDir in order; a directory where it
//      fails to load (bad version, init() failing) passes to the next;
//   2. found and loaded: every hook symbol of the kind must exist, or the
//      process ends (fatal: "Plugin loading failed due to missing symbols.
//      Plugin is corrupted."), init() having run already;
//   3. found nowhere: every <major>*.so of every PluginDir is peeked and
//      the one whose plugin_type is the type exactly is loaded (a missing
//      hook is only an error then: "incomplete ... plugin detected");
//   4. otherwise Slurm's error lines, and no context.
#pragma once

#include <string>
#include <vector>

#include "plugins/plugin_file.h"

namespace plugstack {

struct PluginContext {
  PluginFile file;
  std::vector<void*> hooks;  // in the order of the names asked for
};

enum class ContextOutcome {
  Loaded,
  Failed,          // logged; the caller reports its own error
  MissingSymbols,  // logged as Slurm's fatal line: the process must end
};

struct ContextResult {
  ContextOutcome outcome = ContextOutcome::Failed;
  int err = 0;                       // ESLURM_PLUGIN_* of the last attempt
  std::string detail;                // dlerror(), version, init()'s rc
  std::vector<std::string> missing;  // hook symbols not found
};

// major: "cli_filter"; type: "cli_filter/lua"; hooks: the kind's symbols.
ContextResult createPluginContext(const std::string& major, const std::string& type,
                                  const std::vector<const char*>& hooks,
                                  const std::vector<std::string>& pluginDirs,
                                  const SlurmVersion& version, int ref, PluginContext* out);

}  // namespace plugstack
