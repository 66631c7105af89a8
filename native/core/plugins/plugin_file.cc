#include "plugins/plugin_file.h"

#include <dlfcn.h>
#include <sys/stat.h>

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

// _verify_syms: SLURM_SUCCESS or the error, logging what Slurm logs.
int verifySymbols(void* handle, const std::string& path, const char* caller,
                  const SlurmVersion& version, std::string* detail) {
  dlerror();
  const char* name = static_cast<const char*>(dlsym(handle, "plugin_name"));
  if (!name) {
    *detail = lastDlerror();
    slurmLog(LogLevel::Verbose, std::string(caller) + ": " + path + " is not a Slurm plugin: " + *detail);
    return ESLURM_PLUGIN_MISSING_NAME;
  }
  const char* type = static_cast<const char*>(dlsym(handle, "plugin_type"));
  if (!type) {
    *detail = lastDlerror();
    slurmLog(LogLevel::Verbose, std::string(caller) + ": " + path + " is not a Slurm plugin: " + *detail);
    return ESLURM_PLUGIN_MISSING_NAME;
  }
  const uint32_t* found = static_cast<const uint32_t*>(dlsym(handle, "plugin_version"));
  if (!found) {
    *detail = lastDlerror();
    slurmLog(LogLevel::Verbose,
             std::string(caller) + ": plugin_version symbol not found in " + path + ": " + *detail);
    return ESLURM_PLUGIN_MISSING_NAME;
  }
  uint32_t mask = std::strcmp(type, "spank") == 0 ? kSpankMask : kFullMask;
  if ((*found & mask) != (version.number() & mask)) {
    *detail = formatVersionNumber(*found);
    slurmLog(LogLevel::Info,
             std::string(caller) + ": Incompatible Slurm plugin " + path + " version (" + *detail + ")");
    return ESLURM_PLUGIN_BAD_VERSION;
  }
  return SLURM_SUCCESS;
}

}  // namespace

bool peekPluginFile(const std::string& path, int ref, const SlurmVersion& version, std::string* type) {
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
  int rc = verifySymbols(handle, path, "plugin_peek", version, &detail);
  if (rc == SLURM_SUCCESS && type) *type = static_cast<const char*>(dlsym(handle, "plugin_type"));
  closeHandle(handle, ref);
  return rc == SLURM_SUCCESS;
}

LoadResult openPluginFile(PluginFile& file, const SlurmVersion& version) {
  LoadResult result;
  const char* caller = "plugin_load_from_file";
  void* handle;
  {
    HookScope scope(file.ref, "dlopen", {{"path", file.path}});
    dlerror();
    handle = dlopen(file.path.c_str(), RTLD_LAZY);
  }
  if (!handle) {
    result.err = ESLURM_PLUGIN_DLOPEN_FAILED;
    result.detail = lastDlerror();
    slurmLog(LogLevel::Error, std::string(caller) + ": dlopen(" + file.path + "): " + result.detail);
    return result;
  }
  result.err = verifySymbols(handle, file.path, caller, version, &result.detail);
  if (result.err != SLURM_SUCCESS) {
    closeHandle(handle, file.ref);
    return result;
  }
  if (auto init = reinterpret_cast<int (*)(void)>(dlsym(handle, "init"))) {
    int rc;
    {
      HookScope scope(file.ref, "init()");
      rc = init();
      scope.setResult(rc);
    }
    if (rc != SLURM_SUCCESS) {
      // Slurm closes the plugin without calling fini().
      closeHandle(handle, file.ref);
      result.err = ESLURM_PLUGIN_INIT_FAILED;
      result.detail = "init() returned " + std::to_string(rc);
      return result;
    }
  }
  file.handle = handle;
  file.name = static_cast<const char*>(dlsym(handle, "plugin_name"));
  file.type = static_cast<const char*>(dlsym(handle, "plugin_type"));
  file.version = *static_cast<const uint32_t*>(dlsym(handle, "plugin_version"));
  return result;
}

void closePluginFile(PluginFile& file) {
  if (!file.handle) return;
  if (auto fini = reinterpret_cast<void (*)(void)>(dlsym(file.handle, "fini"))) {
    HookScope scope(file.ref, "fini()");
    fini();
  }
  closeHandle(file.handle, file.ref);
  file.handle = nullptr;
}

std::vector<std::string> missingSymbols(void* handle, const std::vector<const char*>& names) {
  std::vector<std::string> missing;
  for (const char* n : names)
    if (!dlsym(handle, n)) missing.emplace_back(n);
  return missing;
}

std::string findPluginFile(const std::string& type, const std::vector<std::string>& dirs) {
  std::string so = type + ".so";
  for (char& c : so)
    if (c == '/') c = '_';
  for (const auto& dir : dirs) {
    std::string candidate = dir + "/" + so;
    struct stat st;
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return candidate;
  }
  return {};
}

}  // namespace plugstack
