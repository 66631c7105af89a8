// slurmstepd's side of the mpi interface: the plugin slurmd names, loaded
// before anything else of the step (mpi_conf_recv_stepd); SLURM_MPI_TYPE
// checked in the step's environment (mpi_process_env); slurmstepd_prefork
// after SPANK's init_post_opt; slurmstepd_task in each task's process; the
// plugin's fini() when slurmstepd ends (mpi_fini).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "mpi/mpi_plugin.h"
#include "mpi/step_shape.h"
#include "spank/env_array.h"

namespace plugstack {

struct StepSpec;

struct MpiStepdSettings {
  bool present = false;             // the request names an mpi setup
  std::optional<std::string> type;  // none: no plugin (24.11's none)
  StepShape step;                   // the whole step's layout
  bool pmiTrace = false;            // plugstack's pmi2 keeps every line
  std::string conf;                 // what slurmd packed from conf_get (hex; empty: none)
  bool slurmdFailed = false;        // slurmd stopped on mpi.conf: nothing to read
};

// plugstack's pmi2 asks whether to keep each rank's lines (pmi_report_api.cc).
void setPmiTrace(bool on);

// Reads request.step.mpi (absent: a step without mpi, as a batch step).
bool readMpiStepdSettings(const json::Value& mpi, const StepSpec& spec, MpiStepdSettings* out, std::string* error);

class MpiStepd {
 public:
  MpiStepd(MpiStepdSettings settings, const StepSpec& spec, std::vector<std::string> pluginDirs,
           const SlurmVersion& version);
  ~MpiStepd();

  bool active() const { return settings_.present; }
  // Loads the plugin: false ends slurmstepd ("Failed to read MPI conf from
  // slurmd", fatal).
  bool load();
  // mpi_process_env: false when SLURM_MPI_TYPE is missing (the launch
  // fails, SLURM_MPI_PLUGIN_NAME_INVALID); "none" is taken out.
  bool processEnv(EnvArray& env);
  // slurmstepd_prefork on the step's environment; its result (SLURM_ERROR
  // too when the plugin broke the array).
  int prefork(EnvArray& env);
  // The record prefork saw learns each task's pid.
  void taskForked(size_t local, pid_t pid);
  // slurmstepd_task on one task's environment (in the task's process).
  int task(size_t local, EnvArray& env);
  // mpi_fini: fini(), dlclose.
  void fini();

 private:
  MpiStepdSettings settings_;
  StepdShape node_;
  std::vector<std::string> pluginDirs_;
  SlurmVersion version_;
  std::unique_ptr<MpiPlugin> plugin_;
  StructHolder holder_;
  void* record_ = nullptr;
};

}  // namespace plugstack
