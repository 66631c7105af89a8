#include "mpi/mpi_client.h"

#include <cstdlib>

#include "common/events.h"
#include "common/slurm_log.h"
#include "mpi/structs.h"
#include "protocol/messages.h"

extern "C" void env_array_merge(char*** dest, const char** src);
extern "C" void env_array_free(char** env);

namespace plugstack {

MpiClient::MpiClient(MpiClientSettings settings, const SlurmVersion& version)
    : settings_(std::move(settings)), version_(version) {}

// srun never unloads its mpi plugin (mpi_fini only in Slurm's leak-debug
// builds): no fini(), no dlclose.
MpiClient::~MpiClient() { (void)plugin_.release(); }

MpiClient::Init MpiClient::init(const std::optional<std::string>& requested) {
  const MpiRelease& release = mpiRelease(version_);
  std::string type = requested ? *requested : settings_.mpiDefault.value_or("");
  bool fromConf = !requested;
  slurmLog(LogLevel::Debug, "MPI: Type: " + (type.empty() ? std::string("(null)") : type));
  if (release.noneIsPlugin) {
    if (type.empty()) {
      slurmLog(LogLevel::Error, "MPI: No default type set.");
      requested_ = type;
      return Init::Invalid;
    }
    if (type == "openmpi") type = "none";
  } else if (type.empty() || type == "none" || type == "openmpi") {
    requested_.clear();
    setenv("SLURM_MPI_TYPE", "none", 1);
    emitEvent({{"t", msg::kMpi}, {"ref", -1}, {"hook", "select"}, {"type", "none"}});
    return Init::Ok;
  }
  requested_ = type;
  MpiLoadRequest load;
  load.type = type;
  load.pluginDirs = settings_.pluginDirs;
  load.version = version_;
  load.file = fromConf ? settings_.file : "srun --mpi";
  load.line = fromConf ? settings_.line : 0;
  auto plugin = std::make_unique<MpiPlugin>();
  MpiPlugin::Outcome outcome = plugin->load(load);
  if (outcome == MpiPlugin::Outcome::Fatal) {
    slurmLog(LogLevel::Error, "plugin_load_and_link: Plugin loading failed due to missing symbols. Plugin is corrupted.",
             /*fatal=*/true);
    (void)plugin.release();
    return Init::Fatal;
  }
  if (outcome != MpiPlugin::Outcome::Loaded) {
    slurmLog(LogLevel::Error, "MPI: Unable to load any plugin");
    return Init::Invalid;
  }
  plugin_ = std::move(plugin);
  setenv("SLURM_MPI_TYPE", type.c_str(), 1);
  return Init::Ok;
}

std::optional<std::string> MpiClient::type() const {
  if (!plugin_) return std::nullopt;
  return plugin_->type();
}

uint32_t MpiClient::pluginId() const { return plugin_ ? plugin_->pluginId() : 0xfffffffe; }

bool MpiClient::prelaunch(const StepShape& step, std::vector<std::string>* env) {
  env->clear();
  prelaunched_ = true;
  if (!plugin_) {
    state_ = reinterpret_cast<void*>(0xdeadbeef);
    return true;
  }
  StructHolder holder;
  const MpiStructs& structs = mpiStructsFor(version_);
  void* info = structs.clientInfo(step, holder);
  XEnv array;
  bool envOk = true;
  state_ = plugin_->clientPrelaunch(info, array, &envOk);
  if (!envOk) {
    // Not ours to free any more; what it holds is not merged.
    array.reset(nullptr);
    return false;
  }
  if (!state_) return false;
  // env_array_merge into the launch environment: what it keeps.
  char** merged = nullptr;
  env_array_merge(&merged, const_cast<const char**>(array.array()));
  for (char** p = merged; p && *p; p++) env->emplace_back(*p);
  env_array_free(merged);
  return true;
}

int MpiClient::fini() {
  if (!plugin_ || !prelaunched_) return 0;
  return plugin_->clientFini(state_);
}

}  // namespace plugstack
