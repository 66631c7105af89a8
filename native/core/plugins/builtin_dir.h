// The plugins plugstack provides itself for a kind (mpi/pmi2,
// job_container/tmpfs): built beside plugstack-host in a folder named for
// the kind, and the site's own file of the same name, which they replace.
#pragma once

#include <string>
#include <vector>

namespace plugstack {

// <dir of plugstack-host>/<kind> (or bin/<kind> beside it), the first that exists.
std::string builtinPluginDir(const std::string& kind);

// The site's <kind>_<type>.so along its PluginDir, the first found; empty when none.
std::string sitePluginFile(const std::vector<std::string>& pluginDirs, const std::string& kind, const std::string& type);

}  // namespace plugstack
