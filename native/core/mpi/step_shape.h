// A step as the mpi hooks see it, independent of the release's struct
// layouts: srun's layout (client_prelaunch), one node's slurmstepd record
// (slurmstepd_prefork) and one task (slurmstepd_task). structs_2205.cc and
// structs_2411.cc build each release's structs from it, with
// plugstack/mpi.h compiled for that release: the header is the layout.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace plugstack {

struct StepShape {
  uint32_t jobId = 0;
  uint32_t stepId = 0;
  uint32_t stepHetComp = 0xfffffffe;  // NO_VAL: not a het step
  std::string nodeList;               // "node[0-1]"
  std::vector<std::vector<uint32_t>> tids;  // per node, the global task ids
  uint32_t ntasks = 0;
  uint32_t taskDist = 2;  // SLURM_DIST_BLOCK
  uint16_t planeSize = 0;
  uint16_t protocolVersion = 0;
};

// One node of the step, as slurmstepd knows it.
struct StepdShape {
  uint32_t nodeId = 0;
  std::string nodeName;
  uid_t uid = 0;
  gid_t gid = 0;
  std::string userName;
  std::string cwd;
  std::vector<std::string> argv;
  uint16_t cpus = 1;
  uint32_t cpusPerTask = 1;
  bool batch = false;
  uint32_t srunPort = 0;  // mpi_task_info_t.client: srun's address
};

// Memory a struct built for a hook owns; freed with the holder.
class StructHolder {
 public:
  template <class T>
  T* make(size_t count = 1) {
    auto* p = static_cast<T*>(calloc(count ? count : 1, sizeof(T)));
    blocks_.emplace_back(p, &free);
    return p;
  }
  char* text(const std::string& s);

 private:
  std::vector<std::unique_ptr<void, void (*)(void*)>> blocks_;
};

// What a release builds. The pointers stay valid while the holder lives.
struct MpiStructs {
  // mpi_plugin_client_info_t (22.05) / mpi_step_info_t (24.11).
  void* (*clientInfo)(const StepShape& step, StructHolder& h);
  // stepd_step_rec_t, with env as its environment; envSlot() gives the
  // address of its env field (the hook's char ***env is &step->env).
  void* (*stepRecord)(const StepShape& step, const StepdShape& node, StructHolder& h);
  char*** (*envSlot)(void* stepRecord);
  // After a task's fork: its pid in the record.
  void (*setTaskPid)(void* stepRecord, size_t localTask, pid_t pid);
  // mpi_plugin_task_info_t (22.05) / mpi_task_info_t (24.11).
  void* (*taskInfo)(const StepShape& step, const StepdShape& node, size_t localTask, StructHolder& h);
};

const MpiStructs& mpiStructs2205();
const MpiStructs& mpiStructs2411();

}  // namespace plugstack
