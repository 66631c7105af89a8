#include "mpi/mpi_plugin.h"

#include <dlfcn.h>
#include <unistd.h>

#include "common/events.h"
#include "common/hook_scope.h"
#include "common/problem.h"
#include "common/slurm_log.h"
#include "common/visibility.h"
#include "config/sp_table.h"
#include "plugins/builtin_dir.h"
#include "plugins/load_failure.h"
#include "plugins/typed_plugin.h"
#include "protocol/messages.h"
#include "rules/slurm_errors.h"

namespace plugstack {

namespace {

uint32_t g_emulated = SlurmVersion{24, 11, 5}.number();

std::string oldHookNames(void* handle) {
  if (!handle) return {};
  std::string out;
  for (const char* h : kMpiOldHooks)
    if (dlsym(handle, h)) out += (out.empty() ? "" : ", ") + std::string(h);
  return out;
}

json::Array changesJson(const std::vector<EnvChange>& changes) {
  json::Array out;
  for (const auto& c : changes) {
    json::Object o{{"op", c.op}, {"name", c.name}};
    if (c.op == "set") o.emplace_back("value", c.value);
    out.emplace_back(std::move(o));
  }
  return out;
}

}  // namespace

void setMpiEmulatedVersion(const SlurmVersion& version) {
  g_emulated = version.number();
  // The option arrays mpi plugins hand over (conf_options) have the release's layout.
  sp::setOptionLayout(mpiRelease(version).confOptionsWithPack);
}

std::string builtinMpiDir(const SlurmVersion&) { return builtinPluginDir("mpi"); }

MpiPlugin::~MpiPlugin() = default;

std::string MpiPlugin::findFile(const MpiLoadRequest& request, std::vector<std::string>* dirs) {
  const MpiRelease& release = mpiRelease(request.version);
  const std::string builtin = builtinMpiDir(request.version);
  if (mpiServedByPlugstack(request.type.c_str())) {
    std::string site = sitePluginFile(request.pluginDirs, "mpi", request.type);
    if (!site.empty()) {
      Diagnostic note;
      note.severity = Severity::Warning;
      note.code = "MPI_PLUGSTACK_PMI2";
      note.message = site + " is passed over: Slurm's mpi/" + request.type +
                     " needs srun's and slurmstepd's internals and cannot run outside them; plugstack's own mpi/" +
                     request.type + " serves the step (PMI-1 and PMI-2, as Slurm's does)";
      note.file = request.file;
      note.line = request.line;
      reportProblem(note, {{"ref", request.ref}});
    }
    dirs->assign({builtin});
    return builtin;
  }
  *dirs = request.pluginDirs;
  // 22.05's "none" is a plugin: the site's, else plugstack's own stubs.
  if (request.type == "none" && release.noneIsPlugin) dirs->push_back(builtin);
  return {};
}

MpiPlugin::Outcome MpiPlugin::fail(const MpiLoadRequest& request, const char* code, const std::string& message,
                                   const std::string& path) {
  slurmLog(LogLevel::Error, "MPI: Cannot create context for mpi/" + request.type);
  emitEvent({{"t", msg::kPlugin}, {"ref", ref_}, {"path", path}, {"loaded", false}, {"code", code}});
  Diagnostic d;
  d.severity = request.passedOver ? Severity::Warning : Severity::Error;
  d.code = code;
  d.message = request.passedOver ? message + "; slurmd passes it over" : message;
  d.file = request.file;
  d.line = request.line;
  reportProblem(d, {{"ref", ref_}});
  return Outcome::Failed;
}

MpiPlugin::Outcome MpiPlugin::load(const MpiLoadRequest& request) {
  ref_ = request.ref;
  type_ = request.type;
  const std::string type = "mpi/" + request.type;
  emitTypedPluginLine(ref_, request.file, request.line, type, "mpi");
  if (mpiNotProvided(request.type.c_str()))
    return fail(request, "MPI_NOT_PROVIDED",
                type + " is not provided: Slurm's " + type +
                    " runs a PMIx (or Cray PALS) server inside slurmstepd, which plugstack does not emulate; "
                    "use --mpi=pmi2 (MPICH, Intel MPI, MVAPICH) or none",
                type);

  std::vector<std::string> dirs;
  findFile(request, &dirs);
  setMpiEmulatedVersion(request.version);
  std::vector<const char*> hooks(std::begin(kMpiHooks), std::end(kMpiHooks));
  ContextResult r = createPluginContext("mpi", type, hooks, dirs, request.version, ref_, &context_);
  if (r.outcome == ContextOutcome::MissingSymbols) {
    std::string message = context_.file.path + ": lacks ";
    for (size_t i = 0; i < r.missing.size(); i++) message += (i ? ", " : "") + r.missing[i];
    std::string old = oldHookNames(context_.file.handle);
    if (!old.empty())
      message += "; it defines " + old + ", the names of Slurm 21.08 and older, which Slurm no longer calls";
    message += "; Slurm ends the process (fatal)";
    emitEvent({{"t", msg::kPlugin}, {"ref", ref_}, {"path", context_.file.path}, {"loaded", false},
               {"code", "MPI_MISSING_HOOKS"}});
    Diagnostic d;
    d.severity = Severity::Error;
    d.code = "MPI_MISSING_HOOKS";
    d.message = message;
    d.file = request.file;
    d.line = request.line;
    reportProblem(d, {{"ref", ref_}});
    return Outcome::Fatal;
  }
  if (r.outcome != ContextOutcome::Loaded) {
    const LoadFailureText& f = loadFailure(r.err);
    std::string message = type + ": " + f.what;
    if (r.err == ESLURM_PLUGIN_BAD_VERSION)
      message = type + ": built for Slurm " + r.detail + ", the host emulates " + request.version.text() +
                " (an mpi plugin must match all three numbers)";
    else if (!r.detail.empty())
      message += ": " + r.detail;
    if (r.err == ESLURM_PLUGIN_NOTFOUND) {
      message += " (looked for mpi_" + request.type + ".so in";
      for (const auto& d : dirs) message += " " + d;
      message += ")";
    }
    return fail(request, f.code, message, context_.file.path.empty() ? type : context_.file.path);
  }
  pluginId_ = *static_cast<const uint32_t*>(context_.hooks[0]);
  emitTypedPluginLoaded(ref_, context_.file);
  emitEvent({{"t", msg::kMpi}, {"ref", ref_}, {"hook", "load"}, {"type", request.type}, {"pluginId", pluginId_}});
  return Outcome::Loaded;
}

bool MpiPlugin::afterEnvCall(const char* hook, int task, const std::vector<std::string>& before,
                             const XEnv& env, json::Object result, bool* changed) {
  json::Object ev{{"t", msg::kMpi}, {"ref", ref_}, {"hook", hook}};
  if (task >= 0) ev.emplace_back("task", task);
  for (auto& kv : result) ev.push_back(std::move(kv));
  bool fatal = false;
  std::string broken = env.check(&fatal);
  if (!broken.empty()) ev.emplace_back("envBroken", broken);
  // Most hooks change nothing: the arrays are then compared in place.
  bool same = !fatal && env.holds(before);
  if (changed) *changed = !same;
  if (!fatal) ev.emplace_back("changes", same ? json::Array{} : changesJson(envChanges(before, env.entries())));
  emitEvent(std::move(ev));
  if (broken.empty()) return true;
  Diagnostic d;
  d.severity = Severity::Error;
  d.code = "MPI_ENV_BROKEN";
  d.message = std::string(hook) + " left the environment array it was handed broken: " + broken +
              (fatal ? "; in Slurm the next use of the array reads or writes past its end, and plugstack stops there"
                     : "; plugstack drops the entry");
  reportProblem(d, {{"ref", ref_}, {"hook", hook}});
  return !fatal;
}

void* MpiPlugin::clientPrelaunch(void* info, XEnv& env, bool* envOk) {
  auto fn = reinterpret_cast<void* (*)(void*, char***)>(context_.hooks[2]);
  std::vector<std::string> before = env.entries();
  void* state;
  {
    HookScope scope(ref_, "mpi_p_client_prelaunch");
    state = fn(info, env.slot());
    scope.setResult(state ? 0 : -1);
  }
  *envOk = afterEnvCall("client_prelaunch", -1, before, env, {{"ok", state != nullptr}});
  return state;
}

int MpiPlugin::clientFini(void* state) {
  auto fn = reinterpret_cast<int (*)(void*)>(context_.hooks[1]);
  int rc;
  {
    HookScope scope(ref_, "mpi_p_client_fini");
    rc = fn(state);
    scope.setResult(rc);
  }
  emitEvent({{"t", msg::kMpi}, {"ref", ref_}, {"hook", "client_fini"}, {"rc", rc}});
  return rc;
}

int MpiPlugin::slurmstepdPrefork(void* stepRecord, char*** slot, XEnv& env, bool* envOk) {
  auto fn = reinterpret_cast<int (*)(void*, char***)>(context_.hooks[7]);
  std::vector<std::string> before = env.entries();
  *slot = env.array();
  int rc;
  {
    HookScope scope(ref_, "mpi_p_slurmstepd_prefork");
    rc = fn(stepRecord, slot);
    scope.setResult(rc);
  }
  env.reset(*slot);
  *envOk = afterEnvCall("slurmstepd_prefork", -1, before, env, {{"rc", rc}});
  return rc;
}

int MpiPlugin::slurmstepdTask(void* taskInfo, XEnv& env, const std::vector<std::string>& before, int task,
                              bool* envOk, bool* changed) {
  auto fn = reinterpret_cast<int (*)(void*, char***)>(context_.hooks[8]);
  int rc;
  {
    HookScope scope(ref_, "mpi_p_slurmstepd_task", json::Object{{"task", task}});
    rc = fn(taskInfo, env.slot());
    scope.setResult(rc);
  }
  *envOk = afterEnvCall("slurmstepd_task", task, before, env, {{"rc", rc}}, changed);
  return rc;
}

void MpiPlugin::confOptions(void** options, int* count) {
  auto fn = reinterpret_cast<void (*)(void**, int*)>(context_.hooks[5]);
  HookScope scope(ref_, "mpi_p_conf_options");
  fn(options, count);
}

void MpiPlugin::confSet(void* table) {
  auto fn = reinterpret_cast<void (*)(void*)>(context_.hooks[6]);
  HookScope scope(ref_, "mpi_p_conf_set");
  fn(table);
}

void* MpiPlugin::confGet() {
  auto fn = reinterpret_cast<void* (*)()>(context_.hooks[3]);
  HookScope scope(ref_, "mpi_p_conf_get");
  return fn();
}

void MpiPlugin::unload() {
  if (context_.file.handle) closePluginFile(context_.file);
}

}  // namespace plugstack

extern "C" {

// plugstack's own mpi plugins claim the release the host emulates, to the
// micro version (their plugin_version is set from this in a constructor).
PLUGSTACK_EXPORT uint32_t plugstack_slurm_version_number(void) { return plugstack::g_emulated; }

}  // extern "C"
