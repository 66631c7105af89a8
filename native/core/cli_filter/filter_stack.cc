#include "cli_filter/filter_stack.h"

#include "cli_filter/builtin_filters.h"
#include "cli_filter/c_filter.h"
#include "common/events.h"
#include "common/hook_scope.h"
#include "common/problem.h"
#include "common/slurm_log.h"
#include "plugins/load_failure.h"
#include "plugins/plugin_context.h"
#include "protocol/messages.h"
#include "rules/slurm_errors.h"

namespace plugstack {

namespace {

json::Array optionValues(const OptionStore& store) {
  json::Array out;
  for (const auto& [name, value] : store.setOptions())
    out.emplace_back(json::Object{{"name", name}, {"value", value ? json::Value(*value) : json::Value()}});
  return out;
}

std::string oldHookNames(void* handle);

int g_problems = 0;

}  // namespace

void noteFilterProblem() { g_problems++; }
int filterProblemCount() { return g_problems; }

// Strict mode: a hook that produced problems Slurm passes over fails.
int CliFilterStack::strictResult(int rc, int problemsBefore, int ref, const char* hook) {
  if (!settings_.strict || rc != SLURM_SUCCESS || filterProblemCount() == problemsBefore) return rc;
  Diagnostic d;
  d.severity = Severity::Error;
  d.code = "CLI_FILTER_STRICT";
  d.message = std::string(hook) + " passed, with problems Slurm would let through; strict mode fails it";
  reportProblem(d, {{"ref", ref}, {"hook", hook}});
  return SLURM_ERROR;
}

CliFilterStack::CliFilterStack(CliFilterSettings settings, const SlurmVersion& version, Command command)
    : settings_(std::move(settings)), version_(version), command_(command), release_(cliFilterRelease(version)) {}

// srun, sbatch and salloc never call cli_filter_fini at their end (only in
// Slurm's MEMORY_LEAK_DEBUG builds): plugins' fini() does not run then.
CliFilterStack::~CliFilterStack() = default;

bool CliFilterStack::load(const std::string& name, int ref) {
  const std::string type = "cli_filter/" + name;
  emitEvent({{"t", msg::kLine},
             {"ref", ref},
             {"file", settings_.file},
             {"line", settings_.line},
             {"required", true},
             {"configPath", type},
             {"args", json::Array{}},
             {"kind", "cli_filter"}});
  json::Object seen{{"t", msg::kPlugin}, {"ref", ref}};
  auto failed = [&](const char* code, std::string message, std::string path) {
    slurmLog(LogLevel::Error, "cannot create cli_filter context for " + type);
    seen.emplace_back("path", path);
    seen.emplace_back("loaded", false);
    seen.emplace_back("code", code);
    emitEvent(std::move(seen));
    Diagnostic d;
    d.severity = Severity::Error;
    d.code = code;
    d.message = std::move(message) + "; srun, sbatch and salloc stop before any job exists";
    d.file = settings_.file;
    d.line = settings_.line;
    reportProblem(d, {{"ref", ref}});
    return false;
  };

  if (isBuiltinFilter(name)) {
    BuiltinFilterLoad b = loadBuiltinFilter(name, settings_, version_, command_, ref);
    if (!b.filter) {
      slurmLog(LogLevel::Error, "Couldn't load specified plugin name for " + type + ": " + slurmErrorText(b.err));
      return failed(b.code.empty() ? loadFailure(b.err).code : b.code.c_str(), type + ": " + b.detail, b.path);
    }
    seen.emplace_back("path", b.path);
    seen.emplace_back("loaded", true);
    seen.emplace_back("kept", true);
    seen.emplace_back("type", type);
    emitEvent(std::move(seen));
    entries_.push_back({ref, type, std::move(b.filter)});
    return true;
  }

  PluginContext context;
  ContextResult r = createPluginContext("cli_filter", type, kCliFilterHooks, settings_.pluginDirs, version_, ref, &context);
  if (r.outcome == ContextOutcome::MissingSymbols) {
    fatal_ = true;
    std::string message = context.file.path + ": lacks " ;
    for (size_t i = 0; i < r.missing.size(); i++) message += (i ? ", " : "") + r.missing[i];
    std::string old = oldHookNames(context.file.handle);
    if (!old.empty())
      message += "; it defines " + old + ", the names of Slurm 20.02 and older, which Slurm no longer calls";
    message += "; Slurm ends the command (fatal)";
    seen.emplace_back("path", context.file.path);
    seen.emplace_back("loaded", false);
    seen.emplace_back("code", "CLI_FILTER_MISSING_HOOKS");
    emitEvent(std::move(seen));
    Diagnostic d;
    d.severity = Severity::Error;
    d.code = "CLI_FILTER_MISSING_HOOKS";
    d.message = message;
    d.file = settings_.file;
    d.line = settings_.line;
    reportProblem(d, {{"ref", ref}});
    // Slurm's fatal() leaves the plugin loaded; the process ends anyway.
    return false;
  }
  if (r.outcome != ContextOutcome::Loaded) {
    const LoadFailureText& f = loadFailure(r.err);
    std::string message = type + ": " + f.what;
    if (r.err == ESLURM_PLUGIN_BAD_VERSION)
      message = type + ": built for Slurm " + r.detail + ", the host emulates " + version_.text() +
                " (a cli_filter plugin must match all three numbers)";
    else if (!r.detail.empty())
      message += ": " + r.detail;
    return failed(f.code, message, context.file.path.empty() ? type : context.file.path);
  }
  seen.emplace_back("path", context.file.path);
  seen.emplace_back("loaded", true);
  seen.emplace_back("kept", true);
  seen.emplace_back("name", context.file.name ? json::Value(context.file.name) : json::Value());
  seen.emplace_back("type", context.file.type ? json::Value(context.file.type) : json::Value());
  seen.emplace_back("version", context.file.version);
  emitEvent(std::move(seen));
  entries_.push_back({ref, type, std::make_unique<CFilter>(std::move(context))});
  return true;
}

CliFilterStack::InitOutcome CliFilterStack::init() {
  loaded_ = true;
  int ref = kCliFilterRefBase;
  for (const auto& name : settings_.plugins) {
    if (!load(name, ref++)) {
      if (fatal_) return InitOutcome::Fatal;
      fini();
      return InitOutcome::Failed;
    }
  }
  return InitOutcome::Loaded;
}

bool CliFilterStack::ensureLoaded() {
  if (loaded_ && !entries_.empty()) return true;
  if (loaded_ && settings_.plugins.empty()) return true;
  // 22.05 retries a failed load on every call.
  return init() == InitOutcome::Loaded;
}

template <typename Call>
int CliFilterStack::eachFilter(slurm_opt* opt, const char* symbol, const char* hook, const char* argument, json::Value value, Call&& call) {
  if (settings_.plugins.empty()) return SLURM_SUCCESS;
  if (!ensureLoaded()) return SLURM_ERROR;
  int rc = SLURM_SUCCESS;
  for (auto& e : entries_) {
    json::Array before = optionValues(opt->store);
    int problems = filterProblemCount();
    {
      HookScope scope(e.ref, symbol);
      rc = call(*e.filter);
      scope.setResult(rc);
    }
    rc = strictResult(rc, problems, e.ref, symbol);
    json::Object event{{"t", msg::kCliFilter}, {"ref", e.ref}, {"hook", hook}};
    event.emplace_back(argument, value);
    event.emplace_back("rc", rc);
    event.emplace_back("before", std::move(before));
    event.emplace_back("after", optionValues(opt->store));
    emitEvent(std::move(event));
    if (rc != SLURM_SUCCESS) break;
  }
  return rc;
}

int CliFilterStack::setupDefaults(slurm_opt* opt, bool early) {
  return eachFilter(opt, "cli_filter_p_setup_defaults", "setup_defaults", "early", early,
                    [&](CliFilter& f) { return f.setupDefaults(opt, early); });
}

int CliFilterStack::preSubmit(slurm_opt* opt, int offset) {
  return eachFilter(opt, "cli_filter_p_pre_submit", "pre_submit", "offset", offset,
                    [&](CliFilter& f) { return f.preSubmit(opt, offset); });
}

void CliFilterStack::postSubmit(int offset, uint32_t jobid, uint32_t stepid) {
  if (settings_.plugins.empty() || !ensureLoaded()) return;
  for (auto& e : entries_) {
    {
      HookScope scope(e.ref, "cli_filter_p_post_submit");
      e.filter->postSubmit(offset, jobid, stepid);
    }
    emitEvent({{"t", msg::kCliFilter}, {"ref", e.ref}, {"hook", "post_submit"}, {"offset", offset},
               {"jobId", jobid}, {"stepId", stepid}});
  }
}

void CliFilterStack::fini() {
  // Load order, as cli_filter_fini walks its contexts.
  for (auto& e : entries_) e.filter->unload();
  entries_.clear();
}

namespace {

std::string oldHookNames(void* handle) {
  if (!handle) return {};
  std::vector<std::string> present;
  std::vector<std::string> missing = missingSymbols(handle, kCliFilterOldHooks);
  std::string out;
  for (const char* h : kCliFilterOldHooks) {
    bool isMissing = false;
    for (const auto& m : missing) isMissing = isMissing || m == h;
    if (!isMissing) out += (out.empty() ? "" : ", ") + std::string(h);
  }
  return out;
}

}  // namespace

}  // namespace plugstack
