// srun's side of the mpi interface (mpi_g_client_init, _prelaunch, _fini):
// which plugin srun loads and when, SLURM_MPI_TYPE in srun's environment,
// client_prelaunch on a one-slot array whose entries go to every task, and
// client_fini once the step's output has ended.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mpi/mpi_plugin.h"
#include "mpi/step_shape.h"

namespace plugstack {

struct MpiClientSettings {
  // slurm.conf's MpiDefault as the release reads it (22.05: "none" when
  // unset, "openmpi" becomes "none"; 24.11: unset when it names none).
  std::optional<std::string> mpiDefault;
  std::vector<std::string> pluginDirs;
  std::string file;  // where MpiDefault was given, for problems
  int line = 0;
};

class MpiClient {
 public:
  MpiClient(MpiClientSettings settings, const SlurmVersion& version);
  ~MpiClient();

  enum class Init { Ok, Invalid, Fatal };
  // mpi_g_client_init with srun's --mpi (or SLURM_MPI_TYPE) when given.
  // Invalid: srun prints "Invalid MPI type" and exits; Fatal: a plugin
  // without its hooks ended srun.
  Init init(const std::optional<std::string>& requested);
  // The type asked for, as srun names it in its error ("bogus").
  const std::string& requested() const { return requested_; }
  // The plugin's type, or nothing when no plugin is loaded (24.11's none).
  std::optional<std::string> type() const;
  uint32_t pluginId() const;

  // client_prelaunch: false when it returned NULL (or broke its array);
  // *env gets what env_array_merge would take from its array.
  bool prelaunch(const StepShape& step, std::vector<std::string>* env);
  // client_fini: its result (0 without a plugin).
  int fini();

 private:
  MpiClientSettings settings_;
  SlurmVersion version_;
  std::string requested_;
  std::unique_ptr<MpiPlugin> plugin_;
  void* state_ = nullptr;
  bool prelaunched_ = false;
};

}  // namespace plugstack
