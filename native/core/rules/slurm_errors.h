// Error numbers and their texts, as slurm_strerror() gives them.
#pragma once

#include <slurm/slurm_errno.h>

namespace plugstack {

// Slurm's lookup order: its own table first (which knows -1 and 0), then
// strerror(3) for other positive numbers, and a fixed text for any other
// negative number. The texts of the ESPANK codes and of the plugin-loader
// codes are those Slurm 22.05 and 24.11 print.
const char* slurmErrorText(int errnum);

// Symbolic name ("ESPANK_BAD_ARG") of a code in our table, or nullptr.
const char* slurmErrorName(int errnum);

}  // namespace plugstack
