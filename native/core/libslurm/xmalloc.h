// Memory in the layout of Slurm's xmalloc(): two size_t words (a magic
// number and the size) before the bytes handed out, so that Slurm's xfree()
// -- the real libslurm's, for a plugin linked with -lslurm, or plugstack's
// slurm_xfree -- releases it. Used where Slurm's API returns xmalloc'd
// memory (slurm_hostlist_ranged_string_xmalloc).
#pragma once

#include <cstddef>

namespace plugstack::libslurm {

// Zeroed; never NULL (aborts like xmalloc when memory runs out).
void* xmallocBlock(size_t size);

}  // namespace plugstack::libslurm
