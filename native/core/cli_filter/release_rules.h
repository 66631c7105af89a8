// What differs between the emulated releases for cli_filter, as data.
#pragma once

#include "rules/slurm_version.h"

namespace plugstack {

struct CliFilterRelease {
  unsigned line;  // 2205, 2411
  // 24.11 loads the plugins first thing in main() and ends the command
  // with fatal("failed to initialize cli_filter plugin") if one fails;
  // 22.05 loads them in the first hook call, which then fails ("cli_filter
  // plugin terminated with error").
  bool loadsInMain;
  // The lua plugin's slurm table: get_qos_priority exists (24.11), and
  // which ESLURM_* constants are set (22.05: eight; 24.11: every one).
  bool luaQosPriority;
  bool luaAllErrorNames;
};

const CliFilterRelease& cliFilterRelease(const SlurmVersion& version);

}  // namespace plugstack
