#include "cli_filter/option_values.h"

#include <ctime>

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <csignal>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <strings.h>

#include "common/comma_list.h"
#include "rules/builtin_checks.h"
#include "rules/parse_time.h"
#include "rules/task_distribution.h"
#include "rules/signal_names.h"
#include "rules/releases.h"

namespace plugstack {

namespace {

struct UnsetRow {
  const char* name;
  unsigned releases;
  const char* srun;
  const char* sbatch;
  const char* salloc;
};

constexpr UnsetRow kUnset[] = {
#include "rules/cli_option_unset.inc"
};

// The table's run-time values: the working directory, the caller's ids.
OptionValue fillIn(const char* value) {
  if (!value) return std::nullopt;
  if (std::strcmp(value, "@cwd@") == 0) {
    char buf[PATH_MAX];
    return getcwd(buf, sizeof buf) ? OptionValue(buf) : std::nullopt;
  }
  if (std::strcmp(value, "@uid@") == 0) return std::to_string(getuid());
  if (std::strcmp(value, "@gid@") == 0) return std::to_string(getgid());
  return std::string(value);
}

// parse_int: strtol must end at the end of the string (so "" is 0), not
// negative; an error ends the command.
std::optional<long> parseInt(const char* arg) {
  if (!arg) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(arg, &end, 10);
  if (*end != '\0' || v < 0 || v == LONG_MAX) return std::nullopt;
  return v;
}


// mbytes_to_str: the largest unit that divides evenly; M is not printed.
std::string mbytesText(unsigned long long mb) {
  const char units[] = "MGTP";
  size_t i = 0;
  while (i < 3 && mb && mb % 1024 == 0) {
    mb /= 1024;
    i++;
  }
  return i == 0 ? std::to_string(mb) : std::to_string(mb) + units[i];
}

// gres_prepend_tres_type: "gres:" before every item, never twice.
std::string gresText(const std::string& arg) {
  std::string out;
  size_t start = 0;
  for (;;) {
    size_t comma = arg.find(',', start);
    std::string item = arg.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!out.empty()) out += ',';
    out += item.compare(0, 5, "gres:") == 0 ? item : "gres:" + item;
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

bool hasSetter(const BuiltinOption& o, Command c) { return (o.commands & commandBit(c)) != 0; }

OptionSetOutcome refused(std::string message, int exitStatus = 0) {
  OptionSetOutcome out;
  out.error = BuiltinValueError{std::move(message), exitStatus};
  return out;
}

OptionSetOutcome shows(OptionValue v) {
  OptionSetOutcome out;
  out.ok = true;
  out.shown = std::move(v);
  return out;
}

std::string flagName(const BuiltinOption& o) { return std::string("--") + o.name; }

// --gres-flags: 22.05 takes disable-binding or enforce-binding; 24.11 a
// list, printed back in its own order.
OptionSetOutcome gresFlagsValue(const char* arg, Command command, const SlurmVersion& version, const OptionSite& site) {
  if (!arg) return {};  // the setter fails without a word
  if (!releases::client(version).gresFlagsList) {
    for (const char* f : {"disable-binding", "enforce-binding"})
      if (!strcasecmp(arg, f)) return shows(f);
    return refused("Invalid --gres-flags specification");
  }
  static const char* const kFlags[] = {"allow-task-sharing", "disable-binding", "enforce-binding",
                                       "multiple-tasks-per-sharing", "one-task-per-sharing"};
  bool on[5] = {};
  for (const std::string& tok : commaItems(arg)) {
    size_t i = 0;
    while (i < 5 && strcasecmp(tok.c_str(), kFlags[i]) != 0) i++;
    if (i == 5) return refused("Invalid --gres-flags specification: " + tok);
    if (i == 0 && command != Command::Srun) return refused("--gres-flags=allow-task-sharing is only used with srun.");
    on[i] = true;
  }
  if (on[1] && on[2]) return refused("Invalid --gres-flags combo: disable-binding and enforce-binding are mutually exclusive.");
  if (on[3] && on[4]) return refused("Invalid --gres-flags combo: one-task-per-sharing and multiple-tasks-per-sharing are mutually exclusive.");
  if (on[4] && !site.multipleSharingGres)
    return refused("In order to use --gres-flags=one-task-per-sharing you must also have SelectTypeParameters=MULTIPLE_SHARING_GRES_PJ in your slurm.conf");
  std::string shown;
  for (size_t i = 0; i < 5; i++)
    if (on[i]) shown += (shown.empty() ? "" : ",") + std::string(kFlags[i]);
  return shows(shown.empty() ? "unset" : shown);
}

// The integer options whose setters are not parse_int: --priority (TOP, or
// a number below NO_VAL; the getter prints TOP's NO_VAL - 1 as a signed
// int), --uid and --gid (root only; a number or a name).
std::optional<OptionSetOutcome> intLikeValue(const BuiltinOption& o, const char* arg) {
  std::string name = o.name;
  if (!arg) return std::nullopt;
  if (name == "priority") {
    if (!strcasecmp(arg, "TOP")) return shows("-3");
    long long p = std::strtoll(arg, nullptr, 10);
    if (p < 0) return refused("Priority must be >= 0");
    if (p >= 4294967294LL) return refused("Priority must be < 4294967294");
    return shows(std::to_string(p));
  }
  if (name == "uid" || name == "gid") {
    if (getuid() != 0) return refused("--" + name + " only permitted by root user");
    char* end = nullptr;
    unsigned long n = std::strtoul(arg, &end, 10);
    if (*arg && *end == '\0') return shows(std::to_string(n));
    if (name == "uid") {
      if (struct passwd* pw = getpwnam(arg)) return shows(std::to_string(pw->pw_uid));
    } else if (struct group* gr = getgrnam(arg)) {
      return shows(std::to_string(gr->gr_gid));
    }
    return refused("Invalid --" + name + " specification");
  }
  return std::nullopt;
}

// parse_mail_type: a comma list of mail types; a name it does not know is
// passed over, but a list with none it knows (and no NONE) is refused.
bool mailTypeKnown(const char* arg) {
  if (!arg) return false;
  static const char* const kTypes[] = {"NONE", "ARRAY_TASKS", "BEGIN", "END", "FAIL", "INVALID_DEPEND", "REQUEUE", "ALL",
                                       "STAGE_OUT", "TIME_LIMIT", "TIME_LIMIT_90", "TIME_LIMIT_80", "TIME_LIMIT_50"};
  for (const std::string& item : commaItems(arg))
    for (const char* type : kTypes)
      if (strcasecmp(item.c_str(), type) == 0) return true;
  return false;
}

// get_signal_opts: [R][B][R][:]SIGNAL[@SECONDS] (B, the batch shell, for
// sbatch only), the signal a name or number of the release, the seconds
// a number up to 65535.
bool signalSpecValid(const char* arg, Command command, const SlurmVersion& version) {
  if (!arg) return false;
  const char* p = arg;
  if (*p == 'R' || *p == 'r') p++;
  if (command == Command::Sbatch) {
    if (*p == 'B' || *p == 'b') p++;
    if (*p == 'R' || *p == 'r') p++;
  }
  if (*p == ':') p++;
  const char* at = std::strchr(p, '@');
  int signal = slurmSignalNumber(std::string(p, at ? static_cast<size_t>(at - p) : std::strlen(p)), version);
  if (signal < 1 || signal > 0xffff) return false;
  if (!at) return true;
  char* end = nullptr;
  long seconds = std::strtol(at + 1, &end, 10);
  return seconds >= 0 && seconds <= 0xffff && *end == '\0';
}

// The custom getters whose printed value differs from what was given.
std::optional<OptionSetOutcome> customValue(const BuiltinOption& o, const char* arg) {
  std::string name = o.name;
  if (name == "profile") {
    std::optional<std::string> text = acctGatherProfileText(arg ? arg : "");
    if (!text) return refused(std::string("invalid --profile=") + (arg ? arg : "") + " option");
    return shows(*text);
  }
  if (name == "nodes") {
    // verify_node_count: "N", "MIN-MAX"; printed as "N" or "MIN-MAX".
    std::string text = arg ? arg : "";
    size_t dash = text.find('-');
    auto min = nodeCountMinimum(text.substr(0, dash).c_str());
    if (dash == std::string::npos) {
      if (!min) return std::nullopt;
      return shows(std::to_string(*min));
    }
    auto max = nodeCountMinimum(text.substr(dash + 1).c_str());
    if (!min || !max) return std::nullopt;
    return shows(*min == *max ? std::to_string(*min) : std::to_string(*min) + "-" + std::to_string(*max));
  }
  if (name == "exclusive") {
    if (!arg || !strcasecmp(arg, "exclusive")) return shows("exclusive");
    for (const char* v : {"oversubscribe", "user", "mcs", "topo"})
      if (!strcasecmp(arg, v)) return shows(v);
    return refused("Invalid --exclusive specification");
  }
  if (name == "oversubscribe") return shows("oversubscribe");
  if (name == "mail-type" && !mailTypeKnown(arg)) return refused("Invalid --mail-type specification");
  // arg_set_open_mode: append or truncate, by the first letter.
  if (name == "open-mode" && !(arg && arg[0] && std::strchr("aAtT", arg[0]))) return refused("Invalid --open-mode specification");
  if (name == "distribution") {
    // arg_get_distribution: set_distribution's text, "=N" after a plane.
    auto d = arg ? parseTaskDistribution(arg, std::getenv("SLURM_DIST_PLANESIZE")) : std::nullopt;
    if (!d) return std::nullopt;
    return shows(d->shown());
  }
  if (name == "begin" || name == "deadline") {
    // parse_time, printed back by slurm_make_time_str.
    time_t when = arg ? parseSlurmTime(arg, time(nullptr)) : 0;
    if (!when) return refused("Invalid --" + name + " specification");
    return shows(slurmTimeText(when));
  }
  if (o.hasArg == 0) return shows("set");
  return std::nullopt;
}

}  // namespace

namespace {
struct ClearingSetter {
  const char* option;
  Command command;
  const char* clears;  // the getter field
};
constexpr ClearingSetter kClearingSetters[] = {
    {"mem", Command::Srun, "mem_per_cpu"},
};
}  // namespace

const char* fieldClearedBySetter(const BuiltinOption& option, Command command) {
  for (const auto& c : kClearingSetters)
    if (c.command == command && std::strcmp(c.option, option.name) == 0) return c.clears;
  return nullptr;
}

std::optional<std::string> acctGatherProfileText(const std::string& arg) {
  // Substrings, case-insensitive, as xstrcasestr finds them: "none" first,
  // then "all", then each kind.
  std::string lower;
  for (char c : arg) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto has = [&lower](const char* word) { return lower.find(word) != std::string::npos; };
  if (has("none")) return "None";
  const bool all = has("all");
  std::string text;
  for (const auto& [word, shown] : {std::pair{"energy", "Energy"}, {"lustre", "Lustre"}, {"network", "Network"}, {"task", "Task"}})
    if (all || has(word)) text += (text.empty() ? "" : ",") + std::string(shown);
  if (text.empty()) return std::nullopt;
  return text;
}

std::string minutesText(long minutes) {
  if (minutes < 0) return "UNLIMITED";
  char buf[64];
  long days = minutes / 1440, hours = minutes / 60 % 24, mins = minutes % 60;
  if (days)
    std::snprintf(buf, sizeof buf, "%ld-%2.2ld:%2.2ld:00", days, hours, mins);
  else
    std::snprintf(buf, sizeof buf, "%2.2ld:%2.2ld:00", hours, mins);
  return buf;
}

OptionValue unsetOptionValue(const BuiltinOption& option, Command command, const SlurmVersion& version) {
  for (const auto& row : kUnset) {
    if (!(row.releases & releaseBit(version)) || std::strcmp(row.name, option.name) != 0) continue;
    switch (command) {
      case Command::Srun: return fillIn(row.srun);
      case Command::Sbatch: return fillIn(row.sbatch);
      case Command::Salloc: return fillIn(row.salloc);
    }
  }
  return std::nullopt;
}

OptionSetOutcome setOptionValue(const BuiltinOption& option, Command command, const SlurmVersion& version,
                                const char* arg, const OptionValue& current, const OptionSite& site) {
  if (!hasSetter(option, command)) return {};
  // The checks srun, sbatch and salloc make of their own options: a status
  // of 1 is the setter's own exit(1); otherwise the setter returns an error.
  if (auto bad = checkBuiltinValue(option.name, arg)) {
    OptionSetOutcome out = refused(bad->message, bad->status == 1 ? 1 : 0);
    out.error->before = bad->before;
    return out;
  }
  switch (option.getter) {
    case OptionGetter::Bool:
    case OptionGetter::SrunBool:
      return shows("set");
    case OptionGetter::Int: {
      // -v and -Q count up; a value given to --verbose (from the
      // environment, or a plugin) is the level itself.
      if (option.hasArg == 0 && !(arg && std::strcmp(option.name, "verbose") == 0))
        return shows(std::to_string(std::atoi(current.value_or("0").c_str()) + 1));
      // An optional number not given (salloc's and srun's --immediate):
      // the setter's default, 1.
      if (option.hasArg == 2 && !arg) return shows("1");
      if (auto v = intLikeValue(option, arg)) return *v;
      auto v = parseInt(arg);
      if (!v)
        return refused("Invalid numeric value \"" + std::string(arg ? arg : "(null)") + "\" for " +
                           flagName(option) + ".", 1);
      return shows(std::to_string(*v));
    }
    case OptionGetter::Mbytes: {
      auto mb = memoryMegabytes(arg);
      if (!mb) return refused("Invalid " + flagName(option) + " specification");
      return shows(mbytesText(*mb));
    }
    case OptionGetter::Time: {
      auto secs = timeStringSeconds(arg);
      if (!secs) return refused("Invalid " + flagName(option) + " specification");
      // time_str2mins rounds up to whole minutes; 0 is no limit.
      long mins = *secs < 0 ? -1 : (*secs + 59) / 60;
      return shows(minutesText(mins == 0 ? -1 : mins));
    }
    case OptionGetter::String:
    case OptionGetter::SbatchString:
    case OptionGetter::SrunString:
      if (arg && std::strcmp(option.name, "gres") == 0 && strcasecmp(arg, "none") != 0)
        return shows(gresText(arg));
      return shows(arg ? OptionValue(arg) : std::nullopt);
    case OptionGetter::Custom:
      if (std::strcmp(option.name, "gres-flags") == 0) return gresFlagsValue(arg, command, version, site);
      if (std::strcmp(option.name, "signal") == 0 && !signalSpecValid(arg, command, version)) return refused("Invalid --signal specification");
      if (std::strcmp(option.name, "kill-command") == 0) {
        // arg_set_kill_command: none given is SIGTERM; the getter prints
        // the signal's name (sig_num2name).
        int signal = arg ? slurmSignalNumber(arg, version) : SIGTERM;
        if (!signal) return refused("Invalid --kill-command specification");
        return shows(slurmSignalName(signal, version));
      }
      if (auto v = customValue(option, arg)) return *v;
      return shows(arg ? OptionValue(arg) : std::nullopt);
    case OptionGetter::None:
      return shows(std::nullopt);
  }
  return {};
}

}  // namespace plugstack
