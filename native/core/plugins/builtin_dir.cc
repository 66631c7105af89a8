#include "plugins/builtin_dir.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

namespace plugstack {

std::string builtinPluginDir(const std::string& kind) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return {};
  std::string dir(exe, static_cast<size_t>(n));
  dir = dir.substr(0, dir.rfind('/'));
  struct stat st;
  for (const std::string& d : {dir + "/" + kind, dir + "/bin/" + kind})
    if (stat(d.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return d;
  return dir + "/" + kind;
}

std::string sitePluginFile(const std::vector<std::string>& pluginDirs, const std::string& kind, const std::string& type) {
  for (const auto& d : pluginDirs) {
    std::string site = d + "/" + kind + "_" + type + ".so";
    struct stat st;
    if (stat(site.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return site;
  }
  return {};
}

}  // namespace plugstack
