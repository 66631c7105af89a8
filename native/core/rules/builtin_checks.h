// The values srun, sbatch and salloc check in their own options (Slurm's
// slurm_opt.c setters): a count that must be a positive number, a node
// count, a time. Slurm checks each as the option is processed and ends the
// command with its message; which option is checked how is data here.
#pragma once

#include <optional>
#include <string>

namespace plugstack {

struct BuiltinValueError {
  std::string message;  // what the command logs at error level
  int status;           // its exit status: 1 (exit(1)) or 255 (exit(-1))
  std::string before = {};  // a line the setter logs first, if any
};

// The error Slurm gives for this value of a built-in option, if any. arg is
// NULL for an option given without a value.
std::optional<BuiltinValueError> checkBuiltinValue(const char* name, const char* arg);

// Slurm's time_str2secs: "minutes", "minutes:seconds", "hours:minutes:seconds",
// "days-hours", "days-hours:minutes", "days-hours:minutes:seconds"; -1,
// INFINITE and UNLIMITED are no limit. Returns seconds, -1 for no limit, or
// nullopt for an invalid string. Slurm rounds a time limit up to whole
// minutes (time_str2mins); callers that want Slurm's limit do that.
std::optional<long> timeStringSeconds(const char* text);

// A node count as -N takes it (verify_node_count): "N" (the minimum and the
// maximum) or "MIN-MAX" (k/m suffixes; a MAX of 0 is none).
struct NodeCountRange {
  long min;
  long max;
};
std::optional<NodeCountRange> nodeCountRange(const char* text);
// Its minimum.
std::optional<long> nodeCountMinimum(const char* text);

// A memory size as --mem and --mem-per-cpu take it (str_to_mbytes): a
// number of megabytes, or with K, M, G or T (a B after it allowed).
std::optional<unsigned long long> memoryMegabytes(const char* text);

}  // namespace plugstack
