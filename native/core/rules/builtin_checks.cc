#include "rules/builtin_checks.h"

#include "rules/task_distribution.h"

#include <cerrno>
#include <cctype>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace plugstack {

namespace {

enum class Check {
  PositiveInt,     // parse_int(name, arg, true): > 0, exit(1) otherwise
  NonNegativeInt,  // parse_int(name, arg, false): >= 0
  NodeCount,       // verify_node_count: "N" or "MIN-MAX", exit(-1)
  Time,            // time_str2mins, exit(-1)
  Distribution,    // verify_dist_type (task_distribution.h), exit(-1)
};

struct CheckedOption {
  const char* name;  // the long option
  Check check;
  const char* what;  // how Slurm names it in its message
};

// The built-in options whose values plugstack checks, as Slurm's setters do.
constexpr CheckedOption kChecked[] = {
    {"ntasks", Check::PositiveInt, "--ntasks"},
    {"cpus-per-task", Check::PositiveInt, "--cpus-per-task"},
    {"threads", Check::PositiveInt, "--threads"},
    {"msg-timeout", Check::PositiveInt, "--msg-timeout"},
    {"thread-spec", Check::PositiveInt, "--thread-spec"},
    {"threads-per-core", Check::PositiveInt, "--threads-per-core"},
    // slurm_opt.c's COMMON_INT_OPTION_SET options: parse_int, positive.
    {"cores-per-socket", Check::PositiveInt, "--cores-per-socket"},
    {"mincpus", Check::PositiveInt, "--mincpus"},
    {"ntasks-per-core", Check::PositiveInt, "--ntasks-per-core"},
    {"ntasks-per-node", Check::PositiveInt, "--ntasks-per-node"},
    {"ntasks-per-socket", Check::PositiveInt, "--ntasks-per-socket"},
    {"ntasks-per-tres", Check::PositiveInt, "--ntasks-per-tres"},
    {"ntasks-per-gpu", Check::PositiveInt, "--ntasks-per-gpu"},
    {"sockets-per-node", Check::PositiveInt, "--sockets-per-node"},
    // parse_int, not negative, of an argument when one is given (sbatch's
    // --wait takes none; srun's -W is seconds, -K=N a number).
    {"wait", Check::NonNegativeInt, "--wait"},
    {"kill-on-bad-exit", Check::NonNegativeInt, "--kill-on-bad-exit"},
    {"core-spec", Check::NonNegativeInt, "--core-spec"},
    {"relative", Check::NonNegativeInt, "--relative"},
    {"wait-all-nodes", Check::NonNegativeInt, "--wait-all-nodes"},
    {"nodes", Check::NodeCount, "--nodes"},
    {"time", Check::Time, "--time"},
    {"time-min", Check::Time, "--time-min"},
    {"distribution", Check::Distribution, "--distribution"},
};

// parse_int: strtol, the whole string, in range.
std::optional<BuiltinValueError> intError(const char* arg, const char* what, bool positive) {
  char* end = nullptr;
  long value = arg ? std::strtol(arg, &end, 10) : 0;
  if (!arg || end == nullptr || *end != '\0' || value < 0 || (positive && value <= 0))
    return BuiltinValueError{std::string("Invalid numeric value \"") + (arg ? arg : "(null)") + "\" for " + what + ".", 1};
  if (value == LONG_MAX)
    return BuiltinValueError{"Numeric argument (" + std::to_string(value) + ") to big for " + what + ".", 1};
  return std::nullopt;
}

// _str_to_nodes: a number with an optional k/m multiplier; what is left over.
long nodesOf(const char* text, const char** rest) {
  char* end;
  long n = std::strtol(text, &end, 10);
  if (end == text) {
    *rest = text;
    return -1;
  }
  if (*end == 'k' || *end == 'K') {
    n *= 1024;
    end++;
  }
  if (*end == 'm' || *end == 'M') {
    n *= 1024 * 1024;
    end++;
  }
  *rest = end;
  return n;
}

bool blank(const char* s) {
  for (; *s; s++)
    if (!std::isspace(static_cast<unsigned char>(*s))) return false;
  return true;
}

// _is_valid_timespec: digits, at most one '-' (before any ':'), at most two
// ':', with enough numbers for the form.
bool validTimespec(const char* s) {
  int digits = 0, dashes = 0, colons = 0;
  bool inDigit = false;
  for (; *s; s++) {
    if (*s >= '0' && *s <= '9') {
      if (!inDigit) digits++;
      inDigit = true;
    } else if (*s == '-') {
      inDigit = false;
      dashes++;
      if (colons) return false;
    } else if (*s == ':') {
      inDigit = false;
      colons++;
    } else {
      return false;
    }
  }
  if (!digits || dashes > 1 || colons > 2) return false;
  if (dashes) return !((colons == 1 && digits < 3) || (colons == 2 && digits < 4));
  return !((colons == 1 && digits < 2) || (colons == 2 && digits < 3));
}

}  // namespace

