// A hostlist parsed inside a host, where Slurm's parser would log its
// refusals ("_parse_single_range: Invalid range: `3-1'") on the command's or
// the daemon's log: they go to the host's log as Slurm's own lines.
#pragma once

#include "common/slurm_log.h"
#include "libslurm/hostlist.h"

namespace plugstack::libslurm {

inline bool parseAndLog(HostList& list, const char* expression, const HostlistRules& rules) {
  bool ok = list.parse(expression, rules);
  for (const std::string& line : list.parseLog()) slurmLog(LogLevel::Error, line);
  return ok;
}

}  // namespace plugstack::libslurm
