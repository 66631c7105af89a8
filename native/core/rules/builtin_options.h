// The long options srun, sbatch and salloc define themselves.
//
// A plugin option with one of these names is disabled when the command
// builds its option table ("Ignoring conflicting option"), so it never
// reaches the plugin and is missing from --help.
#pragma once

#include <optional>
#include <string_view>

#include "rules/slurm_version.h"

namespace plugstack {

enum class Command { Srun, Sbatch, Salloc };

const char* commandName(Command c);
std::optional<Command> commandByName(std::string_view name);

struct BuiltinOption {
  const char* name;
  int hasArg;      // 0 none, 1 required, 2 optional
  char shortName;  // 0 when the option has no one-letter form
  unsigned commands;
  unsigned releases;
};

// The option called name in that command of that release, or nullptr.
const BuiltinOption* findBuiltinOption(Command command, const SlurmVersion& version,
                                       std::string_view name);

// Visits every option of a command in Slurm's table order.
template <typename F>
void forEachBuiltinOption(Command command, const SlurmVersion& version, F&& visit);

// Implementation detail of forEachBuiltinOption.
const BuiltinOption* builtinOptionTable(size_t* count);
unsigned commandBit(Command c);
unsigned releaseBit(const SlurmVersion& v);

template <typename F>
void forEachBuiltinOption(Command command, const SlurmVersion& version, F&& visit) {
  size_t n;
  const BuiltinOption* table = builtinOptionTable(&n);
  for (size_t i = 0; i < n; i++)
    if ((table[i].commands & commandBit(command)) && (table[i].releases & releaseBit(version)))
      visit(table[i]);
}

}  // namespace plugstack
