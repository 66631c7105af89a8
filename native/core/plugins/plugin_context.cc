#include "plugins/plugin_context.h"

#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>

#include "common/slurm_log.h"
#include "rules/slurm_errors.h"

namespace plugstack {

namespace {

bool regularFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

void resolveHooks(PluginContext* ctx, const std::vector<const char*>& hooks) {
  ctx->hooks.clear();
  for (const char* h : hooks) ctx->hooks.push_back(dlsym(ctx->file.handle, h));
}

// plugrack: every regular <major>*.so (or lib<major>*.so) of every
// directory, peeked; the one whose plugin_type is type exactly.
std::string findByType(const std::string& major, const std::string& type,
                       const std::vector<std::string>& dirs, const SlurmVersion& version, int ref) {
  for (const auto& dir : dirs) {
    DIR* d = opendir(dir.c_str());
    if (!d) {
      slurmLog(LogLevel::Error, "cannot open plugin directory " + dir);
      continue;
    }
    std::vector<std::string> names;
    while (dirent* e = readdir(d)) names.emplace_back(e->d_name);
    closedir(d);
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
      std::string stem = name.compare(0, 3, "lib") == 0 ? name.substr(3) : name;
      if (stem.compare(0, major.size(), major) != 0) continue;
      if (name.size() < 3 || name.compare(name.size() - 3, 3, ".so") != 0) continue;
      std::string path = dir + "/" + name;
      std::string found;
      if (!regularFile(path) || !peekPluginFile(path, ref, version, &found)) continue;
      if (found == type) return path;
    }
  }
  return {};
}

}  // namespace

ContextResult createPluginContext(const std::string& major, const std::string& type,
                                  const std::vector<const char*>& hooks,
                                  const std::vector<std::string>& pluginDirs,
                                  const SlurmVersion& version, int ref, PluginContext* out) {
  ContextResult result;
  result.err = ESLURM_PLUGIN_NOTFOUND;
  std::string so = type + ".so";
  std::replace(so.begin(), so.end(), '/', '_');
  for (const auto& dir : pluginDirs) {
    std::string path = dir + "/" + so;
    if (!regularFile(path)) {
      result.err = ESLURM_PLUGIN_NOTFOUND;
      continue;
    }
    out->file = PluginFile{};
    out->file.ref = ref;
    out->file.path = path;
    LoadResult load = openPluginFile(out->file, version);
    result.err = load.err;
    result.detail = load.detail;
    if (load.err != SLURM_SUCCESS) continue;
    result.missing = missingSymbols(out->file.handle, hooks);
    if (!result.missing.empty()) {
      slurmLog(LogLevel::Error,
               "plugin_load_and_link: Plugin loading failed due to missing symbols. Plugin is corrupted.",
               /*fatal=*/true);
      result.outcome = ContextOutcome::MissingSymbols;
      return result;
    }
    resolveHooks(out, hooks);
    result.outcome = ContextOutcome::Loaded;
    return result;
  }
  if (result.err != ESLURM_PLUGIN_NOTFOUND) {
    slurmLog(LogLevel::Error,
             "Couldn't load specified plugin name for " + type + ": " + slurmErrorText(result.err));
    return result;
  }
  slurmLog(LogLevel::Error, "Couldn't find the specified plugin name for " + type + " looking at all files");
  std::string path = findByType(major, type, pluginDirs, version, ref);
  if (path.empty()) {
    slurmLog(LogLevel::Error, "cannot find " + major + " plugin for " + type);
    return result;
  }
  out->file = PluginFile{};
  out->file.ref = ref;
  out->file.path = path;
  LoadResult load = openPluginFile(out->file, version);
  result.err = load.err;
  result.detail = load.detail;
  if (load.err != SLURM_SUCCESS) {
    slurmLog(LogLevel::Error, "cannot find " + major + " plugin for " + type);
    return result;
  }
  result.missing = missingSymbols(out->file.handle, hooks);
  if (!result.missing.empty()) {
    slurmLog(LogLevel::Error, "incomplete " + major + " plugin detected");
    closePluginFile(out->file);
    return result;
  }
  resolveHooks(out, hooks);
  result.outcome = ContextOutcome::Loaded;
  return result;
}

}  // namespace plugstack
