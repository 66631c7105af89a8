#include "mpi/mpi_daemon.h"

#include "common/problem.h"
#include "common/slurm_log.h"
#include "mpi/plugin_list.h"

namespace plugstack {

bool MpiDaemon::init() {
  slurmLog(LogLevel::Debug, "MPI: Loading all types");
  int ref = kMpiRefBase;
  for (const auto& type : mpiTypesInDirs(pluginDirs_, version_)) {
    MpiLoadRequest load;
    load.type = type;
    load.pluginDirs = pluginDirs_;
    load.version = version_;
    load.ref = ref++;
    load.file = "PluginDir";
    load.passedOver = true;
    auto plugin = std::make_unique<MpiPlugin>();
    MpiPlugin::Outcome outcome = plugin->load(load);
    if (outcome == MpiPlugin::Outcome::Fatal) {
      slurmLog(LogLevel::Error,
               "plugin_load_and_link: Plugin loading failed due to missing symbols. Plugin is corrupted.",
               /*fatal=*/true);
      (void)plugin.release();
      return false;
    }
    if (outcome == MpiPlugin::Outcome::Loaded) plugins_.push_back(std::move(plugin));
  }
  if (plugins_.empty()) {
    slurmLog(LogLevel::Error, "MPI: Unable to load any plugin");
    slurmLog(LogLevel::Error, "Failed to initialize MPI plugins.", /*fatal=*/true);
    return false;
  }
  // mpi.conf: each plugin's options, then its settings, then what it passes
  // on to slurmstepd.
  for (auto& p : plugins_) {
    void* options = nullptr;
    int count = 0;
    p->confOptions(&options, &count);
    if (options && count > 0) {
      Diagnostic d;
      d.severity = Severity::Warning;
      d.code = "MPI_CONF_NOT_EMULATED";
      d.message = "mpi/" + p->type() + " declares " + std::to_string(count) +
                  " mpi.conf option(s); plugstack does not read mpi.conf, and hands conf_set no table";
      reportProblem(d, {{"ref", p->ref()}, {"hook", "mpi_p_conf_options"}});
    }
    p->confSet(nullptr);
    p->confGet();
  }
  return true;
}

void MpiDaemon::fini() {
  // _mpi_fini_locked: load order.
  for (auto& p : plugins_) p->unload();
  plugins_.clear();
}

}  // namespace plugstack
