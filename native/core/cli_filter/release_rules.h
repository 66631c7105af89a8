// What differs between the emulated releases for cli_filter: the cliFilter
// table of rules/releases.json.
#pragma once

#include "rules/releases.h"

namespace plugstack {

using CliFilterRelease = releases::CliFilter;

inline const CliFilterRelease& cliFilterRelease(const SlurmVersion& version) {
  return releases::cliFilter(version);
}

}  // namespace plugstack
