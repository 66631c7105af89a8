// slurmd's side of the mpi interface (mpi_g_daemon_init, mpi_fini): every
// mpi_*.so of PluginDir (and plugstack's own) loaded at start, each
// plugin's init() run there; one that does not load is passed over with
// Slurm's error, and slurmd does not start when none loads. Then mpi.conf
// (beside slurm.conf): each plugin's keys (conf_options) make a table of
// its own, the file is read into every table (keys a plugin does not take
// are passed over), each plugin gets its table (conf_set), and what its
// conf_get returns is packed for its slurmstepds (an "mpiConf" event with
// the bytes: Node hands them to each slurmstepd of a step of that type). A
// line with a value a plugin refuses stops slurmd (fatal), reported with
// its file and line. At stop, before SPANK's slurmd_exit, every plugin's
// fini().
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mpi/mpi_plugin.h"

namespace plugstack {

class MpiDaemon {
 public:
  // mpiConf: the mpi.conf beside slurm.conf (empty: no slurm.conf, none).
  MpiDaemon(std::vector<std::string> pluginDirs, const SlurmVersion& version, std::string mpiConf = {})
      : pluginDirs_(std::move(pluginDirs)), version_(version), mpiConf_(std::move(mpiConf)) {}
  // False: slurmd ends ("Failed to initialize MPI plugins.", or mpi.conf's fatal).
  bool init();
  void fini();

 private:
  bool readConf();

  std::vector<std::string> pluginDirs_;
  SlurmVersion version_;
  std::string mpiConf_;
  std::vector<std::unique_ptr<MpiPlugin>> plugins_;
};

}  // namespace plugstack
