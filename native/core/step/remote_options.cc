#include "step/remote_options.h"

#include <cstring>

#include "common/events.h"
#include "common/hook_scope.h"
#include "common/slurm_log.h"
#include "rules/releases.h"
#include "spank/plugin.h"

namespace plugstack {

namespace {

constexpr char kPrefix[] = "_SLURM_SPANK_OPTION_";

std::string shown(const char* arg) { return arg ? arg : "(null)"; }

}  // namespace

int runOptionCallback(CachedOption& option, const char* arg, int remote, const char* source) {
  int rc = 0;
  if (option.cb) {
    json::Object extra{{"option", option.name}, {"source", source}, {"remote", remote}};
    if (arg) extra.emplace_back("value", arg);
    HookScope scope(option.plugin->ref, "option_cb", std::move(extra));
    rc = option.cb(option.val, arg, remote);
    scope.setResult(rc);
  }
  if (rc) return rc;
  if (option.hasArg) option.optarg = arg ? std::optional<std::string>(arg) : std::nullopt;
  option.found = true;
  option.set = true;
  return 0;
}

void applyRemoteOptions(Stack& stack, StepRecord& step, const std::vector<LaunchOption>& options) {
  OptionCache& cache = stack.options();
  std::vector<const CachedOption*> handled;
  for (const auto& launched : options) {
    CachedOption* opt = cache.find(launched.plugin, launched.name);
    if (!opt) {
      slurmLog(LogLevel::Info, "SPANK plugin \"" + launched.plugin + "\" option \"" +
                                   launched.name + "\" not found");
      continue;
    }
    const char* arg = launched.value ? launched.value->c_str() : nullptr;
    if (runOptionCallback(*opt, arg, 1, "launch"))
      slurmLog(LogLevel::Error, "spank: failed to process option " + opt->name + "=" + shown(arg));
    handled.push_back(opt);
  }

  const bool skipHandled = releases::step(stack.version()).remoteOptionsSkipHandled;
  for (auto& opt : cache.entries()) {
    if (skipHandled) {
      bool seen = false;
      for (const CachedOption* h : handled)
        seen = seen || (h->name == opt.name && h->plugin->name && opt.plugin->name &&
                        std::strcmp(h->plugin->name, opt.plugin->name) == 0);
      if (seen) continue;
    }
    std::string var = optionEnvName(opt.plugin->name, opt.name);
    const char* found = step.env.get(var);
    if (!found) continue;
    std::string value = found;
    if (runOptionCallback(opt, value.c_str(), 1, "env"))
      slurmLog(LogLevel::Error, "spank: failed to process option " + opt.name + "=" + value);
    step.env.unset(var);
  }
  clearRemoteOptionsEnv(step.env);
}

void clearRemoteOptionsEnv(EnvArray& env) {
  // Slurm walks the array with a pointer and deletes in place, so the entry
  // that moves into a deleted slot is never looked at: of two adjacent
  // option variables the second survives. Walk it the same way.
  const size_t prefixLen = std::strlen(kPrefix);
  size_t i = 0;
  while (i < env.size()) {
    const std::string entry = env.entries()[i];
    const char* p = entry.c_str();
    if (std::strncmp(p, "SPANK_", 6) == 0) p += 6;
    size_t eq = entry.find('=');
    if (std::strncmp(p, kPrefix, prefixLen) == 0 && eq != std::string::npos &&
        static_cast<size_t>(p - entry.c_str()) + prefixLen <= eq) {
      env.unset(entry.substr(0, eq));
    }
    i++;
  }
}

}  // namespace plugstack
