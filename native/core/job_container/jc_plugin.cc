#include "job_container/jc_plugin.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "common/events.h"
#include "common/hook_scope.h"
#include "common/problem.h"
#include "common/slurm_log.h"
#include "common/visibility.h"
#include "plugins/builtin_dir.h"
#include "plugins/load_failure.h"
#include "plugins/typed_plugin.h"
#include "protocol/messages.h"
#include "rules/slurm_errors.h"

namespace plugstack {

namespace {

// slurm_step_id_t as 24.11 lays it out (sluid first).
struct StepId2411 {
  uint64_t sluid;
  uint32_t job_id;
  uint32_t step_het_comp;
  uint32_t step_id;
};
constexpr uint64_t kNoVal64 = 0xfffffffffffffffeULL;

// The API number Slurm 14.03's job_container plugins carried as their
// plugin_version (doc: "version 101").
constexpr uint32_t kApi101 = 101;

}  // namespace

const char* jcProcessName(JcProcess p) {
  switch (p) {
    case JcProcess::Slurmd: return "slurmd";
    case JcProcess::SlurmdChild: return "slurmd_child";
    case JcProcess::Slurmstepd: return "slurmstepd";
    case JcProcess::Task: return "task";
    case JcProcess::SpankChild: return "spank_child";
    case JcProcess::Script: return "script";
    case JcProcess::Check: return "check";
  }
  return "?";
}

namespace {
std::string g_slurmConf;
}  // namespace

void setJcSlurmConf(const std::string& path) { g_slurmConf = path; }

std::string builtinJcDir() { return builtinPluginDir("job_container"); }

bool jcServedByPlugstack(const std::string& type) { return type == "tmpfs"; }

uint64_t currentMountNamespace() {
  // The kernel's 64-bit id (NS_GET_MNTNS_ID, Linux 6.8 on) is never reused;
  // the inode of /proc/self/ns/mnt may be, once a namespace is gone.
  int fd = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  uint64_t id = 0;
  constexpr unsigned long kNsGetMntnsId = _IOR(0xb7, 0x5, uint64_t);
  if (ioctl(fd, kNsGetMntnsId, &id) != 0 || id == 0) {
    struct stat st;
    id = fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_ino) : 0;
  }
  close(fd);
  return id;
}

JcPlugin::Outcome JcPlugin::refuse(const JcLoadRequest& request, const char* code, const std::string& message,
                                   const std::string& path, bool fatal) {
  emitEvent({{"t", msg::kPlugin}, {"ref", ref_}, {"path", path}, {"loaded", false}, {"code", code}});
  Diagnostic d;
  d.severity = Severity::Error;
  d.code = code;
  d.message = message;
  d.file = request.file;
  d.line = request.line;
  reportProblem(d, {{"ref", ref_}});
  return fatal ? Outcome::Fatal : Outcome::Failed;
}

// What the file defines, against the release's set: each hook it lacks,
// and each hook of an older interface it defines with what replaced it.
std::string JcPlugin::describeHooks(const std::string& path, const JcRelease& release) {
  void* handle = context_.file.handle;
  bool opened = false;
  if (!handle) {
    HookScope scope(ref_, "dlopen", json::Object{{"path", path}});
    handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
    opened = handle != nullptr;
  }
  if (!handle) return {};
  std::string lacks, old;
  for (size_t i = 0; i < release.count; i++)
    if (!dlsym(handle, release.symbols[i].symbol)) lacks += (lacks.empty() ? "" : ", ") + std::string(release.symbols[i].symbol);
  const JcObsolete* obsolete = nullptr;
  size_t n = jcObsoleteHooks(release, &obsolete);
  for (size_t i = 0; i < n; i++)
    if (dlsym(handle, obsolete[i].symbol))
      old += (old.empty() ? "" : "; ") + std::string(obsolete[i].symbol) + " (" + obsolete[i].fate + ")";
  if (opened) {
    HookScope scope(ref_, "dlclose");
    dlclose(handle);
  }
  std::string out;
  if (!lacks.empty()) out += "it lacks " + lacks;
  if (!old.empty()) out += std::string(out.empty() ? "it" : "; it") + " defines hooks Slurm " +
                           release.name + " no longer calls: " + old;
  return out;
}

