// The release whose libslurm plugstack plays, as the libslurm tables index
// it: the layout of job records, which functions the headers declare, the
// hostlist parser's rules. It is the emulated release of the host's stack;
// its value is the release's index in rules/releases.h.
#pragma once

#include "rules/releases.h"

namespace plugstack::libslurm {

enum class Release { S2411 = 0, S2205 = 1 };
constexpr int kReleaseCount = releases::kCount;

// The release of the current stack (24.11 when there is none).
Release currentRelease();

// Bit of a release in the generated API table (api_table.inc).
constexpr unsigned releaseBit(Release r) { return 1u << static_cast<int>(r); }

const char* releaseName(Release r);

}  // namespace plugstack::libslurm
