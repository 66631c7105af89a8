#include "plugins/load_failure.h"

#include <slurm/slurm_errno.h>

namespace plugstack {

namespace {

constexpr LoadFailureText kLoadFailures[] = {
    {ESLURM_PLUGIN_DLOPEN_FAILED, "PLUGIN_DLOPEN_FAILED", "dlopen failed"},
    {ESLURM_PLUGIN_MISSING_NAME, "PLUGIN_MISSING_SYMBOL",
     "not a Slurm plugin: plugin_name, plugin_type or plugin_version is missing"},
    {ESLURM_PLUGIN_BAD_VERSION, "PLUGIN_VERSION_MISMATCH", "built for another Slurm version"},
    {ESLURM_PLUGIN_INIT_FAILED, "PLUGIN_INIT_FAILED", "its init() returned non-zero"},
    {ESLURM_PLUGIN_NOTFOUND, "PLUGIN_NOT_FOUND", "no plugin of that type in any PluginDir"},
};

}  // namespace

const LoadFailureText& loadFailure(int err) {
  for (const auto& f : kLoadFailures)
    if (f.err == err) return f;
  return kLoadFailures[0];
}

}  // namespace plugstack
