// The environment variables srun, sbatch and salloc read as options
// (SLURM_JOB_NAME for srun's --job-name, SBATCH_PARTITION, ...), generated
// from each command's env_vars table (scripts/gen-cli-env.py).
#pragma once

#include "rules/builtin_options.h"

namespace plugstack {

struct EnvOption {
  const char* variable;
  const char* option;  // the long name of the option it sets
  unsigned commands;
  unsigned releases;
};

// Visits the variables of a command in the command's order.
template <typename F>
void forEachEnvOption(Command command, const SlurmVersion& version, F&& visit);

const EnvOption* envOptionTable(size_t* count);

template <typename F>
void forEachEnvOption(Command command, const SlurmVersion& version, F&& visit) {
  size_t n;
  const EnvOption* table = envOptionTable(&n);
  for (size_t i = 0; i < n; i++)
    if ((table[i].commands & commandBit(command)) && (table[i].releases & releaseBit(version))) visit(table[i]);
}

}  // namespace plugstack
