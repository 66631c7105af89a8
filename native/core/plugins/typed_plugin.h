// The events of loading a plugin slurm.conf names by type (MpiDefault's
// mpi/NAME, JobContainerType's job_container/NAME): the line it stands for,
// and the file it loaded, which the record and check read.
#pragma once

#include <string>

#include "plugins/plugin_file.h"

namespace plugstack {

// The plugin's line: slurm.conf's key as file:line, the type as its path.
void emitTypedPluginLine(int ref, const std::string& file, int line, const std::string& type, const char* kind);

// The file loaded and kept, with its plugin_name, plugin_type and version.
void emitTypedPluginLoaded(int ref, const PluginFile& file);

}  // namespace plugstack
