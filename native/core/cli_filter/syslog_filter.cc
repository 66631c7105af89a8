// cli_filter/syslog: pre_submit keeps the set options as JSON per
// component; post_submit logs one line with the job, those options and the
// environment. Slurm sends the line to syslog(3) (ident
// "slurm/cli_filter/syslog", LOG_USER, LOG_NOTICE); plugstack reports it as
// a "syslog" event instead of writing into the machine's log.
#include <map>

#include "cli_filter/builtin_filters.h"
#include "cli_filter/json_options.h"
#include "common/events.h"
#include "protocol/messages.h"

namespace plugstack {

namespace {

class SyslogFilter : public CliFilter {
 public:
  explicit SyslogFilter(int ref) : ref_(ref) {}
  int setupDefaults(slurm_opt*, bool) override { return 0; }
  int preSubmit(slurm_opt* opt, int offset) override {
    stored_[offset] = jsonSetOptions(opt->store);
    return 0;
  }
  void postSubmit(int offset, uint32_t jobid, uint32_t stepid) override {
    auto it = stored_.find(offset);
    // Nothing kept for this component: Slurm prints the NULL it retrieves.
    std::string options = it == stored_.end() ? "(null)" : it->second;
    std::string line = "post_submit: { \"jobid\":" + std::to_string(jobid) + ",\"stepid\":" + std::to_string(stepid) +
                       ",\"options\":" + options + ",\"env\":" + jsonEnvironment() + "}";
    emitEvent({{"t", msg::kSyslog}, {"ref", ref_}, {"ident", "slurm/cli_filter/syslog"}, {"priority", "notice"},
               {"message", line}});
  }

 private:
  int ref_;
  std::map<int, std::string> stored_;
};

}  // namespace

std::unique_ptr<CliFilter> makeSyslogFilter(int ref) { return std::make_unique<SyslogFilter>(ref); }

}  // namespace plugstack
