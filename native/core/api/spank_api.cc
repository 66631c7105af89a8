// The SPANK calls plugins make, other than spank_get_item (spank_items.cc)
// and the logging functions (log_api.cc). Each one follows the checks and
// error codes of Slurm 24.11's spank.c, which 22.05 shares.
#include <unistd.h>

#include <cstring>
#include <map>
#include <string>

#include "common/events.h"
#include "common/hook_scope.h"
#include "spank/job_records.h"
#include "spank/option_cache.h"
#include "spank/plugin.h"
#include "rules/phase.h"
#include "rules/releases.h"
#include "rules/slurm_errors.h"
#include "api/spank_api_internal.h"
#include "spank/stack.h"
#include "common/visibility.h"
#include "protocol/messages.h"

using namespace plugstack;

namespace plugstack::api {

void warnPlugin(const char* code, const std::string& message) {
  json::Object ev{{"t", msg::kWarning}, {"code", code}, {"message", message}};
  if (HookScope::currentRef() >= 0) {
    ev.emplace_back("ref", HookScope::currentRef());
    ev.emplace_back("hook", HookScope::currentHook());
  }
  emitEvent(std::move(ev));
}

bool validHandle(spank_t spank, const char* function) {
  if (!spank) return false;
  Stack* stack = Stack::current();
  if (!stack || !stack->isLiveHandle(spank)) {
    warnPlugin("HANDLE_STALE", std::string(function) +
                                   "() was given a spank_t that is not the handle of a running "
                                   "callback (kept from an earlier callback?); Slurm's behaviour "
                                   "is undefined here, plugstack answers ESPANK_BAD_ARG");
    return false;
  }
  return spank->magic == kSpankMagic;
}

const char* versionString(const SlurmVersion& version, spank_item_t item) {
  static std::map<std::pair<uint32_t, int>, std::string> strings;
  auto key = std::make_pair(version.number(), static_cast<int>(item));
  auto it = strings.find(key);
  if (it == strings.end()) {
    std::string text;
    switch (item) {
      case S_SLURM_VERSION: text = version.text(); break;
      case S_SLURM_VERSION_MAJOR: text = version.majorText(); break;
      case S_SLURM_VERSION_MINOR: text = version.minorText(); break;
      default: text = version.microText(); break;
    }
    it = strings.emplace(key, std::move(text)).first;
  }
  return it->second.c_str();
}

}  // namespace plugstack::api

namespace {

// The twelve callback names spank_symbol_supported() knows.
bool isCallbackName(const char* name) {
  for (const auto& info : allPhases())
    if (std::strcmp(info.symbol, name) == 0) return true;
  return false;
}

// Phases in which spank_option_getopt answers NOT_AVAIL.
bool getoptUnavailable(Phase p) {
  return p == Phase::Init || p == Phase::InitPostOpt || p == Phase::TaskPostFork ||
         p == Phase::SlurmdExit || p == Phase::Exit;
}

spank_err_t envAccessCheck(spank_t spank, const char* function) {
  if (!api::validHandle(spank, function)) return ESPANK_BAD_ARG;
  if (spank->stack->context() != Context::Remote) return ESPANK_NOT_REMOTE;
  if (!spank->job) return ESPANK_BAD_ARG;
  return api::kSuccess;
}

spank_err_t jobControlAccessCheck(spank_t spank, const char* function) {
  if (!api::validHandle(spank, function)) return ESPANK_BAD_ARG;
  Context c = spank->stack->context();
  if (c == Context::Remote) return ESPANK_NOT_LOCAL;
  if (c == Context::Slurmd) return ESPANK_NOT_AVAIL;
  if (c == Context::JobScript) {
    // Slurm passes the check here and then calls dlclose(NULL), which
    // crashes the prolog/epilog helper (SIGSEGV, exit 139).
    api::warnPlugin("JOB_CONTROL_IN_JOB_SCRIPT",
                    std::string(function) +
                        "() in job_script context crashes Slurm's prolog/epilog helper "
                        "(SIGSEGV); plugstack answers ESPANK_NOT_AVAIL instead");
    return ESPANK_NOT_AVAIL;
  }
  return api::kSuccess;
}

// strlcpy into a plugin's buffer: NOSPACE when the value and its NUL do
// not fit, after copying what does.
spank_err_t copyOut(const char* value, char* buf, int len) {
  size_t n = std::strlen(value);
  if (len > 0) {
    size_t copy = n < static_cast<size_t>(len) - 1 ? n : static_cast<size_t>(len) - 1;
    std::memcpy(buf, value, copy);
    buf[copy] = '\0';
  }
  return n >= static_cast<size_t>(len) ? ESPANK_NOSPACE : api::kSuccess;
}

void envEvent(const char* op, spank_t spank, const char* var, const char* val, spank_err_t rc) {
  Event ev(msg::kEnv);
  ev.add("op", op)
      .add("ref", spank && spank->plugin ? spank->plugin->ref : -1)
      .add("hook", spank ? phaseInfo(spank->phase).symbol : "")
      .add("name", var)
      .add("rc", static_cast<int>(rc));
  if (val) ev.add("value", val);
  if (spank && spank->task) ev.add("task", spank->task->id);
  emitEvent(ev);
}

}  // namespace

