#include "lifecycle/slurm_limits.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
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

constexpr char kPrefix[] = "SLURM_RLIMIT_";
constexpr size_t kPrefixLength = sizeof kPrefix - 1;

// _get_env_val: the value of SLURM_RLIMIT_<NAME> as strtoul reads it (an
// empty value is 0, "-1" no limit), and whether the user asked for it
// (a leading 'U'). False when it is not a number.
bool parseValue(const std::string& name, const char* text, unsigned long* value, bool* user) {
  if (*text == 'U') {
    *user = true;
    text++;
  }
  char* end = nullptr;
  *value = std::strtoul(text, &end, 10);
  if (*end != '\0') {
    slurmLog(LogLevel::Error, std::string("Invalid ") + kPrefix + name + " env var, value = `" + text + "'");
    return false;
  }
  return true;
}

// _set_limit once the variable was found valid (and is dropped): the soft
// limit, where the node propagates it or the user asked. (slurmstepd's
// debug lines, which go to slurmd's log at SlurmdDebug=debug and above,
// are left out.)
void applyOne(const std::string& name, int resource, unsigned long value, bool user) {
  const auto limit = [&name] { return "RLIMIT_" + name; };
  struct rlimit r;
  if (getrlimit(resource, &r) < 0) {
    slurmLog(LogLevel::Error, "getrlimit(" + limit() + "): " + std::strerror(errno));
    return;
  }
  if (r.rlim_cur == static_cast<rlim_t>(value)) return;
  r.rlim_cur = static_cast<rlim_t>(value);
  if (!user && r.rlim_cur > r.rlim_max) {
    std::string padded = limit();
    if (padded.size() < 14) padded.resize(14, ' ');  // "%-14s"
    slurmLog(LogLevel::Verbose, "_set_limit: " + padded + ": reducing req:" + shown(value) + " to max:" +
                                    shown(r.rlim_max));
    r.rlim_cur = r.rlim_max;
  }
  if (setrlimit(resource, &r) < 0) {
    // An error only for what the user asked for.
    slurmLog(user ? LogLevel::Error : LogLevel::Verbose,
             "Can't propagate " + limit() + " of " +
                 (r.rlim_cur == RLIM_INFINITY ? std::string("'unlimited'") : std::to_string(r.rlim_cur)) +
                 " from submit host: " + std::strerror(errno));
  }
}

}  // namespace

void raiseToHard(const std::string& names) {
  for (const std::string& name : commaItems(names)) {
    int resource = rlimits::resourceOf(name);
    struct rlimit r;
    if (resource < 0 || getrlimit(resource, &r) < 0 || r.rlim_cur == r.rlim_max) continue;
    r.rlim_cur = r.rlim_max;
    setrlimit(resource, &r);
  }
}

void raiseAsSlurmd(const std::string& names) {
  const bool root = geteuid() == 0;
  std::string raised;
  for (const std::string& name : commaItems(names))
    if (root || name != "CORE") raised += (raised.empty() ? "" : ",") + name;
  raiseToHard(raised);
  if (root) prctl(PR_SET_DUMPABLE, 0);
}

std::vector<TaskLimit> taskLimits(const std::string& table, const std::string& propagated) {
  const std::vector<std::string> flagged = commaItems(propagated);
  std::vector<TaskLimit> out;
  for (const std::string& name : commaItems(table)) {
    int resource = rlimits::resourceOf(name);
    if (resource >= 0)
      out.push_back({name, resource, std::find(flagged.begin(), flagged.end(), name) != flagged.end()});
  }
  return out;
}

std::vector<char*> applyToTask(const EnvArray& env, const std::vector<TaskLimit>& limits, uint64_t stepMemMb) {
  struct rlimit r;
  if (getrlimit(RLIMIT_CPU, &r) == 0 && r.rlim_max != RLIM_INFINITY)
    slurmLog(LogLevel::Error, "Slurm process CPU time limit is " + std::to_string(static_cast<int>(r.rlim_max)) +
                                  " seconds");
  // One look at the environment: where each name's variable is (getenvp:
  // the first of a name).
  std::vector<char*> found(limits.size(), nullptr);
  char* const* entries = env.data();
  for (char* const* e = entries; *e; e++) {
    if (std::strncmp(*e, kPrefix, kPrefixLength) != 0) continue;
    const char* name = *e + kPrefixLength;
    const char* eq = std::strchr(name, '=');
    for (size_t i = 0; eq && i < limits.size(); i++)
      if (!found[i] && limits[i].name.size() == static_cast<size_t>(eq - name) &&
          std::strncmp(limits[i].name.data(), name, limits[i].name.size()) == 0)
        found[i] = *e;
  }
  std::vector<const char*> dropped;
  for (size_t i = 0; i < limits.size(); i++) {
    unsigned long value = 0;
    bool user = false;
    if (!found[i] || !parseValue(limits[i].name, std::strchr(found[i], '=') + 1, &value, &user)) continue;
    // Users do not get the variables in their tasks' environment.
    dropped.push_back(found[i]);
    if (user || limits[i].propagated) applyOne(limits[i].name, limits[i].resource, value, user);
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
  }
  std::vector<char*> out;
  out.reserve(env.size() + 1);
  for (char* const* e = entries; *e; e++)
    if (std::find(dropped.begin(), dropped.end(), *e) == dropped.end()) out.push_back(*e);
  out.push_back(nullptr);
  return out;
}

}  // namespace plugstack::slurm_limits
