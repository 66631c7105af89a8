// The cli_filter plugins Slurm ships (lua, syslog, user_defaults). Slurm's
// own .so files cannot load outside Slurm (they use its internals), so when
// slurm.conf names one, plugstack runs its own implementation of it.
#pragma once

#include <memory>
#include <string>

#include "cli_filter/filter.h"

namespace plugstack {

bool isBuiltinFilter(const std::string& name);

struct BuiltinFilterLoad {
  std::unique_ptr<CliFilter> filter;  // null when init() failed
  int err = 0;                        // ESLURM_PLUGIN_INIT_FAILED then
  std::string code;                   // the problem code, when more precise
  std::string detail;                 // why
  std::string path;                   // what it reads (cli_filter.lua), for reports
};

// Runs the plugin's init() (the lua plugin loads its script there).
BuiltinFilterLoad loadBuiltinFilter(const std::string& name, const CliFilterSettings& settings,
                                    const SlurmVersion& version, Command command, int ref);

}  // namespace plugstack
