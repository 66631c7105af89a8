// Command-line and environment options of srun, sbatch and salloc, as the
// client commands process them for SPANK (spank-facts §2f):
//
//   - the option table: the command's own long options, then every enabled
//     plugin option; a plugin option named like a built-in one is disabled
//     ("Ignoring conflicting option");
//   - plugin options from the environment first
//     (SLURM_SPANK__SLURM_SPANK_OPTION_<plugin>_<option>), then the command
//     line through getopt_long, each running the plugin's callback with
//     remote = 0; sbatch reads its script's #SBATCH lines before both;
//   - Slurm's exit statuses: 1 for a failing environment option, 255 (exit(-1))
//     for a failing or unknown command-line option.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli_filter/option_store.h"
#include "rules/builtin_options.h"
#include "spank/stack.h"

namespace plugstack {

// A built-in option as it was given.
struct BuiltinSetting {
  std::string name;                  // long name
  std::optional<std::string> value;  // NULL for flags
  std::string source;                // "argv", "env", "script"; "cli_filter" or
                                     // "reset" for what a cli_filter plugin did
};

class ClientOptions {
 public:
  ClientOptions(Stack& stack, Command command);

  // Disables clashing plugin options (with Slurm's message) and builds the
  // getopt_long table.
  void buildTable();

  // spank_process_env_options. Returns 0, or the exit status on failure.
  int processEnvironment();

  // The #SBATCH lines at the top of a batch script (sbatch only).
  int processScript(const std::string& script);

  // getopt_long over args (the words after the command name). Returns 0, or
  // the exit status when the command must stop; positional() then holds the
  // words after the options.
  int processArgs(const std::vector<std::string>& args, const char* source);

  // sbatch's first pass: the same scan, to find the script (or --wrap) and
  // --help; no plugin callback runs, nothing is recorded, but the options
  // reach the cli_filter view as Slurm's first pass sets them.
  struct FirstPass {
    std::vector<std::string> positional;
    std::optional<std::string> wrap;
    bool help = false;
    int status = 0;  // non-zero: an unknown option or a missing argument
  };
  FirstPass firstPass(const std::vector<std::string>& args);

  // _opt_verify, with a task and a node count in force: fewer tasks (-n)
  // than nodes (-N) sets the node count to the task count, with Slurm's
  // warning (the last -N given is changed); then srun's --ntasks-per-node
  // rules of the release (verifyTasksPerNode).
  void verifyTaskCount();

  // _opt_verify's node list: --nodefile's hosts become the list; without
  // -w, SLURM_HOSTFILE's hosts do and make the distribution arbitrary; a
  // -w naming a file (a '/') is read (with -m arbitrary, as many hosts as
  // -n asks for); a -x naming a file likewise. Then -m arbitrary's counts: the tasks and nodes the list
  // stands for, where -n or -N were not given (srun drops the ones the
  // environment set): a task per host listed (salloc and sbatch under
  // 22.05: per distinct host), a node per distinct host; srun refuses a
  // task count that is not positive ("invalid number of tasks (-n 0)"
  // without a list). The command's status when it ends here, else 0.
  int verifyNodeList(int errorExit);

  // _opt_verify's -w without -m arbitrary: a list the hostlist refuses ends
  // the command (releases.json nodeListFatal); 22.05's srun first drops
  // hosts beyond -N's maximum (nodeListTrimmedToMaxBy); then the list's
  // distinct hosts are the node count's minimum (nodeListCountsWithNodes),
  // so that the tasks default to one a node. verifyTaskCount later drops
  // hosts from the end of the sorted list when fewer tasks set the node
  // count down (nodeListTrimmedBy). The command's status when it ends
  // here, else 0.
  int verifyRequiredNodes(int errorExit);

  // _opt_verify: --x11 (srun, salloc) reads DISPLAY as x11_get_display
  // does: unset, unparsable, or a local display whose socket does not
  // exist is Slurm's error and exit(-1): 255 is returned. 0 otherwise
  // (plugstack forwards no X11 traffic).
  int verifyX11();

  // The cli_filter view of the options: every built-in option accepted is
  // given to it, and what plugins change there comes back as settings.
  void attach(OptionStore* store);

