// slurmd's side of the mpi interface (mpi_g_daemon_init, mpi_fini): every
// mpi_*.so of PluginDir (and plugstack's own) loaded at start, each
// plugin's init() run there; one that does not load is passed over with
// Slurm's error, and slurmd does not start when none loads. Each loaded
// plugin is asked for its mpi.conf options (conf_options), given them
// (conf_set) and asked for the values it passes on (conf_get). At stop,
// before SPANK's slurmd_exit, every plugin's fini().
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mpi/mpi_plugin.h"

namespace plugstack {

class MpiDaemon {
 public:
  MpiDaemon(std::vector<std::string> pluginDirs, const SlurmVersion& version)
      : pluginDirs_(std::move(pluginDirs)), version_(version) {}
  // False: slurmd ends ("Failed to initialize MPI plugins.").
  bool init();
  void fini();

 private:
  std::vector<std::string> pluginDirs_;
  SlurmVersion version_;
  std::vector<std::unique_ptr<MpiPlugin>> plugins_;
};

}  // namespace plugstack