// A node range whose maximum is below its minimum, with Slurm's message.
std::optional<std::string> nodeRangeError(const char* text) {
  const char* dash = text ? std::strchr(text, '-') : nullptr;
  if (!dash) return std::nullopt;
  const char* rest;
  std::string min(text, static_cast<size_t>(dash - text));
  long lo = nodesOf(min.c_str(), &rest);
  if (!blank(rest)) return std::nullopt;
  long hi = nodesOf(dash + 1, &rest);
  if (!blank(rest)) return std::nullopt;
  if (lo < 0) lo = 1;
  if (hi != 0 && hi < lo)
    return "Maximum node count " + std::to_string(hi) + " is less than minimum node count " + std::to_string(lo);
  return std::nullopt;
}

std::optional<NodeCountRange> nodeCountRange(const char* text) {
  if (!text) return std::nullopt;
  const char* rest;
  if (const char* dash = std::strchr(text, '-')) {
    std::string min(text, static_cast<size_t>(dash - text));
    long lo = nodesOf(min.c_str(), &rest);
    if (!blank(rest)) return std::nullopt;
    long hi = nodesOf(dash + 1, &rest);
    if (!blank(rest)) return std::nullopt;
    if (lo < 0) lo = 1;
    if (hi != 0 && hi < lo) return std::nullopt;
    return NodeCountRange{lo, hi};
  }
  long n = nodesOf(text, &rest);
  if (!blank(rest) || n < 0) return std::nullopt;
  return NodeCountRange{n, n};
}

std::optional<long> nodeCountMinimum(const char* text) {
  auto range = nodeCountRange(text);
  if (!range) return std::nullopt;
  return range->min;
}

std::optional<unsigned long long> memoryMegabytes(const char* arg) {
  if (!arg) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(arg, &end, 10);
  if (end == arg || v < 0 || errno) return std::nullopt;
  auto unitOnly = [&] { return end[1] == '\0' || ((end[1] == 'b' || end[1] == 'B') && end[2] == '\0'); };
  unsigned long long m = static_cast<unsigned long long>(v);
  switch (*end) {
    case '\0': return m;
    case 'k': case 'K': return unitOnly() ? std::optional((m + 1023) / 1024) : std::nullopt;
    case 'm': case 'M': return unitOnly() ? std::optional(m) : std::nullopt;
    case 'g': case 'G': return unitOnly() ? std::optional(m * 1024) : std::nullopt;
    case 't': case 'T': return unitOnly() ? std::optional(m * 1024 * 1024) : std::nullopt;
    default: return std::nullopt;
  }
}

std::optional<long> timeStringSeconds(const char* text) {
  if (!text || !*text) return std::nullopt;
  if (!strcasecmp(text, "-1") || !strcasecmp(text, "INFINITE") || !strcasecmp(text, "UNLIMITED")) return -1;
  if (!validTimespec(text)) return std::nullopt;
  long d = 0, h = 0, m = 0, s = 0;
  if (std::strchr(text, '-')) {
    std::sscanf(text, "%ld-%ld:%ld:%ld", &d, &h, &m, &s);
    return d * 86400 + h * 3600 + m * 60 + s;
  }
  if (std::sscanf(text, "%ld:%ld:%ld", &h, &m, &s) == 3) return h * 3600 + m * 60 + s;
  // "minutes[:seconds]": sscanf filled h with the minutes, m with the seconds.
  return h * 60 + m;
}

std::optional<BuiltinValueError> checkBuiltinValue(const char* name, const char* arg) {
  for (const auto& c : kChecked) {
    if (std::strcmp(c.name, name) != 0) continue;
    switch (c.check) {
      case Check::PositiveInt:
        return arg ? intError(arg, c.what, true) : std::nullopt;
      case Check::NonNegativeInt:
        return arg ? intError(arg, c.what, false) : std::nullopt;
      case Check::NodeCount:
        if (!arg || nodeCountMinimum(arg)) return std::nullopt;
        if (auto range = nodeRangeError(arg)) return BuiltinValueError{*range, 255};
        return BuiltinValueError{std::string("\"") + arg + "\" is not a valid node count", 255};
      case Check::Time:
        if (!arg || timeStringSeconds(arg)) return std::nullopt;
        return BuiltinValueError{std::string("Invalid ") + c.what + " specification", 255};
      case Check::Distribution: {
        // A plane's size may come from the command's environment.
        TaskDistributionError why;
        if (!arg || parseTaskDistribution(arg, std::getenv("SLURM_DIST_PLANESIZE"), &why)) return std::nullopt;
        return BuiltinValueError{std::string("Invalid ") + c.what + " specification", 255, why.planeLine.value_or("")};
      }
    }
  }
  return std::nullopt;
}

}  // namespace plugstack
