#include "spank/plugin_loader.h"

#include <dlfcn.h>

#include <cstring>

#include "common/hook_scope.h"
#include "common/slurm_log.h"

namespace plugstack {

namespace {

// Slurm compares major.minor only for type "spank"; every other type must
// match all 24 bits.
constexpr uint32_t kSpankMask = 0xffff00;
constexpr uint32_t kFullMask = 0xffffff;

std::string lastDlerror() {
  const char* e = dlerror();
  return e ? e : "";
}

void closeHandle(void* handle, int ref) {
  // dlclose runs the plugin's destructors: plugin code.
  HookScope scope(ref, "dlclose");
  dlclose(handle);
}

}  // namespace

int PluginLoader::verifySymbols(void* handle, const std::string& path, const char* caller,
                                int ref, std::string* detail) const {
  (void)ref;
  dlerror();
  const char* name = static_cast<const char*>(dlsym(handle, "plugin_name"));
  if (!name) {
    *detail = lastDlerror();
    slurmLog(LogLevel::Verbose,
             std::string(caller) + ": " + path + " is not a Slurm plugin: " + *detail);
    return ESLURM_PLUGIN_MISSING_NAME;
  }
  const char* type = static_cast<const char*>(dlsym(handle, "plugin_type"));
  if (!type) {
    *detail = lastDlerror();
    slurmLog(LogLevel::Verbose,
             std::string(caller) + ": " + path + " is not a Slurm plugin: " + *detail);
    return ESLURM_PLUGIN_MISSING_NAME;
  }
  const uint32_t* version = static_cast<const uint32_t*>(dlsym(handle, "plugin_version"));
  if (!version) {
    *detail = lastDlerror();
    slurmLog(LogLevel::Verbose, std::string(caller) + ": plugin_version symbol not found in " +
                                    path + ": " + *detail);
    return ESLURM_PLUGIN_MISSING_NAME;
  }
  uint32_t mask = std::strcmp(type, "spank") == 0 ? kSpankMask : kFullMask;
  if ((*version & mask) != (version_.number() & mask)) {
    *detail = formatVersionNumber(*version);
    slurmLog(LogLevel::Info, std::string(caller) + ": Incompatible Slurm plugin " + path +
                                 " version (" + *detail + ")");
    return ESLURM_PLUGIN_BAD_VERSION;
  }
  return SLURM_SUCCESS;
}

bool PluginLoader::peek(const std::string& path, int ref) const {
  void* handle;
  {
    HookScope scope(ref, "dlopen", {{"path", path}, {"peek", true}});
    dlerror();
    handle = dlopen(path.c_str(), RTLD_LAZY);
  }
  if (!handle) {
    slurmLog(LogLevel::Debug3, "plugin_peek: dlopen(" + path + "): " + lastDlerror());
    return false;
  }
  std::string detail;
  int rc = verifySymbols(handle, path, "plugin_peek", ref, &detail);
  closeHandle(handle, ref);
  return rc == SLURM_SUCCESS;
}

LoadResult PluginLoader::load(Plugin& plugin, bool lookUpStaticOptions) const {
  LoadResult result;
  const std::string& path = plugin.path;
  const char* caller = "plugin_load_from_file";
  void* handle;
  {
    HookScope scope(plugin.ref, "dlopen", {{"path", path}});
    dlerror();
    handle = dlopen(path.c_str(), RTLD_LAZY);
  }
  if (!handle) {
    result.err = ESLURM_PLUGIN_DLOPEN_FAILED;
    result.detail = lastDlerror();
    slurmLog(LogLevel::Error, std::string(caller) + ": dlopen(" + path + "): " + result.detail);
    return result;
  }

  result.err = verifySymbols(handle, path, caller, plugin.ref, &result.detail);
  if (result.err != SLURM_SUCCESS) {
    closeHandle(handle, plugin.ref);
    return result;
  }

  if (auto init = reinterpret_cast<int (*)(void)>(dlsym(handle, "init"))) {
    int rc;
    {
      HookScope scope(plugin.ref, "init()");
      rc = init();
      scope.setResult(rc);
    }
    if (rc != SLURM_SUCCESS) {
      // Slurm closes the plugin without calling fini().
      closeHandle(handle, plugin.ref);
      result.err = ESLURM_PLUGIN_INIT_FAILED;
      result.detail = "init() returned " + std::to_string(rc);
      return result;
    }
  }

  plugin.handle = handle;
  plugin.name = static_cast<const char*>(dlsym(handle, "plugin_name"));
  plugin.type = static_cast<const char*>(dlsym(handle, "plugin_type"));
  plugin.version = *static_cast<const uint32_t*>(dlsym(handle, "plugin_version"));
  for (const auto& info : allPhases())
    plugin.callbacks[static_cast<size_t>(info.phase)] =
        reinterpret_cast<spank_f*>(dlsym(handle, info.symbol));
  if (lookUpStaticOptions)
    plugin.staticOptions = static_cast<struct spank_option*>(dlsym(handle, "spank_options"));
  return result;
}

void PluginLoader::unload(Plugin& plugin) {
  if (!plugin.handle) return;
  if (auto fini = reinterpret_cast<void (*)(void)>(dlsym(plugin.handle, "fini"))) {
    HookScope scope(plugin.ref, "fini()");
    fini();
  }
  closeHandle(plugin.handle, plugin.ref);
  plugin.handle = nullptr;
}

}  // namespace plugstack