namespace {

// What the dynamic loader does when a lazily bound call finds no
// definition: its message on stderr, with the program's name (slurmstepd's
// process title in a task), and exit status 127.
[[noreturn]] void undefinedSymbol(spank_t spank, const char* symbol) {
  std::string program = "srun";
  if (spank && spank->stack && spank->stack->context() == Context::Remote) {
    const auto* step = static_cast<const StepRecord*>(spank->job);
    std::string id = "?";
    if (step) {
      id = std::to_string(step->jobId) + ".";
      if (step->stepId == kBatchScriptStep) id += "batch";
      else if (step->stepId == kExternStep) id += "extern";
      else if (step->stepId == kInteractiveStep) id += "interactive";
      else id += std::to_string(step->stepId);
    }
    program = "slurmstepd: [" + id + "]";
  } else if (spank && spank->stack && spank->stack->context() != Context::Local) {
    program = spank->stack->context() == Context::Allocator ? "salloc" : "slurmd";
  }
  std::string path = spank && spank->plugin ? spank->plugin->path : "";
  std::string line = program + ": symbol lookup error: " + path + ": undefined symbol: " + symbol + "\n";
  flushEvents();
  ssize_t ignored = write(2, line.data(), line.size());
  (void)ignored;
  _exit(127);
}

}  // namespace

