// The release whose libslurm plugstack plays, as the libslurm tables index
// it: the layout of job records, which functions the headers declare, the
// hostlist parser's rules. It is the emulated release of the host's stack.
#pragma once

namespace plugstack::libslurm {

enum class Release { S2411 = 0, S2205 = 1 };
constexpr int kReleaseCount = 2;

// The release of the current stack (24.11 when there is none).
Release currentRelease();

// Bit of a release in the generated API table (api_table.inc).
constexpr unsigned releaseBit(Release r) { return r == Release::S2411 ? 1u : 2u; }

const char* releaseName(Release r);

}  // namespace plugstack::libslurm
