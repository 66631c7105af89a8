// The "Options provided by plugins:" block of srun/sbatch/salloc --help.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace plugstack {

struct HelpOption {
  std::string name;
  std::optional<std::string> arginfo;
  std::optional<std::string> usage;  // nullopt: the plugin's usage was NULL
  bool shown = true;                 // false for disabled options
};

// Terminal width as Slurm reads it: COLUMNS when it is entirely a number,
// else 80.
int helpColumns(const char* columnsEnv);

// Renders the block byte for byte as Slurm 22.05/24.11 print it: a blank
// line and the title (whenever the cache holds any option, even if all are
// disabled), then each shown option as 6 spaces, "--name[=arginfo]" padded
// to column 30, and the usage word-wrapped to the remaining width. A left
// part of 30 characters or more goes on its own line. Empty when there are
// no options at all.
//
// Two inputs crash Slurm itself and are rendered instead: a NULL usage
// (srun copies it with strlcpy and segfaults), shown the way Slurm shows an
// empty usage, "(null)";
// and widths below 31 columns, which are treated as 80.
std::string formatPluginHelp(const std::vector<HelpOption>& options, int columns);

}  // namespace plugstack
