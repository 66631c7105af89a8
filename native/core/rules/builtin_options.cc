#include "rules/builtin_options.h"

#include <cstring>

namespace plugstack {

namespace {

constexpr BuiltinOption kTable[] = {
#include "rules/builtin_options_table.inc"
};

}  // namespace

const char* commandName(Command c) {
  switch (c) {
    case Command::Srun: return "srun";
    case Command::Sbatch: return "sbatch";
    case Command::Salloc: return "salloc";
  }
  return "srun";
}

std::optional<Command> commandByName(std::string_view name) {
  if (name == "srun") return Command::Srun;
  if (name == "sbatch") return Command::Sbatch;
  if (name == "salloc") return Command::Salloc;
  return std::nullopt;
}

unsigned commandBit(Command c) {
  switch (c) {
    case Command::Srun: return 1;
    case Command::Sbatch: return 2;
    case Command::Salloc: return 4;
  }
  return 0;
}

unsigned releaseBit(const SlurmVersion& v) { return 1u << releaseIndex(v); }

const BuiltinOption* builtinOptionTable(size_t* count) {
  *count = sizeof kTable / sizeof kTable[0];
  return kTable;
}

const BuiltinOption* findBuiltinOption(Command command, const SlurmVersion& version,
                                       std::string_view name) {
  for (const auto& o : kTable)
    if ((o.commands & commandBit(command)) && (o.releases & releaseBit(version)) &&
        name == o.name)
      return &o;
  return nullptr;
}

const BuiltinOption* findOptionByName(const SlurmVersion& version, std::string_view name) {
  for (const auto& o : kTable)
    if ((o.releases & releaseBit(version)) && name == o.name) return &o;
  return nullptr;
}

}  // namespace plugstack
