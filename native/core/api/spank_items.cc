// spank_get_item(): the validity table (item_rules.cc), then each item's
// value from the job record of the context.
#include <stdarg.h>
#include <unistd.h>

#include <cstring>

#include "common/events.h"
#include "common/hook_scope.h"
#include "rules/item_rules.h"
#include "spank/job_records.h"
#include "api/spank_api_internal.h"
#include "spank/stack.h"
#include "common/visibility.h"
#include "protocol/messages.h"

using namespace plugstack;

namespace {

spank_err_t gateResult(ItemGate gate, const struct spank_handle* sp) {
  switch (gate) {
    case ItemGate::Pass: return api::kSuccess;
    case ItemGate::NeedsJob: return sp->job ? api::kSuccess : ESPANK_NOT_AVAIL;
    case ItemGate::NotAvail: return ESPANK_NOT_AVAIL;
    case ItemGate::NotRemote: return ESPANK_NOT_REMOTE;
    case ItemGate::BadArg: return ESPANK_BAD_ARG;
  }
  return ESPANK_BAD_ARG;
}

TaskRecord* taskByPid(StepRecord* step, pid_t pid) {
  if (!step) return nullptr;
  for (auto& t : step->tasks)
    if (t.pid == pid) return &t;
  return nullptr;
}

// Phases after the tasks were started: only then can a pid be mapped.
bool tasksExecd(Phase phase) {
  return phase == Phase::TaskPostFork || phase == Phase::TaskExit || phase == Phase::Exit;
}

json::Value argvJson(int argc, char** argv) {
  json::Array a;
  for (int i = 0; argv && i < argc && argv[i]; i++) a.emplace_back(argv[i]);
  return json::Value(std::move(a));
}

}  // namespace