JcPlugin::Outcome JcPlugin::load(const JcLoadRequest& request) {
  ref_ = request.ref;
  type_ = request.type;
  release_ = &jcRelease(request.version);
  const std::string type = "job_container/" + request.type;
  emitTypedPluginLine(ref_, request.file, request.line, type, "job_container");
  std::vector<const char*> hooks;
  for (size_t i = 0; i < release_->count; i++) hooks.push_back(release_->symbols[i].symbol);
  std::vector<std::string> dirs = request.pluginDirs;
  if (jcServedByPlugstack(request.type)) {
    std::string site = sitePluginFile(request.pluginDirs, "job_container", request.type);
    if (!site.empty()) {
      Diagnostic note;
      note.severity = Severity::Warning;
      note.code = "JOB_CONTAINER_PLUGSTACK_TMPFS";
      note.message = site + " is passed over: Slurm's " + type +
                     " needs slurmd's internals and cannot run outside Slurm; plugstack's own " + type +
                     " serves the job (job_container.conf read beside slurm.conf)";
      note.file = request.file;
      note.line = request.line;
      reportProblem(note, {{"ref", ref_}});
    }
    dirs.assign({builtinJcDir()});
  }
  ContextResult r = createPluginContext("job_container", type, hooks, dirs, request.version, ref_, &context_);
  if (r.outcome == ContextOutcome::MissingSymbols) {
    std::string message = context_.file.path + ": " + describeHooks(context_.file.path, *release_) +
                          "; Slurm " + request.version.text() +
                          " requires every hook of its job_container interface and ends the process (fatal) after "
                          "the plugin's init() ran";
    // Slurm never unloads it: the process ends.
    return refuse(request, "JOB_CONTAINER_MISSING_HOOKS", message, context_.file.path, true);
  }
  if (r.outcome != ContextOutcome::Loaded) {
    slurmLog(LogLevel::Error, "cannot create job_container context for " + type);
    const LoadFailureText& f = loadFailure(r.err);
    std::string path = context_.file.path.empty() ? type : context_.file.path;
    std::string message = type + ": " + f.what;
    if (r.err == ESLURM_PLUGIN_BAD_VERSION) {
      message = type + ": built for Slurm " + r.detail + ", the host emulates " + request.version.text() +
                " (a job_container plugin must match all three numbers)";
      if (r.detail == formatVersionNumber(kApi101))
        message += "; its plugin_version 101 is the API number of Slurm 14.03's job_container interface, "
                   "which plugins stopped carrying in 15.08";
      if (r.detail.compare(0, 6, "24.11.") == 0 && request.version.major == 24 && request.version.minor == 11 &&
          (r.detail == "24.11.0") != (request.version.micro == 0))
        message += "; 24.11.0's container_p_join takes (job_id, uid), 24.11.1's and later (step_id, uid, step_create)";
      std::string hooksText = describeHooks(path, *release_);
      if (!hooksText.empty()) message += "; were its version right, " + hooksText;
    } else if (!r.detail.empty()) {
      message += ": " + r.detail;
    }
    if (r.err == ESLURM_PLUGIN_NOTFOUND) {
      message += " (looked for job_container_" + request.type + ".so in";
      for (const auto& d : request.pluginDirs) message += " " + d;
      message += ")";
    }
    return refuse(request, f.code, message, path, false);
  }
  emitTypedPluginLoaded(ref_, context_.file);
  return Outcome::Loaded;
}

