#include "lifecycle/slurm_limits.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/comma_list.h"
#include "common/events.h"
#include "common/slurm_log.h"
#include "rules/rlimits.h"

namespace plugstack::slurm_limits {

namespace {

// rlim_to_string: "inf" for no limit.
std::string shown(rlim_t value) { return value == RLIM_INFINITY ? "inf" : std::to_string(value); }

bool listed(const std::vector<std::string>& names, const std::string& name) {
  for (const auto& n : names)
    if (n == name) return true;
  return false;
}

// _get_env_val: the value of SLURM_RLIMIT_<NAME> as strtoul reads it (an
// empty value is 0, "-1" no limit), and whether the user asked for it
// (a leading 'U'). False when absent or not a number.
bool envValue(const EnvArray& env, const std::string& var, unsigned long* value, bool* user) {
  const char* text = env.get(var);
  if (!text) return false;
  if (*text == 'U') {
    *user = true;
    slurmLog(LogLevel::Debug2, "_get_env_val: " + var.substr(6) + " propagated by user option");
    text++;
  }
  char* end = nullptr;
  *value = std::strtoul(text, &end, 10);
  if (*end != '\0') {
    slurmLog(LogLevel::Error, "Invalid " + var + " env var, value = `" + text + "'");
    return false;
  }
  return true;
}

// _set_limit: one resource.
void applyOne(EnvArray& env, const std::string& name, int resource, bool confPropagates) {
  const std::string var = "SLURM_RLIMIT_" + name;
  const std::string limit = "RLIMIT_" + name;
  unsigned long value = 0;
  bool user = false;
  if (!envValue(env, var, &value, &user)) {
    slurmLog(LogLevel::Debug, "Couldn't find " + var + " in environment");
    return;
  }
  // Users do not get the variables in their tasks' environment.
  env.unset(var);
  if (!confPropagates && !user) return;
  struct rlimit r;
  if (getrlimit(resource, &r) < 0) {
    slurmLog(LogLevel::Error, "getrlimit(" + limit + "): " + std::strerror(errno));
    return;
  }
  const char* who = user ? "user" : "conf";
  if (r.rlim_cur == static_cast<rlim_t>(value)) {
    slurmLog(LogLevel::Debug2, std::string("_set_limit: ") + who + " setrlimit " + limit +
                                   " no change in value: " + std::to_string(r.rlim_cur));
    return;
  }
  slurmLog(LogLevel::Debug2, "_set_limit: " + limit + ": max:" + shown(r.rlim_max) + " cur:" + shown(r.rlim_cur) +
                                 " req:" + shown(value));
  r.rlim_cur = static_cast<rlim_t>(value);
  if (!user && r.rlim_cur > r.rlim_max) {
    slurmLog(LogLevel::Verbose, "_set_limit: " + limit + ": reducing req:" + shown(value) + " to max:" +
                                    shown(r.rlim_max));
    r.rlim_cur = r.rlim_max;
  }
  if (setrlimit(resource, &r) < 0) {
    // An error only for what the user asked for.
    slurmLog(user ? LogLevel::Error : LogLevel::Verbose,
             "Can't propagate " + limit + " of " +
                 (r.rlim_cur == RLIM_INFINITY ? std::string("'unlimited'") : std::to_string(r.rlim_cur)) +
                 " from submit host: " + std::strerror(errno));
    return;
  }
  slurmLog(LogLevel::Debug2, std::string("_set_limit: ") + who + " setrlimit " + limit + " succeeded");
}

}  // namespace

void raiseAsSlurmd(const std::string& names) {
  const bool root = geteuid() == 0;
  for (const std::string& name : commaItems(names)) {
    int resource = rlimits::resourceOf(name);
    if (resource == RLIMIT_CORE && !root) continue;
    struct rlimit r;
    if (resource < 0 || getrlimit(resource, &r) < 0 || r.rlim_cur == r.rlim_max) continue;
    r.rlim_cur = r.rlim_max;
    setrlimit(resource, &r);
  }
  if (root) prctl(PR_SET_DUMPABLE, 0);
}

void applyToTask(EnvArray& env, const std::string& table, const std::string& propagated, uint64_t stepMemMb) {
  struct rlimit r;
  if (getrlimit(RLIMIT_CPU, &r) == 0 && r.rlim_max != RLIM_INFINITY)
    slurmLog(LogLevel::Error, "Slurm process CPU time limit is " + std::to_string(static_cast<int>(r.rlim_max)) +
                                  " seconds");
  const std::vector<std::string> flagged = commaItems(propagated);
  for (const std::string& name : commaItems(table)) {
    int resource = rlimits::resourceOf(name);
    if (resource >= 0) applyOne(env, name, resource, listed(flagged, name));
  }
  // The step's memory caps the resident set, soft and hard (Linux does not
  // enforce it; a program can read it).
  const rlim_t bytes = static_cast<rlim_t>(stepMemMb) * 1024 * 1024;
  if (getrlimit(RLIMIT_RSS, &r) < 0) {
    slurmLog(LogLevel::Error, std::string("_prlimit(RLIMIT_RSS,..) failed with ") + std::strerror(errno));
  } else if (bytes && r.rlim_max > bytes) {
    r.rlim_cur = r.rlim_max = bytes;
    if (setrlimit(RLIMIT_RSS, &r) < 0) {
      slurmLog(LogLevel::Error,
               "_prlimit(RLIMIT_RSS, " + std::to_string(stepMemMb) + " MB): " + std::strerror(errno), true);
      flushEvents();
      std::exit(1);
    }
    slurmLog(LogLevel::Debug2, "Set task rss(" + std::to_string(stepMemMb) + " MB)");
  }
}

}  // namespace plugstack::slurm_limits
