#include "mpi/mpi_stepd.h"

#include "common/slurm_log.h"
#include "config/sp_table.h"
#include "mpi/structs.h"
#include "step/step_spec.h"

extern "C" void env_array_free(char** env);

namespace plugstack {

bool readMpiStepdSettings(const json::Value& mpi, const StepSpec& spec, MpiStepdSettings* out, std::string* error) {
  if (mpi.isNull()) return true;
  if (!mpi.isObject()) {
    *error = "step.mpi must be an object";
    return false;
  }
  out->present = true;
  if (mpi["type"].isString()) out->type = mpi["type"].asString();
  out->pmiTrace = mpi["pmiTrace"].isBool() && mpi["pmiTrace"].asBool();
  if (mpi["conf"].isString()) out->conf = mpi["conf"].asString();
  out->slurmdFailed = mpi["slurmdFailed"].isBool() && mpi["slurmdFailed"].asBool();
  StepShape& s = out->step;
  s.jobId = spec.record.jobId;
  s.stepId = spec.record.stepId;
  s.ntasks = spec.record.ntasks;
  s.nodeList = mpi["nodeList"].asString();
  if (mpi["taskDist"].isNumber()) s.taskDist = static_cast<uint32_t>(mpi["taskDist"].asNumber());
  if (mpi["planeSize"].isNumber()) s.planeSize = static_cast<uint16_t>(mpi["planeSize"].asNumber());
  for (const auto& node : mpi["layout"].asArray()) {
    std::vector<uint32_t> tids;
    for (const auto& t : node.asArray()) tids.push_back(static_cast<uint32_t>(t.asNumber()));
    s.tids.push_back(std::move(tids));
  }
  if (s.tids.size() != spec.record.nnodes || spec.record.nodeId >= s.tids.size() ||
      s.tids[spec.record.nodeId].size() != spec.record.tasks.size()) {
    *error = "step.mpi.layout must give every node's tasks, this node's as step.tasks";
    return false;
  }
  return true;
}

MpiStepd::MpiStepd(MpiStepdSettings settings, const StepSpec& spec, std::vector<std::string> pluginDirs,
                   const SlurmVersion& version)
    : settings_(std::move(settings)), pluginDirs_(std::move(pluginDirs)), version_(version) {
  node_.nodeId = spec.record.nodeId;
  node_.nodeName = spec.nodeName;
  node_.uid = spec.record.uid;
  node_.gid = spec.record.gid;
  node_.userName = spec.userName;
  node_.cwd = spec.cwd;
  node_.argv = spec.record.argvStore;
  node_.cpus = spec.record.cpus;
  node_.cpusPerTask = spec.record.cpusPerTask;
  node_.batch = spec.batch();
  node_.srunPort = spec.srunCommPort.value_or(0);
}

MpiStepd::~MpiStepd() = default;

bool MpiStepd::load() {
  if (!settings_.present || !settings_.type) return true;
  // mpi_conf_recv_stepd: slurmd (which plugstack ran first) stopped on
  // mpi.conf, so there is nothing to read.
  if (settings_.slurmdFailed) {
    slurmLog(LogLevel::Error, "Failed to read MPI conf from slurmd", /*fatal=*/true);
    return false;
  }
  setPmiTrace(settings_.pmiTrace);
  setMpiEmulatedVersion(version_);
  MpiLoadRequest load;
  load.type = *settings_.type;
  load.pluginDirs = pluginDirs_;
  load.version = version_;
  load.file = "slurmd";
  auto plugin = std::make_unique<MpiPlugin>();
  MpiPlugin::Outcome outcome = plugin->load(load);
  if (outcome == MpiPlugin::Outcome::Fatal) {
    slurmLog(LogLevel::Error, "plugin_load_and_link: Plugin loading failed due to missing symbols. Plugin is corrupted.",
             /*fatal=*/true);
    (void)plugin.release();
    return false;
  }
  if (outcome != MpiPlugin::Outcome::Loaded) {
    slurmLog(LogLevel::Error, "MPI: Unable to load any plugin");
    slurmLog(LogLevel::Error, "Failed to read MPI conf from slurmd", /*fatal=*/true);
    return false;
  }
  // mpi.conf's values as slurmd packed them: conf_set right after init,
  // the table freed after the call.
  if (!settings_.conf.empty()) {
    std::string bytes;
    s_p_hashtbl* table = sp::fromHex(settings_.conf, &bytes) ? sp::unpack(bytes) : nullptr;
    if (!table) {
      slurmLog(LogLevel::Error, "s_p_unpack_hashtbl: failed");
      slurmLog(LogLevel::Error, "MPI: Unable to unpack config for " + *settings_.type + ".");
      slurmLog(LogLevel::Error, "Failed to read MPI conf from slurmd", /*fatal=*/true);
      plugin->unload();
      return false;
    }
    plugin->confSet(table);
    sp::destroy(table);
  }
  plugin_ = std::move(plugin);
  return true;
}

bool MpiStepd::processEnv(EnvArray& env) {
  if (!settings_.present) return true;
  const char* type = env.get("SLURM_MPI_TYPE");
  if (!type) {
    slurmLog(LogLevel::Error, "MPI: SLURM_MPI_TYPE environmental variable is not set.");
    return false;
  }
  if (std::string(type) == "none") env.unset("SLURM_MPI_TYPE");
  return true;
}

int MpiStepd::prefork(EnvArray& env) {
  if (!plugin_) return 0;
  const MpiStructs& structs = mpiStructsFor(version_);
  record_ = structs.stepRecord(settings_.step, node_, holder_);
  XEnv array(env);
  bool envOk = true;
  int rc = plugin_->slurmstepdPrefork(record_, structs.envSlot(record_), array, &envOk);
  if (!envOk) {
    // The record must not hand the broken array on.
    *structs.envSlot(record_) = nullptr;
    array.reset(nullptr);
    return -1;
  }
  env = EnvArray(array.entries());
  // The record keeps a copy of its own, as slurmstepd's does.
  XEnv kept(env);
  *structs.envSlot(record_) = kept.array();
  kept.reset(nullptr);
  return rc;
}

void MpiStepd::taskForked(size_t local, pid_t pid) {
  if (record_) mpiStructsFor(version_).setTaskPid(record_, local, pid);
}

int MpiStepd::task(size_t local, EnvArray& env) {
  if (!plugin_) return 0;
  StructHolder holder;
  void* info = mpiStructsFor(version_).taskInfo(settings_.step, node_, local, holder);
  XEnv array(env);
  bool envOk = true;
  bool changed = true;
  int rc = plugin_->slurmstepdTask(info, array, env.entries(), static_cast<int>(local), &envOk, &changed);
  if (!envOk) {
    array.reset(nullptr);
    return -1;
  }
  // The task's environment is taken back only when the hook changed it.
  if (changed) env = EnvArray(array.entries());
  return rc;
}

void MpiStepd::fini() {
  if (plugin_) plugin_->unload();
  plugin_.reset();
}

}  // namespace plugstack
