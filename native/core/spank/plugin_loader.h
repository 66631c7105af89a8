// Loading a plugin file the way Slurm's plugin.c does.
//
// dlopen(RTLD_LAZY) without RTLD_GLOBAL (plugins cannot see each other, and
// a function that exists only in some Slurm programs may stay unresolved
// until called), the name/type/version symbol check with the version mask,
// the generic init(), then the lookup of the twelve callbacks.
#pragma once

#include <string>

#include "spank/plugin.h"
#include "rules/slurm_version.h"

namespace plugstack {

struct LoadResult {
  int err = SLURM_SUCCESS;  // ESLURM_PLUGIN_* on failure
  std::string detail;       // dlerror() text, or the version found
};

class PluginLoader {
 public:
  explicit PluginLoader(const SlurmVersion& version) : version_(version) {}

  // Slurm's plugin_peek: can this file be loaded and does it pass the symbol
  // and version checks? The file is closed again (constructors and
  // destructors run). Used to search PluginDir for relative paths.
  bool peek(const std::string& path, int ref) const;

  // Slurm's plugin_load_from_file followed by the callback lookup. Fills
  // plugin.handle, name, type, version, callbacks and, outside the
  // allocator context, staticOptions.
  LoadResult load(Plugin& plugin, bool lookUpStaticOptions) const;

  // fini() if the plugin has one, then dlclose.
  static void unload(Plugin& plugin);

 private:
  // Returns SLURM_SUCCESS or the error; logs what Slurm logs.
  int verifySymbols(void* handle, const std::string& path, const char* caller, int ref,
                    std::string* detail) const;

  SlurmVersion version_;
};

}  // namespace plugstack
