// slurm_opt_t: the options of one srun, sbatch or salloc as cli_filter
// plugins see and change them through slurm_option_get/set/isset/reset and
// get_next_set (api/cli_filter_api.cc). Opaque to plugins: our header only
// declares the struct, and no plugin can depend on Slurm's private layout.
//
// Each option of the release's table (rules/builtin_options_table.inc) has
// Slurm's state: set or not (and whether by the environment), and the value
// its getter prints (cli_filter/option_values.h). What the command was given
// comes in through given(); what plugins change is passed on to the
// command's own option record through the change listener, so that what
// pre_submit sets is what the job gets.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cli_filter/option_values.h"
#include "rules/builtin_options.h"

namespace plugstack {

class Stack;

class OptionStore {
 public:
  OptionStore(Command command, const SlurmVersion& version);

  Command command() const { return command_; }
  const SlurmVersion& version() const { return version_; }

  // Slurm's lookup: the first option of the release called name.
  const BuiltinOption* find(std::string_view name) const { return findOptionByName(version_, name); }

  // slurm_option_get: whatever the getter prints, set or not.
  OptionValue get(const BuiltinOption& option) const;
  bool isSet(const BuiltinOption& option) const;
  // slurm_option_set_by_env; set by the command line (script, plugin) is
  // isSet and not this.
  bool setByEnvironment(const BuiltinOption& option) const;
  // Which of two set options was set later (Slurm's -S and --thread-spec
  // write one field: the later one is what it holds).
  bool setAfter(const BuiltinOption& later, const BuiltinOption& earlier) const;
  // 22.05's argv getter reads sbatch's options whatever the command: in
  // srun and salloc it dereferences NULL and the command crashes.
  bool argvCrashes() const;

  // slurm_option_set: SLURM_SUCCESS or SLURM_ERROR; early == false does
  // nothing (and succeeds) for an option of the command's early pass.
  int set(const BuiltinOption& option, const char* value, bool early);
  // slurm_option_reset.
  void reset(const BuiltinOption& option);
  // slurm_option_get_next_set: the next set option from *cursor on.
  const BuiltinOption* nextSet(size_t* cursor) const;

  // An option the command itself took from its arguments, script or
  // environment (no early-pass rule: the command knows its pass). quiet:
  // a value the setter refuses is dropped without a word (what plugstack
  // only shows cli_filter, not the job).
  void given(const BuiltinOption& option, const char* value, bool byEnvironment, bool quiet = false);
  // A value the command's own checks write into its options without
  // setting them (_opt_verify's opt.ntasks = ...): the getter prints it,
  // slurm_option_isset and the set-options lists do not count it. False
  // when the setter refuses it.
  bool assign(const BuiltinOption& option, const char* value);
  // As given(), but a value the setter refuses is returned, not logged:
  // Slurm's message and status (1 for parse_int's exit(1); 0 when the
  // setter only returns an error, which the command makes exit(-1)).
  std::optional<BuiltinValueError> take(const BuiltinOption& option, const char* value, bool byEnvironment);
  // slurm_reset_all_options(opt, false): a new pass starts the options
  // that are reset every pass afresh.
  void startPass();

  // Every set option and its value, in table order (a hook's before/after).
  std::vector<std::pair<std::string, OptionValue>> setOptions() const;

  // What the lua plugin reads besides options: the command's arguments
  // after its options, its SPANK options and job-control environment.
  std::vector<std::string> argv;
  Stack* spank = nullptr;
  // What of slurm.conf the setters read.
  OptionSite site;

  // A plugin changed an option: (option, value or NULL, true for a reset).
  std::function<void(const BuiltinOption&, const char*, bool)> onChange;
  // A setter ended the command (Slurm's exit(1) inside parse_int).
  std::function<void(int status)> onExit;

 private:
  struct State {
    bool set = false;
    bool byEnvironment = false;
    unsigned long serial = 0;  // when it was last set
  };
  bool apply(const BuiltinOption& option, const char* value, bool quiet = false);
  size_t index(const BuiltinOption& option) const;

  Command command_;
  SlurmVersion version_;
  std::vector<const BuiltinOption*> options_;  // the release's table, in order
  std::vector<State> state_;                   // same order
  std::map<std::string, OptionValue> values_;  // by getter field, once set
  unsigned long serial_ = 0;
};

// A setter's refusal as Slurm logs it: the setter's own line first, if any
// (a plane without a size), then the option's.
void logRefusal(const BuiltinValueError& e);

}  // namespace plugstack

// The type cli_filter plugins hold a pointer to.
struct slurm_opt {
  plugstack::OptionStore store;
};
