// The cli_filter plugins of one command (Slurm's cli_filter interface):
// loaded in CliFilterPlugins order, called in that order, setup_defaults
// and pre_submit stopping at the first non-zero result, post_submit
// reaching every plugin; fini() in load order at the end.
//
// Every call is bracketed with enter/leave (which plugin, which hook) and
// followed by a "cliFilter" event: its arguments, result, and the options
// set before and after it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cli_filter/filter.h"
#include "common/json.h"
#include "cli_filter/release_rules.h"

namespace plugstack {

class CliFilterStack {
 public:
  CliFilterStack(CliFilterSettings settings, const SlurmVersion& version, Command command);
  ~CliFilterStack();

  enum class InitOutcome { Loaded, Failed, Fatal };
  // cli_filter_init: every plugin, or none (those loaded are unloaded again
  // when a later one fails). Fatal: a plugin misses a hook symbol, and Slurm
  // ends the process.
  InitOutcome init();
  bool empty() const { return settings_.plugins.empty(); }
  const CliFilterRelease& release() const { return release_; }

  // The _g_ calls. 22.05 loads the plugins in the first of them (init
  // returning Failed makes it SLURM_ERROR).
  int setupDefaults(slurm_opt* opt, bool early);
  int preSubmit(slurm_opt* opt, int offset);
  void postSubmit(int offset, uint32_t jobid, uint32_t stepid);

  // cli_filter_fini: only when a later plugin fails to load; the commands
  // never call it at their end.
  void fini();

  // Set when a load ended the process (the caller reports the exit).
  bool fatal() const { return fatal_; }

 private:
  struct Entry {
    int ref;
    std::string type;
    std::unique_ptr<CliFilter> filter;
  };
  bool load(const std::string& name, int ref);
  int strictResult(int rc, int problemsBefore, int ref, const char* hook);
  bool ensureLoaded();
  // One option hook through every plugin in order until one fails: each
  // call with the options before and after it in a cli_filter event, whose
  // `argument` names what the hook was handed (early, offset).
  template <typename Call>
  int eachFilter(slurm_opt* opt, const char* symbol, const char* hook, const char* argument, json::Value value, Call&& call);

  CliFilterSettings settings_;
  SlurmVersion version_;
  Command command_;
  const CliFilterRelease& release_;
  std::vector<Entry> entries_;
  bool loaded_ = false;
  bool fatal_ = false;
};

// Refs of cli_filter plugins in events: apart from SPANK's plugstack.conf
// lines, which count from 0.
constexpr int kCliFilterRefBase = 1 << 20;

}  // namespace plugstack
