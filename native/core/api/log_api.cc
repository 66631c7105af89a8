// The logging functions plugins call.
//
// spank.h declares the slurm_* names. Real plugins also call Slurm's
// internal names (error, info, verbose, debug, debug2, debug3) without
// declaring them, because slurmstepd and srun export them. They must be
// defined here: otherwise the dynamic loader binds a plugin's error() to
// glibc's error(3), whose first argument is an exit status, and a plugin's
// error("...") can end the process.
#include <stdarg.h>

#include <cstdio>
#include <string>

#include "common/slurm_log.h"
#include "common/visibility.h"

using plugstack::LogLevel;

namespace {

std::string format(const char* fmt, va_list ap) {
  if (!fmt) return "(null)";
  char small[512];
  va_list copy;
  va_copy(copy, ap);
  int n = std::vsnprintf(small, sizeof small, fmt, copy);
  va_end(copy);
  if (n < 0) return "";
  if (static_cast<size_t>(n) < sizeof small) return std::string(small, static_cast<size_t>(n));
  std::string out(static_cast<size_t>(n) + 1, '\0');
  std::vsnprintf(out.data(), out.size(), fmt, ap);
  out.resize(static_cast<size_t>(n));
  return out;
}

void logv(LogLevel level, const char* fmt, va_list ap, bool bare = false) {
  plugstack::pluginLog(level, format(fmt, ap), bare);
}

// Slurm's log_level_t as plugstack's level.
LogLevel slurmLogLevel(int level) {
  static const LogLevel kLevels[] = {LogLevel::Error,   LogLevel::Error, LogLevel::Error,  LogLevel::Info,
                                     LogLevel::Verbose, LogLevel::Debug, LogLevel::Debug2, LogLevel::Debug3};
  return level >= 0 && level < 8 ? kLevels[level] : LogLevel::Debug3;
}

}  // namespace

#define PLUGSTACK_LOG_FUNCTION(fn, level)        \
  PLUGSTACK_EXPORT void fn(const char* fmt, ...) { \
    va_list ap;                                  \
    va_start(ap, fmt);                           \
    logv(level, fmt, ap);                        \
    va_end(ap);                                  \
  }

extern "C" {

PLUGSTACK_LOG_FUNCTION(slurm_info, LogLevel::Info)
PLUGSTACK_LOG_FUNCTION(slurm_verbose, LogLevel::Verbose)
PLUGSTACK_LOG_FUNCTION(slurm_debug, LogLevel::Debug)
PLUGSTACK_LOG_FUNCTION(slurm_debug2, LogLevel::Debug2)
PLUGSTACK_LOG_FUNCTION(slurm_debug3, LogLevel::Debug3)
PLUGSTACK_LOG_FUNCTION(info, LogLevel::Info)
PLUGSTACK_LOG_FUNCTION(verbose, LogLevel::Verbose)
PLUGSTACK_LOG_FUNCTION(debug, LogLevel::Debug)
PLUGSTACK_LOG_FUNCTION(debug2, LogLevel::Debug2)
PLUGSTACK_LOG_FUNCTION(debug3, LogLevel::Debug3)

PLUGSTACK_EXPORT void slurm_error(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  logv(LogLevel::Error, fmt, ap);
  va_end(ap);
}

// Slurm's error() returns SLURM_ERROR, and slurm_error is an alias of it;
// callers that ignore the value see no difference.
PLUGSTACK_EXPORT int error(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  logv(LogLevel::Error, fmt, ap);
  va_end(ap);
  return -1;
}

// Slurm's log macros in plugins built in Slurm's tree (info(), debug()...
// with SLURM_PLUGIN_DEBUG, as Debian's mpi_none.so is) ask the level, then
// call log_var with Slurm's log_level_t: 1 fatal, 2 error, 3 info,
// 4 verbose, 5 debug, 6 debug2, 7 debug3 and up. Every level is passed on.
PLUGSTACK_EXPORT int get_log_level(void) { return 9; /* LOG_LEVEL_DEBUG5 */ }

PLUGSTACK_EXPORT void log_var(int level, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  logv(slurmLogLevel(level), fmt, ap);
  va_end(ap);
}

PLUGSTACK_EXPORT int slurm_get_log_level(void) { return get_log_level(); }

PLUGSTACK_EXPORT void slurm_log_var(int level, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  logv(slurmLogLevel(level), fmt, ap);
  va_end(ap);
}

// Logged at error level, but printed without "srun: error: ".
PLUGSTACK_EXPORT void slurm_spank_log(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  logv(LogLevel::Error, fmt, ap, /*bare=*/true);
  va_end(ap);
}

}  // extern "C"