  const std::vector<BuiltinSetting>& builtins() const { return builtins_; }
  // -m arbitrary's list as verifyNodeList read it: each task's host in
  // task order, and the distinct hosts in the order Slurm sorts them (the
  // job's nodes in turn). Empty without one.
  // reqNodes: the list as the job asks for its nodes (req_nodes, which
  // salloc and sbatch hand on as SLURM_ARBITRARY_NODELIST). An srun without
  // a list of its own takes SLURM_ARBITRARY_NODELIST's inside a job
  // (arbitraryFromEnvironment()).
  const std::vector<std::string>& arbitraryHosts() const { return arbitraryHosts_; }
  const std::vector<std::string>& arbitraryNodes() const { return arbitraryNodes_; }
  const std::string& arbitraryReqNodes() const { return arbitraryReqNodes_; }
  bool arbitraryFromEnvironment() const { return arbitraryFromEnvironment_; }
  // -w's nodes without -m arbitrary, as verifyRequiredNodes read them (the
  // job's required nodes, req_nodes): listed when there is such a list;
  // parsed when the hostlist took it (else slurmctld refuses the job);
  // hosts: its distinct hosts, sorted (hostlist_uniq); counted when they
  // set the node count, and verifyTaskCount may then drop some.
  struct RequiredNodes {
    bool listed = false;
    bool parsed = false;
    bool counted = false;
    std::vector<std::string> hosts;
    long maxNodes = 0;  // -N's maximum (0: none)
  };
  const RequiredNodes& requiredNodes() const { return required_; }
  const std::vector<std::string>& positional() const { return positional_; }
  bool helpRequested() const { return help_; }

 private:
  struct TableEntry {
    std::string name;
    int hasArg;
    int val;
    CachedOption* spank;        // plugin option, or nullptr
    const BuiltinOption* builtin;
  };

  int runPluginOption(CachedOption& opt, const char* arg, const char* source);
  // The getopt_long loop; `visit` gets each option found, returns non-zero
  // to stop with that status.
  template <typename Visit>
  int scan(const std::vector<std::string>& args, Visit&& visit);
  // Records a built-in option; returns the command's exit status when
  // Slurm refuses its value (with Slurm's message logged), else 0.
  int setBuiltin(const BuiltinOption& opt, const char* arg, const char* source);
  // A built-in option set (by its variable, the command line or the
  // script): kept in builtins() and reported to Node.
  void recordBuiltin(const BuiltinOption& opt, const char* value, const char* source);

  void recordFilterChange(const BuiltinOption& opt, const char* value, bool reset);
  // The last setting of a built-in option (the one in force), or null.
  BuiltinSetting* lastBuiltin(const char* name);
  // srun's --ntasks-per-node against the task and node counts in force
  // (releases.json: ntasksPerNodeAgainstMaximum, envNtasksYieldsToNtasksPerNode):
  // the option or the task count is dropped (slurm_option_reset), with
  // Slurm's warning where it gives one.
  void verifyTasksPerNode(long tasks, long minNodes, long maxNodes);
  // An option's value set by the command's own checks (source "verify").
  void setVerified(const char* name, const std::string& value);
  // The node list's files read (verifyNodeList): 0, or the status a file
  // that was refused ends the command with.
  int readNodeListFiles(int errorExit);
  // _valid_node_list of -w (name "nodelist") or -x ("exclude") naming a
  // file: its hosts become the option's value; 0, or the status a file
  // that was refused ends the command with.
  int readListFile(const char* name, const std::string& file, int errorExit);
  // -x naming a file (it has a '/'), read as -w's is.
  int readExcludeFile(int errorExit);
  // srun with -m arbitrary: -n and -N from the environment no longer count.
  void dropEnvironmentCounts();
  bool isArbitrary();
  // Whether this command is one of a releases.json list of commands ("srun,salloc").
  bool commandListed(const char* commands) const;
  // An option's value, set or assigned (setVerified); none otherwise.
  std::optional<std::string> valueOf(const char* name) const;
  // Whether name counts as given (_opt_verify's ntasks_set, nodes_set).
  bool given(const char* name) const;
  // Whether the command's checks assigned name (setVerified).
  bool assigned(const char* name) const;

  Stack& stack_;
  Command command_;
  OptionStore* store_ = nullptr;
  // verifyNodeList's state: the counts srun no longer takes from the
  // environment.
  struct EnvCounts {
    bool tasks = false;
    bool nodes = false;
  } envCounts_;
  std::vector<std::string> arbitraryHosts_;
  std::vector<std::string> arbitraryNodes_;
  std::string arbitraryReqNodes_;
  bool arbitraryFromEnvironment_ = false;
  RequiredNodes required_;
  std::vector<TableEntry> table_;
  std::string shortOptions_;
  std::vector<BuiltinSetting> builtins_;
  std::vector<std::string> positional_;
  bool help_ = false;
};

}  // namespace plugstack
