// The long options srun, sbatch and salloc define themselves, as Slurm's
// common_options table has them (generated: scripts/gen-builtin-options.py).
//
// A plugin option with one of these names is disabled when the command
// builds its option table ("Ignoring conflicting option"), so it never
// reaches the plugin and is missing from --help. cli_filter plugins read
// and change the same options through slurm_option_* (cli_filter/).
#pragma once

#include <optional>
#include <string_view>

#include "rules/slurm_version.h"

namespace plugstack {

enum class Command { Srun, Sbatch, Salloc };

const char* commandName(Command c);
std::optional<Command> commandByName(std::string_view name);

// How an option's getter prints its value (slurm_option_get).
enum class OptionGetter {
  String,        // the value, NULL when unset
  SbatchString,  // "invalid-context" outside sbatch, else as String
  SrunString,    // "invalid-context" outside srun, else as String
  Bool,          // "set" or "unset"
  SrunBool,      // "invalid-context" outside srun, else as Bool
  Int,           // the number in decimal
  Mbytes,        // megabytes with a unit suffix
  Time,          // a duration as [days-]hours:minutes:seconds
  Custom,        // a getter of its own (cli_filter/option_values.cc)
  None,          // no getter
};

struct BuiltinOption {
  const char* name;
  int hasArg;         // 0 none, 1 required, 2 optional
  char shortName;     // 0 when the option has no one-letter form
  unsigned commands;  // the commands that accept it (a setter for them)
  unsigned releases;
  unsigned earlyFor;  // commands whose early pass it belongs to
  OptionGetter getter;
  const char* field;  // what the getter reads; options sharing it share a value
  bool resetEachPass; // every pass of option processing starts it afresh
};

// The value slurm_process_option hands the option's setter, from any
// source (the command line, a variable, the batch script): an empty value
// of an option whose argument is optional is none (getopt_long gives
// "--opt=" an empty one), so salloc --kill-command= is SIGTERM.
inline const char* processedOptionArg(const BuiltinOption& option, const char* arg) {
  return option.hasArg == 2 && arg && !*arg ? nullptr : arg;
}

// The option called name in that command of that release, or nullptr.
const BuiltinOption* findBuiltinOption(Command command, const SlurmVersion& version,
                                       std::string_view name);

// Slurm's lookup by name for slurm_option_*: the first entry of the
// release's table with that name, whatever the command (so "wait" is
// sbatch's flag even in srun).
const BuiltinOption* findOptionByName(const SlurmVersion& version, std::string_view name);

// Visits every option of a command in Slurm's table order.
template <typename F>
void forEachBuiltinOption(Command command, const SlurmVersion& version, F&& visit);

// Implementation detail of forEachBuiltinOption.
const BuiltinOption* builtinOptionTable(size_t* count);
unsigned commandBit(Command c);
unsigned releaseBit(const SlurmVersion& v);

// Visits every option of a release in Slurm's table order (the order of
// slurm_option_get_next_set).
template <typename F>
void forEachReleaseOption(const SlurmVersion& version, F&& visit) {
  size_t n;
  const BuiltinOption* table = builtinOptionTable(&n);
  for (size_t i = 0; i < n; i++)
    if (table[i].releases & releaseBit(version)) visit(table[i]);
}

template <typename F>
void forEachBuiltinOption(Command command, const SlurmVersion& version, F&& visit) {
  size_t n;
  const BuiltinOption* table = builtinOptionTable(&n);
  for (size_t i = 0; i < n; i++)
    if ((table[i].commands & commandBit(command)) && (table[i].releases & releaseBit(version)))
      visit(table[i]);
}

}  // namespace plugstack