int JcPlugin::call(JcHook hook, const JcCall& a) {
  size_t index = release_->count;
  for (size_t i = 0; i < release_->count; i++)
    if (release_->symbols[i].hook == hook) index = i;
  if (index == release_->count || !context_.file.handle) return SLURM_ERROR;
  void* fn = context_.hooks[index];
  const char* symbol = release_->symbols[index].symbol;
  json::Object extra;
  if (a.task >= 0) extra.emplace_back("task", a.task);
  int rc = 0;
  {
    HookScope scope(ref_, symbol, std::move(extra));
    switch (hook) {
      case JcHook::Create:
        rc = reinterpret_cast<int (*)(uint32_t, uid_t)>(fn)(a.jobId, a.uid);
        break;
      case JcHook::AddCont:
        rc = reinterpret_cast<int (*)(uint32_t, uint64_t)>(fn)(a.jobId, a.contId);
        break;
      case JcHook::Join:
        if (release_->join3) {
          StepId2411 id{kNoVal64, a.jobId, a.stepHetComp, a.stepId};
          rc = reinterpret_cast<int (*)(StepId2411*, uid_t, bool)>(fn)(&id, a.uid, a.stepCreate);
        } else {
          rc = reinterpret_cast<int (*)(uint32_t, uid_t)>(fn)(a.jobId, a.uid);
        }
        break;
      case JcHook::JoinExternal:
      case JcHook::Delete:
      case JcHook::StepdDelete:
        rc = reinterpret_cast<int (*)(uint32_t)>(fn)(a.jobId);
        break;
      case JcHook::Restore: {
        std::string dir = a.dir;
        rc = reinterpret_cast<int (*)(char*, bool)>(fn)(dir.data(), a.recover);
        break;
      }
      case JcHook::Reconfig:
        reinterpret_cast<void (*)(void)>(fn)();
        break;
      case JcHook::StepdCreate:
        if (release_->stepdCreateTakesStep)
          rc = reinterpret_cast<int (*)(uint32_t, void*)>(fn)(a.jobId, a.step);
        else
          rc = reinterpret_cast<int (*)(uint32_t, uid_t)>(fn)(a.jobId, a.uid);
        break;
      case JcHook::SendStepd:
      case JcHook::RecvStepd:
        rc = reinterpret_cast<int (*)(int)>(fn)(a.fd);
        break;
    }
    scope.setResult(rc);
  }
  Event ev(msg::kJobContainer);
  ev.add("ref", ref_).add("hook", jcHookName(hook)).add("process", jcProcessName(a.process));
  if (hook == JcHook::JoinExternal)
    ev.add("fd", rc);
  else
    ev.add("rc", rc);
  if (hook != JcHook::Restore && hook != JcHook::Reconfig && hook != JcHook::SendStepd && hook != JcHook::RecvStepd)
    ev.add("jobId", a.jobId);
  if (hook == JcHook::Join && release_->join3)
    ev.add("stepId", static_cast<long long>(a.stepId)).add("stepHetComp", static_cast<long long>(a.stepHetComp))
        .add("stepCreate", a.stepCreate);
  if (hook == JcHook::Join || hook == JcHook::Create || (hook == JcHook::StepdCreate && !release_->stepdCreateTakesStep))
    ev.add("uid", static_cast<long long>(a.uid));
  if (hook == JcHook::Restore) ev.add("dir", a.dir).add("recover", a.recover);
  if (a.task >= 0) ev.add("task", a.task);
  if (!a.spank.empty()) ev.add("spank", a.spank);
  ev.add("pid", currentPid()).add("mntNs", static_cast<long long>(currentMountNamespace()));
  emitEvent(ev);
  return rc;
}

void JcPlugin::drop() {
  if (!context_.file.handle) return;
  HookScope scope(ref_, "dlclose");
  dlclose(context_.file.handle);
  context_.file.handle = nullptr;
}

void JcPlugin::unload() {
  if (context_.file.handle) closePluginFile(context_.file);
}

}  // namespace plugstack

extern "C" {

// plugstack's own job_container/tmpfs reads job_container.conf beside it.
PLUGSTACK_EXPORT const char* plugstack_slurm_conf(void) {
  return plugstack::g_slurmConf.empty() ? nullptr : plugstack::g_slurmConf.c_str();
}

}  // extern "C"
