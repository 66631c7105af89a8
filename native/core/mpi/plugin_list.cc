#include "mpi/plugin_list.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

#include "common/slurm_log.h"
#include "mpi/mpi_plugin.h"
#include "plugins/plugin_file.h"

namespace plugstack {

namespace {

bool endsWith(const std::string& s, const char* tail) {
  size_t n = std::char_traits<char>::length(tail);
  return s.size() >= n && s.compare(s.size() - n, n, tail) == 0;
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (!d) {
    slurmLog(LogLevel::Error, "cannot open plugin directory " + dir);
    return out;
  }
  while (dirent* e = readdir(d)) out.emplace_back(e->d_name);
  closedir(d);
  return out;
}

// plugstack's own plugins that serve this release (22.05's none does not
// load under 24.11), by type; with peek, only those that load.
std::vector<std::string> builtinTypes(const SlurmVersion& version, bool peek) {
  std::vector<std::string> out;
  const std::string dir = builtinMpiDir(version);
  setMpiEmulatedVersion(version);
  for (const auto& name : entries(dir)) {
    if (name.compare(0, 4, "mpi_") != 0 || !endsWith(name, ".so")) continue;
    std::string type = name.substr(4, name.size() - 7);
    if (type == "none" && !mpiRelease(version).noneIsPlugin) continue;
    if (!peek || peekPluginFile(dir + "/" + name, kMpiRefBase, version)) out.push_back(type);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<std::string> mpiTypesInDirs(const std::vector<std::string>& dirs, const SlurmVersion& version) {
  std::vector<std::string> out;
  for (const auto& dir : dirs)
    for (const auto& name : entries(dir)) {
      if (name.compare(0, 4, "mpi_") != 0 || !endsWith(name, ".so")) continue;
      std::string type = name.substr(4, name.size() - 7);
      if (std::find(out.begin(), out.end(), type) == out.end()) out.push_back(type);
    }
  // By name, as slurmd lists PluginDir: loading them tells the rest.
  for (const auto& type : builtinTypes(version, false))
    if (std::find(out.begin(), out.end(), type) == out.end()) out.push_back(type);
  return out;
}

std::string mpiListText(const std::vector<std::string>& dirs, const SlurmVersion& version) {
  std::vector<std::string> listed;
  std::string pmix;
  auto add = [&](const std::string& name) {
    if (name.compare(0, 5, "pmix_") == 0) {
      pmix += (pmix.empty() ? "" : ",") + name;
      return;
    }
    if (std::find(listed.begin(), listed.end(), name) == listed.end()) listed.push_back(name);
  };
  setMpiEmulatedVersion(version);
  for (const auto& dir : dirs)
    for (const auto& name : entries(dir)) {
      if (name[0] == '.' || !endsWith(name, ".so")) continue;
      std::string stem = name.compare(0, 3, "lib") == 0 ? name.substr(3) : name;
      if (stem.compare(0, 3, "mpi") != 0) continue;
      std::string path = dir + "/" + name;
      struct stat st;
      if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      std::string type;
      if (!peekPluginFile(path, kMpiRefBase, version, &type) || type.compare(0, 3, "mpi") != 0) continue;
      // The name printed is the file's, after "/mpi_" and up to ".so".
      size_t at = path.find("/mpi_");
      add(at == std::string::npos ? type : path.substr(at + 5, path.size() - at - 8));
    }
  for (const auto& type : builtinTypes(version, true)) add(type);
  std::string out = "MPI plugin types are...\n";
  for (const auto& name : listed) out += "\t" + name + "\n";
  if (!pmix.empty()) out += "specific pmix plugin versions available: " + pmix + "\n";
  return out;
}

}  // namespace plugstack
