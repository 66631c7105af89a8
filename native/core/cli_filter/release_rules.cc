#include "cli_filter/release_rules.h"

namespace plugstack {

namespace {

constexpr CliFilterRelease kReleases[] = {
    // src/interfaces/cli_filter.c and src/lua/slurm_lua.c at slurm-24-11-5-1.
    {2411, true, true, true},
    // src/common/cli_filter.c and src/lua/slurm_lua.c at slurm-22-05-8-1.
    {2205, false, false, false},
};

}  // namespace

const CliFilterRelease& cliFilterRelease(const SlurmVersion& version) {
  for (const auto& r : kReleases)
    if (version.line() >= r.line) return r;
  return kReleases[1];
}

}  // namespace plugstack
