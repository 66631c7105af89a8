// A SPANK plugin stack: the plugins one Slurm process loads from
// plugstack.conf for one context, their options, and the callback pass.
//
// Like Slurm, a process has one current stack (spank_context() and the
// spank_* calls find it without a handle).
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "rules/context.h"
#include "spank/env_array.h"
#include "spank/job_records.h"
#include "spank/option_cache.h"
#include "rules/phase.h"
#include "spank/plugin.h"
#include "spank/plugin_loader.h"
#include "config/plugstack_conf.h"
#include "rules/slurm_version.h"
#include "spank/spank_handle.h"

namespace plugstack {

struct StackSettings {
  Context context = Context::Local;
  SlurmVersion version{24, 11, 5};
  // Slurm's PluginDir, split on ':'. Relative plugin paths are tried in
  // each directory in turn before being handed to dlopen unchanged.
  std::vector<std::string> pluginDirs;
};

// Outcome of one callback pass over the stack.
struct PassResult {
  int rc = 0;           // the value Slurm's _do_call_stack returns
  int stoppedBy = -1;   // ref of the required plugin that stopped the pass
};

class Stack {
 public:
  explicit Stack(StackSettings settings);
  ~Stack();
  Stack(const Stack&) = delete;
  Stack& operator=(const Stack&) = delete;

  // Slurm's stack creation: walks the parsed config, loads each plugin,
  // keeps those valid for the context and registers their static options.
  // Returns false where Slurm's would fail (a required plugin that does not
  // load, an unreadable file, an include loop); what loaded stays loaded.
  bool load(const ParsedConf& conf);

  // Calls one callback in every plugin, in config order. A required plugin
  // returning non-zero stops the pass and its rc is returned; an optional
  // plugin's rc is ignored. job/task become the handle's job and task.
  PassResult callPass(Phase phase, void* job, TaskRecord* task);

  // Whether the caller of a pass treats rc as failure. 22.05 and 24.11 test
  // for a negative value only; a positive rc stops the pass but nothing fails.
  bool isFailure(int rc) const { return rc < 0; }

  Context context() const { return settings_.context; }
  const SlurmVersion& version() const { return settings_.version; }
  std::vector<std::unique_ptr<Plugin>>& plugins() { return plugins_; }
  OptionCache& options() { return options_; }
  // opt.spank_job_env of srun/sbatch/salloc: NAME=value, no prefix.
  EnvArray& jobControlEnv() { return jobControlEnv_; }

  // slurmd's scan: does any plugin define job_prolog / job_epilog? Only then
  // does slurmd start the prolog/epilog helper at all.
  bool anyJobProlog() const { return anyJobProlog_; }
  // Some loaded plugin defines the callback (spank_has_user_init & co.).
  bool anyDefines(Phase phase) const;
  bool anyJobEpilog() const { return anyJobEpilog_; }

  // The process's current stack (Slurm's global_spank_stack), or nullptr.
  static Stack* current();
  static void setCurrent(Stack* stack);
  // Stacks created and not destroyed: Slurm leaves a stack loaded on some
  // early failures, and then plugins never had their chance to clean up.
  static int liveCount();

  // Handles are checked against this: a handle kept by a plugin past its
  // pass is refused instead of reading freed memory as Slurm would.
  bool isLiveHandle(const struct spank_handle* h) const;

 private:
  // Returns -1 when the stack must be abandoned.
  int processPluginLine(const PluginLine& line, int ref);
  std::string resolvePath(const std::string& path, int ref) const;
  bool validForContext(const Plugin& p);
  void checkJobEnv(const Plugin& p, const PhaseInfo& info, EnvArray& env);
  struct spank_handle* newHandle(Phase phase, void* job, TaskRecord* task);
  void reportNonZero(const Plugin& p, const PhaseInfo& info, int rc) const;

  StackSettings settings_;
  PluginLoader loader_;
  std::vector<std::unique_ptr<Plugin>> plugins_;
  // Plugins that loaded but were refused (no callbacks) stay mapped, as in
  // Slurm, which never unloads them.
  std::vector<std::unique_ptr<Plugin>> leaked_;
  OptionCache options_;
  EnvArray jobControlEnv_;
  bool anyJobProlog_ = false;
  bool anyJobEpilog_ = false;
  std::deque<struct spank_handle> handles_;
};

}  // namespace plugstack
