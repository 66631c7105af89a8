// A cli_filter plugin loaded from a shared object, as Slurm loads one.
#pragma once

#include "cli_filter/filter.h"
#include "plugins/plugin_context.h"

namespace plugstack {

class CFilter : public CliFilter {
 public:
  explicit CFilter(PluginContext context);
  int setupDefaults(slurm_opt* opt, bool early) override;
  int preSubmit(slurm_opt* opt, int offset) override;
  void postSubmit(int offset, uint32_t jobid, uint32_t stepid) override;
  void unload() override;

 private:
  PluginContext context_;
  int (*setupDefaults_)(slurm_opt*, bool);
  int (*preSubmit_)(slurm_opt*, int);
  void (*postSubmit_)(int, uint32_t, uint32_t);
};

}  // namespace plugstack