extern "C" {

PLUGSTACK_EXPORT const char* spank_strerror(spank_err_t err) {
  return slurmErrorText(static_cast<int>(err));
}

PLUGSTACK_EXPORT int spank_symbol_supported(const char* name) {
  if (!name) return -1;
  return isCallbackName(name) ? 1 : 0;
}

PLUGSTACK_EXPORT int spank_remote(spank_t spank) {
  if (!spank || spank->magic != kSpankMagic) return -1;
  if (!api::validHandle(spank, "spank_remote")) return -1;
  return spank->stack->context() == Context::Remote ? 1 : 0;
}

PLUGSTACK_EXPORT spank_context_t spank_context(void) {
  Stack* stack = Stack::current();
  return stack ? static_cast<spank_context_t>(stack->context()) : S_CTX_ERROR;
}

PLUGSTACK_EXPORT spank_err_t spank_option_register(spank_t spank, struct spank_option* opt) {
  // Slurm dereferences the handle unchecked: NULL or garbage crashes it.
  if (!api::validHandle(spank, "spank_option_register")) return ESPANK_BAD_ARG;
  if (spank->phase != Phase::Init) return ESPANK_BAD_ARG;
  if (!opt || !opt->name || !opt->usage) return ESPANK_BAD_ARG;
  return spank->stack->options().add(spank->plugin, opt, OptionSource::Registered);
}

PLUGSTACK_EXPORT spank_err_t spank_option_getopt(spank_t spank, struct spank_option* opt,
                                                 char** optarg) {
  if (optarg) *optarg = nullptr;
  if (!api::validHandle(spank, "spank_option_getopt")) return ESPANK_BAD_ARG;
  if (!spank->plugin) return ESPANK_NOT_AVAIL;
  if (getoptUnavailable(spank->phase)) return ESPANK_NOT_AVAIL;
  if (!opt || !opt->name) return ESPANK_BAD_ARG;
  if (opt->has_arg && !optarg) return ESPANK_BAD_ARG;

  OptionCache& cache = spank->stack->options();
  if (CachedOption* cached = cache.findByName(opt->name)) {
    // Cached but never given: ESPANK_ERROR. This is also why a static-table
    // option reads as unset in a prolog: it is cached at load, and the
    // environment is never consulted for it.
    if (!cached->found) {
      if (spank->stack->context() == Context::JobScript &&
          cached->source == OptionSource::StaticTable && spank->plugin->name) {
        std::string var = "SPANK_" + optionEnvName(spank->plugin->name, opt->name);
        if (getenv(var.c_str()))
          api::warnPlugin("GETOPT_STATIC_IN_JOB_SCRIPT",
                          "spank_option_getopt(--" + std::string(opt->name) +
                              ") answers ESPANK_ERROR in " + phaseInfo(spank->phase).name +
                              " although " + var +
                              " is set: the option is in the plugin's static spank_options "
                              "table, which the prolog/epilog helper caches as not given "
                              "(init never runs there); register it with "
                              "spank_option_register() to read it here");
      }
      return ESPANK_ERROR;
    }
    if (opt->has_arg && optarg) *optarg = const_cast<char*>(cached->optargPointer());
    return api::kSuccess;
  }

  // Not cached: look in the process environment (not the job env), first
  // for the remote-side name, then for the prolog/epilog one, and cache
  // whatever was found.
  CachedOption& entry = cache.addUnregistered(spank->plugin, opt);
  std::string var = optionEnvName(spank->plugin->name, opt->name);
  const char* val = getenv(var.c_str());
  if (!val) val = getenv(("SPANK_" + var).c_str());
  if (val) {
    entry.optarg = std::string(val);
    entry.found = true;
    if (opt->has_arg && optarg) *optarg = const_cast<char*>(entry.optargPointer());
  }
  return entry.found ? api::kSuccess : ESPANK_ERROR;
}

PLUGSTACK_EXPORT spank_err_t spank_getenv(spank_t spank, const char* var, char* buf, int len) {
  spank_err_t rc = envAccessCheck(spank, "spank_getenv");
  if (rc == api::kSuccess) {
    const char* val;
    if (len < 0) rc = ESPANK_BAD_ARG;
    else if (!var || !(val = static_cast<StepRecord*>(spank->job)->env.get(var)))
      rc = ESPANK_ENV_NOEXIST;
    else
      rc = copyOut(val, buf, len);
  }
  envEvent("get", spank, var, nullptr, rc);
  return rc;
}

PLUGSTACK_EXPORT spank_err_t spank_setenv(spank_t spank, const char* var, const char* val,
                                          int overwrite) {
  spank_err_t rc = envAccessCheck(spank, "spank_setenv");
  if (rc == api::kSuccess) {
    EnvArray& env = static_cast<StepRecord*>(spank->job)->env;
    if (!var || !val) rc = ESPANK_BAD_ARG;
    else if (env.get(var) && !overwrite) rc = ESPANK_ENV_EXISTS;
    else if (!env.set(var, val)) {
      // Slurm's setenvf reports an empty name with a positive code, which
      // spank_setenv does not treat as failure: SUCCESS, nothing set.
      api::warnPlugin("SETENV_IGNORED", std::string("spank_setenv(\"") + var +
                                            "\") was not applied (invalid name); Slurm returns "
                                            "api::kSuccess all the same");
    }
  }
  envEvent("set", spank, var, val, rc);
  return rc;
}

PLUGSTACK_EXPORT spank_err_t spank_unsetenv(spank_t spank, const char* var) {
  spank_err_t rc = envAccessCheck(spank, "spank_unsetenv");
  if (rc == api::kSuccess) {
    if (!var) rc = ESPANK_BAD_ARG;
    else static_cast<StepRecord*>(spank->job)->env.unset(var);
  }
  envEvent("unset", spank, var, nullptr, rc);
  return rc;
}

PLUGSTACK_EXPORT spank_err_t spank_job_control_getenv(spank_t spank, const char* var, char* buf,
                                                      int len) {
  spank_err_t rc = jobControlAccessCheck(spank, "spank_job_control_getenv");
  if (rc == api::kSuccess) {
    const char* val;
    if (!var || !buf || len <= 0) rc = ESPANK_BAD_ARG;
    else if (!(val = spank->stack->jobControlEnv().get(var))) rc = ESPANK_ENV_NOEXIST;
    else rc = copyOut(val, buf, len);
  }
  envEvent("job_control_get", spank, var, nullptr, rc);
  return rc;
}

PLUGSTACK_EXPORT spank_err_t spank_job_control_setenv(spank_t spank, const char* var,
                                                      const char* val, int overwrite) {
  spank_err_t rc = jobControlAccessCheck(spank, "spank_job_control_setenv");
  if (rc == api::kSuccess) {
    EnvArray& env = spank->stack->jobControlEnv();
    if (!var || !val) rc = ESPANK_BAD_ARG;
    else if (!*var || std::strchr(var, '=')) rc = ESPANK_BAD_ARG;
    // With overwrite 0 an existing value is kept and the call still
    // succeeds: Slurm never returns ESPANK_ENV_EXISTS here.
    else if (overwrite || !env.get(var)) env.set(var, val);
  }
  envEvent("job_control_set", spank, var, val, rc);
  return rc;
}

PLUGSTACK_EXPORT spank_err_t spank_job_control_unsetenv(spank_t spank, const char* var) {
  spank_err_t rc = jobControlAccessCheck(spank, "spank_job_control_unsetenv");
  if (rc == api::kSuccess) {
    if (!var) rc = ESPANK_BAD_ARG;
    else spank->stack->jobControlEnv().unset(var);
  }
  envEvent("job_control_unset", spank, var, nullptr, rc);
  return rc;
}

PLUGSTACK_EXPORT spank_err_t spank_prepend_task_argv(spank_t spank, int argc, const char* argv[]) {
  // Not in this release's Slurm: the call itself fails to bind.
  Stack* current = spank && spank->stack ? spank->stack : Stack::current();
  if (current && !releases::spankApi(current->version()).prependTaskArgv) undefinedSymbol(spank, "spank_prepend_task_argv");
  if (!spank || !argv || !api::validHandle(spank, "spank_prepend_task_argv"))
    return ESPANK_BAD_ARG;
  TaskRecord* task = spank->task;
  if (!task || task->argv.empty() ||
      (spank->phase != Phase::TaskInitPrivileged && spank->phase != Phase::TaskInit))
    return ESPANK_NOT_TASK;
  std::vector<std::string> next;
  for (int i = 0; i < argc && argv[i]; i++) next.emplace_back(argv[i]);
  for (int i = 0; i < task->argc && task->argv[i]; i++) next.emplace_back(task->argv[i]);
  int nominal = argc + task->argc;
  task->setArgv(next);
  // Slurm records the nominal sum even when a NULL cut the copy short.
  task->argc = nominal;
  emitEvent({{"t", msg::kArgv},
             {"ref", spank->plugin ? spank->plugin->ref : -1},
             {"hook", phaseInfo(spank->phase).symbol},
             {"task", task->id},
             {"argv", json::Array(task->argvStore.begin(), task->argvStore.end())}});
  return api::kSuccess;
}

}  // extern "C"
