#include "spank/plugin_loader.h"

#include <dlfcn.h>

namespace plugstack {

LoadResult PluginLoader::load(Plugin& plugin, bool lookUpStaticOptions) const {
  PluginFile file;
  file.ref = plugin.ref;
  file.path = plugin.path;
  LoadResult result = openPluginFile(file, version_);
  if (result.err != SLURM_SUCCESS) return result;
  plugin.handle = file.handle;
  plugin.name = file.name;
  plugin.type = file.type;
  plugin.version = file.version;
  for (const auto& info : allPhases())
    plugin.callbacks[static_cast<size_t>(info.phase)] = reinterpret_cast<spank_f*>(dlsym(file.handle, info.symbol));
  if (lookUpStaticOptions)
    plugin.staticOptions = static_cast<struct spank_option*>(dlsym(file.handle, "spank_options"));
  return result;
}

void PluginLoader::unload(Plugin& plugin) {
  PluginFile file;
  file.ref = plugin.ref;
  file.path = plugin.path;
  file.handle = plugin.handle;
  closePluginFile(file);
  plugin.handle = nullptr;
}

}  // namespace plugstack