extern "C" PLUGSTACK_EXPORT spank_err_t spank_get_item(spank_t spank, spank_item_t item, ...) {
  if (!api::validHandle(spank, "spank_get_item")) return ESPANK_BAD_ARG;

  const int itemNumber = static_cast<int>(item);
  Stack* stack = spank->stack;
  const Context ctx = stack->context();
  spank_err_t rc = gateResult(itemGate(ctx, itemNumber), spank);
  json::Value value;

  if (rc == api::kSuccess) {
    LauncherJobRecord* launcher =
        ctx == Context::Local ? static_cast<LauncherJobRecord*>(spank->job) : nullptr;
    StepRecord* step = ctx == Context::Remote ? static_cast<StepRecord*>(spank->job) : nullptr;
    JobScriptRecord* script =
        ctx == Context::JobScript ? static_cast<JobScriptRecord*>(spank->job) : nullptr;
    TaskRecord* task = spank->task;
    const SlurmVersion& version = stack->version();

    va_list ap;
    va_start(ap, item);
    switch (item) {
      case S_JOB_UID: {
        uid_t* out = va_arg(ap, uid_t*);
        *out = launcher ? launcher->uid : step ? step->uid : script ? script->uid : getuid();
        value = static_cast<long long>(*out);
        break;
      }
      case S_JOB_GID: {
        gid_t* out = va_arg(ap, gid_t*);
        *out = launcher ? launcher->gid : step ? step->gid : script ? script->gid : getgid();
        value = static_cast<long long>(*out);
        break;
      }
      case S_JOB_SUPPLEMENTARY_GIDS: {
        gid_t** gids = va_arg(ap, gid_t**);
        int* count = va_arg(ap, int*);
        *gids = step && !step->gids.empty() ? step->gids.data() : nullptr;
        *count = step ? static_cast<int>(step->gids.size()) : 0;
        json::Array a;
        for (int i = 0; i < *count; i++) a.emplace_back(static_cast<long long>((*gids)[i]));
        value = json::Value(std::move(a));
        break;
      }
      case S_JOB_ID: {
        uint32_t* out = va_arg(ap, uint32_t*);
        if (launcher) *out = launcher->jobId;
        else if (step) *out = step->jobId;
        else if (script) *out = script->jobId;
        value = *out;
        break;
      }
      case S_JOB_STEPID: {
        uint32_t* out = va_arg(ap, uint32_t*);
        *out = launcher ? launcher->stepId : step ? step->stepId : 0;
        value = *out;
        break;
      }
      case S_JOB_ARRAY_ID: {
        uint32_t* out = va_arg(ap, uint32_t*);
        *out = step ? step->arrayJobId : 0;
        value = *out;
        break;
      }
      case S_JOB_ARRAY_TASK_ID: {
        uint32_t* out = va_arg(ap, uint32_t*);
        *out = step ? step->arrayTaskId : 0;
        value = *out;
        break;
      }
      case S_JOB_NNODES:
      case S_JOB_TOTAL_TASK_COUNT: {
        uint32_t* out = va_arg(ap, uint32_t*);
        bool nodes = item == S_JOB_NNODES;
        if (launcher) {
          if (launcher->hasLayout) {
            *out = nodes ? launcher->nodeCount : launcher->taskCount;
          } else {
            *out = 0;
            rc = ESPANK_ENV_NOEXIST;
          }
        } else {
          *out = step ? (nodes ? step->nnodes : step->ntasks) : 0;
        }
        value = *out;
        break;
      }
      case S_JOB_NODEID: {
        uint32_t* out = va_arg(ap, uint32_t*);
        *out = step ? step->nodeId : 0;
        value = *out;
        break;
      }
      case S_JOB_LOCAL_TASK_COUNT: {
        uint32_t* out = va_arg(ap, uint32_t*);
        *out = step ? static_cast<uint32_t>(step->tasks.size()) : 0;
        value = *out;
        break;
      }
      case S_JOB_NCPUS: {
        uint16_t* out = va_arg(ap, uint16_t*);
        *out = step ? step->cpus : 0;
        value = static_cast<unsigned>(*out);
        break;
      }
      case S_STEP_CPUS_PER_TASK: {
        uint32_t* out = va_arg(ap, uint32_t*);
        *out = step ? step->cpusPerTask : 0;
        value = *out;
        break;
      }
      case S_JOB_ARGV: {
        int* argc = va_arg(ap, int*);
        char*** argv = va_arg(ap, char***);
        if (launcher) {
          *argc = static_cast<int>(launcher->argvStore.size());
          *argv = launcher->argv.data();
        } else if (step) {
          *argc = step->argc();
          *argv = step->argv.data();
        } else {
          *argc = 0;
          *argv = nullptr;
        }
        value = argvJson(*argc, *argv);
        break;
      }
      case S_JOB_ENV: {
        char*** env = va_arg(ap, char***);
        *env = step ? step->env.data() : nullptr;
        value = step ? json::Value(static_cast<unsigned long>(step->env.size())) : json::Value();
        break;
      }
      case S_TASK_ID: {
        int* out = va_arg(ap, int*);
        if (!task) {
          *out = -1;
          rc = ESPANK_NOT_TASK;
        } else {
          *out = task->id;
          value = *out;
        }
        break;
      }
      case S_TASK_GLOBAL_ID: {
        uint32_t* out = va_arg(ap, uint32_t*);
        if (!task) {
          rc = ESPANK_NOT_TASK;  // the output is left untouched
        } else {
          *out = task->gtid;
          value = *out;
        }
        break;
      }
      case S_TASK_EXIT_STATUS: {
        int* out = va_arg(ap, int*);
        if (!task || !task->exited) {
          rc = ESPANK_NOT_TASK;
        } else {
          *out = task->estatus;
          value = *out;
        }
        break;
      }
      case S_TASK_PID: {
        pid_t* out = va_arg(ap, pid_t*);
        if (!task) {
          rc = ESPANK_NOT_TASK;
          *out = 0;
        } else {
          // -1 in the task child: the pid is recorded only in the parent.
          *out = task->pid;
          value = static_cast<int>(*out);
        }
        break;
      }
      case S_JOB_PID_TO_GLOBAL_ID:
      case S_JOB_PID_TO_LOCAL_ID: {
        pid_t pid = va_arg(ap, pid_t);
        uint32_t* out = va_arg(ap, uint32_t*);
        *out = static_cast<uint32_t>(-1);
        TaskRecord* t = nullptr;
        if (!tasksExecd(spank->phase)) rc = ESPANK_NOT_EXECD;
        else if (!(t = taskByPid(step, pid))) rc = ESPANK_NOEXIST;
        else *out = item == S_JOB_PID_TO_GLOBAL_ID ? t->gtid : static_cast<uint32_t>(t->id);
        if (rc == api::kSuccess) value = *out;
        break;
      }
      case S_JOB_LOCAL_TO_GLOBAL_ID: {
        uint32_t local = va_arg(ap, uint32_t);
        uint32_t* out = va_arg(ap, uint32_t*);
        *out = static_cast<uint32_t>(-1);
        // Slurm's bound check lets id == node_tasks through and reads past
        // its array; that id is refused here.
        if (step && local < step->tasks.size()) {
          *out = step->tasks[local].gtid;
          value = *out;
        } else {
          rc = ESPANK_NOEXIST;
        }
        break;
      }
      case S_JOB_GLOBAL_TO_LOCAL_ID: {
        uint32_t global = va_arg(ap, uint32_t);
        uint32_t* out = va_arg(ap, uint32_t*);
        *out = static_cast<uint32_t>(-1);
        if (!step || global >= step->ntasks) {
          rc = ESPANK_BAD_ARG;
        } else {
          rc = ESPANK_NOEXIST;
          for (const auto& t : step->tasks) {
            if (t.gtid == global) {
              *out = static_cast<uint32_t>(t.id);
              rc = api::kSuccess;
              value = *out;
              break;
            }
          }
        }
        break;
      }
      case S_JOB_ALLOC_CORES:
      case S_STEP_ALLOC_CORES: {
        char** out = va_arg(ap, char**);
        *out = nullptr;
        if (step) {
          const auto& cores = item == S_JOB_ALLOC_CORES ? step->jobAllocCores : step->stepAllocCores;
          if (cores) *out = const_cast<char*>(cores->c_str());
        }
        value = *out ? json::Value(*out) : json::Value();
        break;
      }
      case S_JOB_ALLOC_MEM:
      case S_STEP_ALLOC_MEM: {
        uint64_t* out = va_arg(ap, uint64_t*);
        *out = step ? (item == S_JOB_ALLOC_MEM ? step->jobMem : step->stepMem) : 0;
        value = static_cast<unsigned long>(*out);
        break;
      }
      case S_SLURM_RESTART_COUNT: {
        uint32_t* out = va_arg(ap, uint32_t*);
        *out = step ? step->restartCount : 0;
        value = *out;
        break;
      }
      case S_SLURM_VERSION:
      case S_SLURM_VERSION_MAJOR:
      case S_SLURM_VERSION_MINOR:
      case S_SLURM_VERSION_MICRO: {
        char** out = va_arg(ap, char**);
        *out = const_cast<char*>(api::versionString(version, item));
        value = *out;
        break;
      }
      default:
        rc = ESPANK_BAD_ARG;
        break;
    }
    va_end(ap);
  }

  const char* name = itemName(itemNumber);
  Event ev(msg::kItem);
  ev.add("ref", spank->plugin ? spank->plugin->ref : -1).add("hook", phaseInfo(spank->phase).symbol);
  if (name) ev.add("item", name);
  else ev.add("item", itemNumber);
  ev.add("rc", static_cast<int>(rc));
  if (rc == api::kSuccess) ev.add("value", value);
  emitEvent(ev);
  return rc;
}
