// The keys slurm.conf accepts in each emulated release, and their value
// types (generated from Slurm's read_config.c). A key Slurm does not know
// stops srun, sbatch and salloc ("Parsing error at unrecognized key"); a
// line key (NodeName, PartitionName, ...) takes the rest of its line as
// keys of its own.
#pragma once

#include <string_view>

#include "rules/slurm_version.h"

namespace plugstack {

enum class SlurmConfType { String, Uint16, Uint32, Uint64, Boolean, Long, Float, Double, Array, Line };

struct SlurmConfKey {
  const char* scope;  // "" at the top level, else the line key
  const char* name;   // as Slurm spells it
  SlurmConfType type;
  unsigned releases;
};

// The key called name (any case) in that scope of that release, or nullptr.
const SlurmConfKey* findSlurmConfKey(std::string_view scope, std::string_view name,
                                     const SlurmVersion& version);

}  // namespace plugstack
