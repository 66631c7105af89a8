#include "job_container/jc_stepd.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "common/events.h"
#include "common/hook_scope.h"
#include "common/problem.h"
#include "common/slurm_log.h"
#include "protocol/messages.h"
#include "rules/slurm_errors.h"
#include "spank/job_records.h"
#include "step/step_spec.h"

namespace plugstack {

namespace {

JcStepd* g_current = nullptr;

void failed(const std::string& message) {
  Diagnostic d;
  d.severity = Severity::Error;
  d.code = "JOB_CONTAINER_FAILED";
  d.message = message;
  reportProblem(d);
}
constexpr uint32_t kStepNoVal = 0xfffffffe;

}  // namespace

bool JcStepd::containsSpank() const {
  return active() && settings_.containSpank && list_.release().containSpank;
}

namespace {

struct ContainedArgs {
  JcStepd* self;
  JcList* list;
  JcCall call;
  const std::function<int()>* fn;
  const std::function<bool()>* before;
};

int containedChild(void* p) {
  auto* a = static_cast<ContainedArgs*>(p);
  // This process shares slurmstepd's memory: its own pid for the events
  // (the parent takes its own back once this one is gone).
  resetPid();
  if (a->list->call(JcHook::Join, a->call) != 0) {
    slurmLog(LogLevel::Error, "container_g_join(" + std::to_string(a->call.jobId) + "): " + slurmErrorText(errno));
    flushEvents();
    _exit(255);
  }
  if (*a->before && !(*a->before)()) {
    flushEvents();
    _exit(255);
  }
  int rc = (*a->fn)();
  flushEvents();
  _exit(rc < 0 ? 1 : 0);
}

}  // namespace

int JcStepd::runContained(const char* callback, int task, const std::function<int()>& call,
                          const std::function<bool()>& before) {
  constexpr size_t kStack = 8 << 20;
  void* stack = mmap(nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) {
    slurmLog(LogLevel::Error, std::string("clone failed before spank call: ") + slurmErrorText(errno));
    return SLURM_ERROR;
  }
  ContainedArgs args{this, &list_, {}, &call, &before};
  args.call.process = JcProcess::SpankChild;
  args.call.jobId = jobId_;
  args.call.stepId = stepId_;
  args.call.uid = uid_;
  args.call.task = task;
  args.call.spank = callback;
  flushEvents();
  // The child shares our memory: what it leaves of a call it died in is
  // put back once it has been reaped.
  const HookState saved = HookState::save();
  pid_t pid = clone(containedChild, static_cast<char*>(stack) + kStack, CLONE_VM | SIGCHLD, &args);
  int rc = 0;
  if (pid < 0) {
    slurmLog(LogLevel::Error, std::string("clone failed before spank call: ") + slurmErrorText(errno));
    rc = SLURM_ERROR;
  } else {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status)) rc = SLURM_ERROR;
    // How it ended names what it died of, should it have died in plugin code.
    emitEvent(Event(msg::kCloneExit).add("pid", static_cast<int>(pid)).add("status", status));
  }
  saved.restore();
  resetPid();
  munmap(stack, kStack);
  return rc;
}

void JcStepd::setCurrent(JcStepd* jc) { g_current = jc; }
JcStepd* JcStepd::current() { return g_current; }

JcStepd::JcStepd(JcSettings settings, const StepSpec& spec, std::vector<std::string> pluginDirs,
                 const SlurmVersion& version)
    : settings_(settings), pluginDirs_(pluginDirs), version_(version),
      list_(std::move(settings), std::move(pluginDirs), version), jobId_(spec.record.jobId),
      stepId_(spec.record.stepId), uid_(spec.record.uid) {}

bool JcStepd::externStep() const { return stepId_ == kExternStep; }

