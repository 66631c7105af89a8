#include "cli_filter/c_filter.h"

namespace plugstack {

const std::vector<const char*> kCliFilterHooks = {"cli_filter_p_setup_defaults", "cli_filter_p_pre_submit",
                                                  "cli_filter_p_post_submit"};
const std::vector<const char*> kCliFilterOldHooks = {"setup_defaults", "pre_submit", "post_submit"};

CFilter::CFilter(PluginContext context) : context_(std::move(context)) {
  setupDefaults_ = reinterpret_cast<int (*)(slurm_opt*, bool)>(context_.hooks.at(0));
  preSubmit_ = reinterpret_cast<int (*)(slurm_opt*, int)>(context_.hooks.at(1));
  postSubmit_ = reinterpret_cast<void (*)(int, uint32_t, uint32_t)>(context_.hooks.at(2));
}

int CFilter::setupDefaults(slurm_opt* opt, bool early) { return setupDefaults_(opt, early); }
int CFilter::preSubmit(slurm_opt* opt, int offset) { return preSubmit_(opt, offset); }
void CFilter::postSubmit(int offset, uint32_t jobid, uint32_t stepid) { postSubmit_(offset, jobid, stepid); }
void CFilter::unload() { closePluginFile(context_.file); }

}  // namespace plugstack
