// Log lines, both those Slurm itself would write and those plugins write
// through slurm_info() and friends (log_api.cc).
#pragma once

#include <string>

namespace plugstack {

// Warning is Slurm's warning(): printed at the info threshold, with the
// prefix "warning: ".
enum class LogLevel { Error, Warning, Info, Verbose, Debug, Debug2, Debug3 };

const char* logLevelName(LogLevel level);

// A line Slurm's own code would log at this point (e.g. "spank: required
// plugin x.so: init() failed with rc=-1"), reported with source "slurm".
// fatal marks a line Slurm writes with fatal() ("srun: fatal: ...").
void slurmLog(LogLevel level, const std::string& text, bool fatal = false);

// A line written by plugin code, reported with source "plugin" and the
// plugin and hook that were running. spankLog marks slurm_spank_log(),
// which Slurm prints without any prefix.
void pluginLog(LogLevel level, const std::string& text, bool spankLog = false);

}  // namespace plugstack
