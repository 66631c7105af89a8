#include "spank/stack.h"

#include <cstring>

#include "common/events.h"
#include "common/hook_scope.h"
#include "common/problem.h"
#include "plugins/load_failure.h"
#include "rules/slurm_errors.h"
#include "common/slurm_log.h"
#include "protocol/messages.h"

namespace plugstack {

namespace {

Stack* g_current = nullptr;

// Retired handles are kept (with their magic cleared) so that a stale
// pointer still points at readable memory that fails the magic check.
constexpr size_t kRetainedHandles = 4096;

json::Array callbackNames(const Plugin& p) {
  json::Array names;
  for (const auto& info : allPhases())
    if (p.has(info.phase)) names.emplace_back(info.name);
  return names;
}

}  // namespace

Stack* Stack::current() { return g_current; }
void Stack::setCurrent(Stack* stack) { g_current = stack; }

namespace {
int g_liveStacks = 0;
}  // namespace

Stack::Stack(StackSettings settings)
    : settings_(std::move(settings)), loader_(settings_.version) {
  g_liveStacks++;
}

int Stack::liveCount() { return g_liveStacks; }

Stack::~Stack() {
  g_liveStacks--;
  // Slurm destroys the plugin list from its head: fini() and dlclose in
  // config order, not in reverse.
  for (auto& p : plugins_) PluginLoader::unload(*p);
  if (g_current == this) g_current = nullptr;
}

bool Stack::load(const ParsedConf& conf) {
  int ref = 0;
  for (const auto& item : conf.items) {
    if (item.kind == ConfItem::Kind::Diagnostic) {
      reportProblem(item.diagnostic);
      if (item.diagnostic.severity == Severity::Error) return false;
      continue;
    }
    if (processPluginLine(item.plugin, ref++) < 0) return false;
  }
  return conf.ok;
}

std::string Stack::resolvePath(const std::string& path, int ref) const {
  if (!path.empty() && path[0] == '/') return path;
  for (const auto& dir : settings_.pluginDirs) {
    if (dir.empty()) continue;
    std::string candidate = dir;
    if (candidate.back() != '/') candidate += '/';
    candidate += path;
    if (loader_.peek(candidate, ref)) return candidate;
  }
  // Not found in PluginDir: dlopen gets the string unchanged and applies
  // the dynamic loader's own search rules.
  return path;
}

int Stack::processPluginLine(const PluginLine& line, int ref) {
  auto plugin = std::make_unique<Plugin>();
  plugin->ref = ref;
  plugin->file = line.file;
  plugin->line = line.line;
  plugin->required = line.required;
  plugin->configPath = line.path;
  plugin->args = line.args;
  // Announced before any of its code can run (PluginDir search included),
  // so that a crash in a constructor can be pinned on this line.
  emitEvent({{"t", msg::kLine},
             {"ref", ref},
             {"file", line.file},
             {"line", line.line},
             {"required", line.required},
             {"configPath", line.path},
             {"args", json::Array(line.args.begin(), line.args.end())}});
  plugin->path = resolvePath(line.path, ref);

  json::Object seen{{"t", msg::kPlugin}, {"ref", ref}, {"path", plugin->path}};

  const std::string where = "spank: " + line.file + ":" + std::to_string(line.line) + ":";
  auto failed = [&](const char* code, std::string message) {
    if (line.required)
      slurmLog(LogLevel::Error, where + " Failed to load plugin " + plugin->path + ". Aborting.");
    else
      slurmLog(LogLevel::Verbose,
               where + "Failed to load optional plugin " + plugin->path + ". Ignored.");
    Diagnostic d;
    d.severity = line.required ? Severity::Error : Severity::Warning;
    d.code = code;
    d.message = std::move(message) +
                (line.required ? "; the plugin is required, so Slurm refuses the whole stack"
                               : "; the plugin is optional, so Slurm carries on without it");
    d.file = line.file;
    d.line = line.line;
    seen.emplace_back("loaded", false);
    seen.emplace_back("code", code);
    emitEvent(std::move(seen));
    reportProblem(d, {{"ref", ref}});
    return line.required ? -1 : 0;
  };

  LoadResult result = loader_.load(*plugin, settings_.context != Context::Allocator);
  if (result.err != SLURM_SUCCESS) {
    slurmLog(LogLevel::Error,
             "spank: " + plugin->path + ": " + slurmErrorText(result.err));
    const LoadFailureText& f = loadFailure(result.err);
    std::string message = plugin->path + ": " + f.what;
    if (result.err == ESLURM_PLUGIN_BAD_VERSION) {
      message = plugin->path + ": built for Slurm " + result.detail + ", the host emulates " +
                settings_.version.text() +
                " (a plugin of type \"spank\" must match major.minor, any other type all "
                "three numbers)";
    } else if (!result.detail.empty()) {
      message += ": " + result.detail;
    }
    return failed(f.code, message);
  }

  seen.emplace_back("name", plugin->name);
  seen.emplace_back("type", plugin->type);
  seen.emplace_back("version", plugin->version);
  seen.emplace_back("callbacks", callbackNames(*plugin));

  if (plugin->callbackCount() == 0) {
    slurmLog(LogLevel::Error, "spank: \"" + plugin->path + "\" exports 0 symbols");
    // Slurm abandons the plugin without unloading it: init() has run, fini()
    // never will, and the file stays mapped.
    int rc = failed("PLUGIN_NO_CALLBACKS",
                    plugin->path + ": defines none of the 12 slurm_spank_* callbacks");
    leaked_.push_back(std::move(plugin));
    return rc;
  }

  if (!validForContext(*plugin)) {
    slurmLog(LogLevel::Debug2, "spank: " + plugin->path + ": no callbacks in this context");
    seen.emplace_back("loaded", true);
    seen.emplace_back("kept", false);
    emitEvent(std::move(seen));
    PluginLoader::unload(*plugin);
    return 0;
  }

  slurmLog(LogLevel::Debug, where + " Loaded plugin " + plugin->basename());
  seen.emplace_back("loaded", true);
  seen.emplace_back("kept", true);
  emitEvent(std::move(seen));

  Plugin* kept = plugin.get();
  plugins_.push_back(std::move(plugin));
  for (struct spank_option* opt = kept->staticOptions; opt && opt->name; opt++)
    options_.add(kept, opt, OptionSource::StaticTable);
  return 0;
}

bool Stack::validForContext(const Plugin& p) {
  switch (settings_.context) {
    case Context::JobScript:
      return p.has(Phase::JobProlog) || p.has(Phase::JobEpilog);
    case Context::Slurmd:
      // slurmd notes prolog/epilog callbacks even of plugins it drops.
      anyJobProlog_ = anyJobProlog_ || p.has(Phase::JobProlog);
      anyJobEpilog_ = anyJobEpilog_ || p.has(Phase::JobEpilog);
      return p.has(Phase::Init) || p.has(Phase::SlurmdExit);
    default:
      return true;
  }
}

void Stack::reportNonZero(const Plugin& p, const PhaseInfo& info, int rc) const {
  Diagnostic d;
  d.file = p.file;
  d.line = p.line;
  std::string what = p.basename() + ": " + info.symbol + "() returned " + std::to_string(rc);
  if (!p.required) {
    d.code = "HOOK_RC_IGNORED";
    d.message = what + "; the plugin is optional, so Slurm ignores it";
  } else if (isFailure(rc)) {
    d.severity = Severity::Error;
    d.code = "HOOK_FAILED";
    d.message = what + "; the plugin is required: the pass stops and Slurm " +
                settings_.version.text() + " treats the callback as failed";
  } else {
    d.code = "HOOK_STOPPED_PASS";
    d.message = what + "; a required plugin's non-zero result stops the pass, but Slurm " +
                settings_.version.text() + " counts only negative results as failure";
  }
  reportProblem(d, {{"ref", p.ref}, {"hook", info.symbol}, {"rc", rc}});
}

void Stack::checkJobEnv(const Plugin& p, const PhaseInfo& info, EnvArray& env) {
  std::string broken = env.adoptRawChanges();
  if (broken.empty()) return;
  Diagnostic d;
  d.severity = Severity::Error;
  d.code = "SPANK_ENV_BROKEN";
  d.message = std::string(info.symbol) + " wrote into the job environment array (S_JOB_ENV) itself: " + broken +
              "; Slurm's array has no room for that (use spank_setenv), plugstack keeps what is readable";
  reportProblem(d, {{"ref", p.ref}, {"hook", info.symbol}});
}

struct spank_handle* Stack::newHandle(Phase phase, void* job, TaskRecord* task) {
  if (handles_.size() >= kRetainedHandles) handles_.pop_front();
  handles_.push_back({kSpankMagic, nullptr, phase, job, task, this});
  return &handles_.back();
}

bool Stack::isLiveHandle(const struct spank_handle* h) const {
  for (auto it = handles_.rbegin(); it != handles_.rend(); ++it)
    if (&*it == h) return it->magic == kSpankMagic;
  return false;
}

PassResult Stack::callPass(Phase phase, void* job, TaskRecord* task) {
  PassResult result;
  struct spank_handle* handle = newHandle(phase, job, task);
  const PhaseInfo& info = phaseInfo(phase);
  int rc = 0;
  bool called = false;
  for (auto& p : plugins_) {
    spank_f* fn = p->callback(phase);
    if (!fn) continue;
    called = true;
    handle->plugin = p.get();
    {
      HookScope scope(p->ref, info.symbol, task ? json::Object{{"task", task->id}} : json::Object{});
      rc = fn(handle, static_cast<int>(p->args.size()), p->argv());
      scope.setResult(rc);
    }
    // A remote callback may have written into the job's environment array
    // itself (S_JOB_ENV): the array must still be one.
    if (settings_.context == Context::Remote && job) checkJobEnv(*p, info, static_cast<StepRecord*>(job)->env);
    slurmLog(LogLevel::Debug2, "spank: " + p->basename() + ": " + info.name + " = " +
                                   std::to_string(rc));
    if (rc != 0) reportNonZero(*p, info, rc);
    if (rc != 0 && p->required) {
      slurmLog(LogLevel::Error, "spank: required plugin " + p->basename() + ": " + info.name +
                                    "() failed with rc=" + std::to_string(rc));
      result.stoppedBy = p->ref;
      break;
    }
    rc = 0;
  }
  handle->magic = 0;
  handle->plugin = nullptr;
  result.rc = rc;
  // Passes no plugin takes part in are not worth a frame (there is one per
  // task and phase).
  if (called) {
    Event ev(msg::kPass);
    ev.add("hook", info.symbol).add("rc", rc);
    if (result.stoppedBy >= 0) ev.add("stoppedBy", result.stoppedBy);
    else ev.addNull("stoppedBy");
    emitEvent(ev);
  }
  return result;
}

bool Stack::anyDefines(Phase phase) const {
  for (const auto& p : plugins_)
    if (p->has(phase)) return true;
  return false;
}

}  // namespace plugstack
