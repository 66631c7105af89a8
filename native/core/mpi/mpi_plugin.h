// One mpi plugin, loaded as Slurm loads it (plugin_context_create for
// "mpi/<type>": mpi_<type>.so along PluginDir, the full version match,
// init(), every hook symbol and plugin_id required), and its hooks called
// with the events every call gets: enter/leave around the plugin code, then
// an "mpi" event with the result and what the hook changed in the
// environment it was handed.
//
// Where a type's file comes from:
//   pmi2         plugstack's own plugin, always (Slurm's needs srun's and
//                slurmstepd's internals; a PluginDir that holds it is said
//                so and passed over);
//   none (22.05) PluginDir, then plugstack's own stubs;
//   pmix*, cray_shasta  not provided (a clear error);
//   anything else PluginDir.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/json.h"
#include "mpi/mpi_release.h"
#include "mpi/x_env.h"
#include "plugins/plugin_context.h"

namespace plugstack {

// Refs of mpi plugins in events, apart from SPANK's and cli_filter's.
constexpr int kMpiRefBase = 2 << 20;

// The release plugstack's own plugins (and the host) claim while a load
// runs: they are built for each release line, and match its micro version.
void setMpiEmulatedVersion(const SlurmVersion& version);

// Where plugstack's own mpi plugins for this release are.
std::string builtinMpiDir(const SlurmVersion& version);

struct MpiLoadRequest {
  std::string type;                     // "pmi2", without "mpi/"
  std::vector<std::string> pluginDirs;  // slurm.conf's PluginDir
  SlurmVersion version;
  int ref = kMpiRefBase;
  // For the "line" event: where the type was chosen (slurm.conf's
  // MpiDefault line, or srun's --mpi / SLURM_MPI_TYPE).
  std::string file;
  int line = 0;
  // slurmd passes a plugin that does not load over: a warning, not an error.
  bool passedOver = false;
};

class MpiPlugin {
 public:
  enum class Outcome { Loaded, Failed, Fatal };
  // Loads it; Slurm's error lines and a problem on failure. Fatal: a hook
  // symbol is missing (Slurm ends the process).
  Outcome load(const MpiLoadRequest& request);
  ~MpiPlugin();

  int ref() const { return ref_; }
  const std::string& type() const { return type_; }
  uint32_t pluginId() const { return pluginId_; }
  bool loaded() const { return context_.file.handle != nullptr; }

  // The hooks. env is an array of Slurm's making; after the call it is
  // checked, and the "mpi" event says what changed. false from an env
  // call: the plugin broke the array (reported; do not read it).
  void* clientPrelaunch(void* info, XEnv& env, bool* envOk);
  int clientFini(void* state);
  int slurmstepdPrefork(void* stepRecord, char*** slot, XEnv& env, bool* envOk);
  // before: the entries env was made from (the task's environment, which
  // the call leaves alone); *changed: whether the hook changed any.
  int slurmstepdTask(void* taskInfo, XEnv& env, const std::vector<std::string>& before, int task, bool* envOk,
                     bool* changed);
  void confOptions(void** options, int* count);
  void confSet(void* table);
  void* confGet();

  // plugin_context_destroy: fini(), dlclose.
  void unload();

 private:
  std::string findFile(const MpiLoadRequest& request, std::vector<std::string>* dirs);
  Outcome fail(const MpiLoadRequest& request, const char* code, const std::string& message,
               const std::string& path);
  bool afterEnvCall(const char* hook, int task, const std::vector<std::string>& before, const XEnv& env,
                    json::Object result, bool* changed = nullptr);

  PluginContext context_;
  int ref_ = kMpiRefBase;
  std::string type_;
  uint32_t pluginId_ = 0;
};

}  // namespace plugstack
