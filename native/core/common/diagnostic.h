// A problem found while reading a configuration or loading a plugin.
//
// Every problem carries a stable code (the TypeScript layer and the check
// report expose it unchanged), our own explanation, where it happened, and
// the lines a real Slurm would have logged for the same input, so users can
// match plugstack's report against their slurmd logs.
#pragma once

#include <string>
#include <vector>

namespace plugstack {

enum class Severity {
  // Slurm would refuse the stack (the command or daemon fails).
  Error,
  // Slurm carries on, but something is not what the admin meant.
  Warning,
};

struct SlurmLogLine {
  std::string level;  // "error", "info", "verbose", "debug", ...
  std::string text;
};

struct Diagnostic {
  Severity severity = Severity::Warning;
  std::string code;     // e.g. CONFIG_INVALID_LINE
  std::string message;  // plugstack's explanation
  std::string file;     // config file, when the problem has a place
  int line = 0;
  std::vector<SlurmLogLine> slurmLog;
};

const char* severityName(Severity s);

}  // namespace plugstack
