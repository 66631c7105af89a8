// One loaded SPANK plugin.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <slurm/spank.h>

#include "rules/phase.h"

namespace plugstack {

struct Plugin {
  // Position of the plugin's line among all plugin lines of the config
  // (includes expanded), whether it loaded or not. Events name plugins by it.
  int ref = -1;
  std::string file;  // config file and line that named it
  int line = 0;
  bool required = false;
  std::string configPath;  // the path as written in the config
  std::string path;        // what was handed to dlopen (Slurm's fq_path)

  void* handle = nullptr;
  const char* name = nullptr;  // plugin_name: option env names, option keys
  const char* type = nullptr;  // plugin_type
  uint32_t version = 0;        // *plugin_version
  std::array<spank_f*, kPhaseCount> callbacks{};
  struct spank_option* staticOptions = nullptr;  // spank_options, if looked up

  // The plugstack.conf arguments. Slurm hands a NULL argv when there are
  // none; argvPointers() does the same.
  std::vector<std::string> args;

  spank_f* callback(Phase p) const { return callbacks[static_cast<size_t>(p)]; }
  bool has(Phase p) const { return callback(p) != nullptr; }
  int callbackCount() const;
  // Slurm's log messages about callback results name the file's basename.
  std::string basename() const;

  // Slurm keeps one argv array per plugin for the plugin's lifetime.
  char** argv();

 private:
  std::vector<char*> argvStorage_;
};

}  // namespace plugstack
