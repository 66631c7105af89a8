// Which mpi plugins a PluginDir offers, the two ways Slurm asks:
//
// - plugin_get_plugins_of_type("mpi"), what slurmd loads at start: every
//   mpi_<name>.so of every directory, by file name alone, each name once;
// - srun --mpi=list (plugrack_print_mpi_plugins): every *.so whose name
//   starts with "mpi" (or "libmpi") that loads as a Slurm plugin of this
//   release with a plugin_type "mpi..."; pmix_* files are summed up on a
//   line of their own.
//
// Both in directory order (readdir), as Slurm reads them. plugstack's own
// plugins (pmi2; 22.05's none) are offered too when no directory has them.
#pragma once

#include <string>
#include <vector>

#include "rules/slurm_version.h"

namespace plugstack {

// "pmi2", "none", ... (without "mpi/").
std::vector<std::string> mpiTypesInDirs(const std::vector<std::string>& dirs, const SlurmVersion& version);

// The text srun --mpi=list prints.
std::string mpiListText(const std::vector<std::string>& dirs, const SlurmVersion& version);

}  // namespace plugstack
