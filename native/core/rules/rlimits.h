// Slurm's names for the resource limits (src/common/slurm_rlimits_info.c:
// the names PropagateResourceLimits and --propagate take, and the
// SLURM_RLIMIT_<NAME> variables), with the resource each stands for.
// Which of them a release propagates or raises is in releases.json
// (table "limits").
#pragma once

#include <sys/resource.h>

#include <string_view>

namespace plugstack::rlimits {

struct Named {
  const char* name;
  int resource;
};

inline constexpr Named kNamed[] = {
    {"CPU", RLIMIT_CPU},   {"FSIZE", RLIMIT_FSIZE}, {"DATA", RLIMIT_DATA},     {"STACK", RLIMIT_STACK},
    {"CORE", RLIMIT_CORE}, {"RSS", RLIMIT_RSS},     {"NPROC", RLIMIT_NPROC},   {"NOFILE", RLIMIT_NOFILE},
    {"MEMLOCK", RLIMIT_MEMLOCK}, {"AS", RLIMIT_AS},
};

// The resource of a Slurm name, or -1.
inline int resourceOf(std::string_view name) {
  for (const Named& n : kNamed)
    if (name == n.name) return n.resource;
  return -1;
}

}  // namespace plugstack::rlimits
