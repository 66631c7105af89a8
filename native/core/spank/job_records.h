// What the handle's job pointer refers to in each context, mirroring the
// records Slurm passes: the step record in slurmstepd (remote), the launcher
// job info in srun's local_user_init, the job info of a prolog/epilog. In
// init, init_post_opt and exit of the local and allocator contexts, and in
// slurmd, the pointer is NULL, which is what makes most items unavailable
// there.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spank/env_array.h"

namespace plugstack {

// Slurm's special step ids and "no value" markers.
constexpr uint32_t kNoVal = 0xfffffffe;
constexpr uint32_t kBatchScriptStep = 0xfffffffb;
constexpr uint32_t kExternStep = 0xfffffffc;
constexpr uint32_t kInteractiveStep = 0xfffffffa;

struct TaskRecord {
  int id = 0;         // local task id on this node
  uint32_t gtid = 0;  // global task id
  pid_t pid = -1;     // known only in the parent, after fork
  bool exited = false;
  int estatus = 0;  // raw wait status
  // Signalled by a request (SIGTERM/SIGKILL): its status says only that
  // we killed it, so the step's exit code ignores it (_get_exit_code).
  bool killedByCmd = false;
  // The argv this task will exec; spank_prepend_task_argv grows it.
  std::vector<std::string> argvStore;
  std::vector<char*> argv;  // NULL-terminated view of argvStore
  int argc = 0;

  void setArgv(const std::vector<std::string>& args);
};

struct StepRecord {
  uint32_t jobId = 0;
  uint32_t stepId = 0;
  uint32_t nnodes = 1;
  uint32_t nodeId = 0;
  uint32_t ntasks = 1;  // tasks in the whole step
  uint16_t cpus = 1;    // CPUs on this node
  uint32_t cpusPerTask = 1;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> gids;
  uint32_t arrayJobId = 0;
  uint32_t arrayTaskId = kNoVal;
  std::optional<std::string> jobAllocCores;
  std::optional<std::string> stepAllocCores;
  uint64_t jobMem = 0;
  uint64_t stepMem = 0;
  uint32_t restartCount = 0;  // slurmstepd never sets it: always 0

  std::vector<std::string> argvStore;
  std::vector<char*> argv;  // NULL-terminated view
  EnvArray env;             // the job step environment (spank_getenv & co.)
  std::vector<TaskRecord> tasks;

  void setArgv(const std::vector<std::string>& args);
  int argc() const { return static_cast<int>(argvStore.size()); }
};

struct LauncherJobRecord {
  uid_t uid = 0;
  gid_t gid = 0;
  uint32_t jobId = 0;
  uint32_t stepId = 0;
  bool hasLayout = true;  // without a step layout NNODES/TOTAL_TASK_COUNT fail
  uint32_t nodeCount = 1;
  uint32_t taskCount = 1;
  std::vector<std::string> argvStore;
  std::vector<char*> argv;

  void setArgv(const std::vector<std::string>& args);
};

struct JobScriptRecord {
  uint32_t jobId = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};

}  // namespace plugstack
