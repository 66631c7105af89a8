// Loading a SPANK plugin: the generic plugin loading of every kind
// (plugins/plugin_file.h), then the lookup of the twelve callbacks and, outside
// the allocator context, of a static option table.
#pragma once

#include <string>

#include "plugins/plugin_file.h"
#include "rules/slurm_version.h"
#include "spank/plugin.h"

namespace plugstack {

class PluginLoader {
 public:
  explicit PluginLoader(const SlurmVersion& version) : version_(version) {}

  // Slurm's plugin_peek, used to search PluginDir for relative paths.
  bool peek(const std::string& path, int ref) const { return peekPluginFile(path, ref, version_); }

  // Slurm's plugin_load_from_file followed by the callback lookup. Fills
  // plugin.handle, name, type, version, callbacks and, outside the
  // allocator context, staticOptions.
  LoadResult load(Plugin& plugin, bool lookUpStaticOptions) const;

  // fini() if the plugin has one, then dlclose.
  static void unload(Plugin& plugin);

 private:
  SlurmVersion version_;
};

}  // namespace plugstack
