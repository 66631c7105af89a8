// Loading a plugin file the way Slurm's plugin.c does, for every plugin
// kind (SPANK, cli_filter, mpi, job_container):
//
// dlopen(RTLD_LAZY) without RTLD_GLOBAL (plugins cannot see each other, and
// a function that exists only in some Slurm programs may stay unresolved
// until called), the plugin_name / plugin_type / plugin_version symbols
// with the version mask (major.minor for type "spank", all three numbers
// for every other type), then the generic init(). Every step that runs
// plugin code is announced (dlopen runs constructors, init(), fini(),
// dlclose destructors).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <slurm/slurm_errno.h>

#include "rules/slurm_version.h"

namespace plugstack {

struct PluginFile {
  int ref = -1;  // which plugin events name it by
  std::string path;
  void* handle = nullptr;
  const char* name = nullptr;  // plugin_name
  const char* type = nullptr;  // plugin_type, "major/minor"
  uint32_t version = 0;        // *plugin_version
};

struct LoadResult {
  int err = SLURM_SUCCESS;  // ESLURM_PLUGIN_* on failure
  std::string detail;       // dlerror() text, the version found, init()'s rc
};

// plugin_load_from_file: dlopen, the symbol and version check, init().
// On success file.handle, name, type and version are set.
LoadResult openPluginFile(PluginFile& file, const SlurmVersion& version);

// plugin_peek: does the file load and pass the symbol and version checks?
// It is closed again (constructors and destructors run). type, if given,
// receives its plugin_type.
bool peekPluginFile(const std::string& path, int ref, const SlurmVersion& version,
                    std::string* type = nullptr);

// plugin_unload: fini() if the plugin has one, then dlclose.
void closePluginFile(PluginFile& file);

// dlsym of each name; returns the names that are missing.
std::vector<std::string> missingSymbols(void* handle, const std::vector<const char*>& names);

// plugin_load_and_link's search: "cli_filter/lua" is cli_filter_lua.so,
// looked for in each PluginDir in order (a regular file, or a link to
// one). Empty when no directory has it.
std::string findPluginFile(const std::string& type, const std::vector<std::string>& dirs);

}  // namespace plugstack