bool JcStepd::slurmdChildJoin() {
  if (!active() || !list_.release().joinInStepdChild || externStep()) return true;
  // slurmd's instance of the plugins: loaded (slurmd loaded them at its
  // start), never unloaded with fini (exec discards them).
  JcList slurmd(settings_, pluginDirs_, version_);
  if (slurmd.init() != JcList::Init::Ok) {
    failed("JobContainerType's plugins do not load: slurmd would not run (Unable to initialize job_container plugin.)");
    return false;
  }
  JcCall call;
  call.process = JcProcess::SlurmdChild;
  call.jobId = jobId_;
  // Slurm's { NO_VAL64, job_id, step_id, NO_VAL }: the step id lands in
  // step_het_comp.
  call.stepHetComp = stepId_;
  call.stepId = kStepNoVal;
  call.uid = uid_;
  call.stepCreate = true;
  int rc = slurmd.call(JcHook::Join, call);
  slurmd.drop();
  if (rc != 0) {
    slurmLog(LogLevel::Error, "_forkexec_slurmstepd container_g_join(" + std::to_string(jobId_) +
                                  "): " + slurmErrorText(errno));
    failed("join (step_create) returned " + std::to_string(rc) +
           " in slurmd's child: it exits and the step's slurmstepd is never started on this node");
    return false;
  }
  return true;
}

bool JcStepd::start() {
  if (!active()) return true;
  if (list_.init() != JcList::Init::Ok) {
    slurmLog(LogLevel::Error, "Couldn't load all plugins", /*fatal=*/true);
    failed("JobContainerType's plugins do not load in slurmstepd: it ends before the step (fatal)");
    return false;
  }
  if (!list_.has(JcHook::RecvStepd)) return true;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) < 0) return false;
  const std::string& data = settings_.stepdData;
  if (!data.empty() && write(fds[1], data.data(), data.size()) != static_cast<ssize_t>(data.size())) {
    close(fds[0]);
    close(fds[1]);
    return false;
  }
  close(fds[1]);
  JcCall call;
  call.process = JcProcess::Slurmstepd;
  call.fd = fds[0];
  int rc = list_.call(JcHook::RecvStepd, call);
  close(fds[0]);
  if (rc != 0) {
    slurmLog(LogLevel::Error, "Failed to read job_container.conf from slurmd.", /*fatal=*/true);
    failed("recv_stepd returned " + std::to_string(rc) + ": slurmstepd ends before the step (fatal)");
    return false;
  }
  return true;
}

int JcStepd::join(JcProcess process, size_t local) {
  if (!active()) return 0;
  JcCall call;
  call.process = process;
  call.jobId = jobId_;
  call.stepId = stepId_;
  call.uid = uid_;
  call.task = static_cast<int>(local);
  return list_.call(JcHook::Join, call);
}

int JcStepd::taskJoin(size_t local) { return join(JcProcess::Task, local); }

int JcStepd::scriptJoin(size_t local) { return join(JcProcess::Script, local); }

void JcStepd::addCont() {
  if (!active() || !list_.has(JcHook::AddCont)) return;
  JcCall call;
  call.process = JcProcess::Slurmstepd;
  call.jobId = jobId_;
  call.contId = static_cast<uint64_t>(getpid());
  if (list_.call(JcHook::AddCont, call) != 0)
    slurmLog(LogLevel::Error, "container_g_add_cont(" + std::to_string(jobId_) + "): " + slurmErrorText(errno));
}

bool JcStepd::stepdCreate(void* stepRecord) {
  if (!active()) return true;
  JcCall call;
  call.process = JcProcess::Slurmstepd;
  call.jobId = jobId_;
  call.uid = uid_;
  call.step = stepRecord;
  if (list_.call(JcHook::StepdCreate, call) != 0) {
    slurmLog(LogLevel::Error, "_spawn_job_container: container_g_stepd_create(" + std::to_string(jobId_) +
                                  "): " + slurmErrorText(errno));
    return false;
  }
  return true;
}

int JcStepd::joinExternal() {
  if (!active()) return 0;
  JcCall call;
  call.process = JcProcess::Slurmstepd;
  call.jobId = jobId_;
  return list_.call(JcHook::JoinExternal, call);
}

void JcStepd::stepdDelete() {
  if (!active()) return;
  JcCall call;
  call.process = JcProcess::Slurmstepd;
  call.jobId = jobId_;
  if (list_.call(JcHook::StepdDelete, call) != 0)
    slurmLog(LogLevel::Error, "container_g_stepd_delete(" + std::to_string(jobId_) + "): " + slurmErrorText(errno));
}

}  // namespace plugstack
