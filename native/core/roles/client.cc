// The client role: srun (local context), sbatch and salloc (allocator
// context), up to the point where the command hands over to slurmctld, and
// its last callbacks when Node says the job is done (spank-facts §2d, §2f,
// §2g). The process's environment and working directory are the command's.
//
// Conversation: after init and the options, the host reports "ready" and
// waits; Node may then ask for local_user_init (srun, with the job the
// launcher got) and finally for exit.
#include <fcntl.h>
#include <strings.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cli_filter/filter_stack.h"
#include "client/client_options.h"
#include "client/shared_checks.h"
#include "common/events.h"
#include "common/slurm_log.h"
#include "libslurm/job_table.h"
#include "lifecycle/slurm_limits.h"
#include "lifecycle/slurm_signals.h"
#include "rules/rlimits.h"
#include "mpi/mpi_client.h"
#include "mpi/plugin_list.h"
#include "roles/role.h"
#include "roles/stack_request.h"
#include "rules/releases.h"
#include "spank/help_format.h"
#include "spank/job_records.h"
#include "spank/stack.h"
#include "protocol/messages.h"

extern char** environ;

namespace plugstack {

namespace {

struct ClientSession {
  Stack* stack = nullptr;
  Command command = Command::Srun;
  // sbatch and salloc register spank_fini with atexit right after init;
  // srun's atexit handler runs the exit callbacks only once its shepherd
  // exists, i.e. once it got an allocation.
  bool exitCallbacksArmed = false;
  // error_exit: the status srun, sbatch and salloc end with on their own
  // errors (a failing plugin stack among them); SLURM_EXIT_ERROR changes it.
  int errorExit = 1;
  // The cli_filter plugins and the options they see (slurm_opt_t).
  std::unique_ptr<CliFilterStack> filters;
  std::unique_ptr<slurm_opt> options;
  // srun's mpi plugin (mpi_g_client_*).
  std::unique_ptr<MpiClient> mpi;
};

ClientSession* g_session = nullptr;

// _set_exit_code, first thing in main(): SLURM_EXIT_ERROR, if set and not 0.
int errorExitFromEnv() {
  const char* val = std::getenv("SLURM_EXIT_ERROR");
  if (!val) return 1;
  int i = std::atoi(val);
  if (i == 0) {
    slurmLog(LogLevel::Error, "SLURM_EXIT_ERROR has zero value");
    return 1;
  }
  return i;
}

const char* initFailure(Command c) {
  return c == Command::Srun ? "Plug-in initialization failed" : "Failed to initialize plugin stack";
}

const char* postOptFailure(Command c) {
  return c == Command::Srun ? "Plugin stack post-option processing failed."
                            : "Plugin stack post-option processing failed";
}

void runExitCallbacks(ClientSession& s) {
  if (!s.exitCallbacksArmed) return;
  s.exitCallbacksArmed = false;
  s.stack->callPass(Phase::Exit, nullptr, nullptr);
  delete s.stack;
  s.stack = nullptr;
}

// The command ends here, with this status, as Slurm's exit() would end it.
int finish(ClientSession& s, int status, const char* reason) {
  emitEvent(Event(msg::kCommandExit).add("status", status).add("reason", reason).urgent());
  runExitCallbacks(s);
  emitEvent({{"t", msg::kDone}, {"ok", true}, {"status", status}});
  return 0;
}

// A setter ended the command from inside a cli_filter hook (parse_int's
// exit(1)): the process ends there, exit callbacks first, as exit() would.
[[noreturn]] void exitFromFilter(int status) {
  finish(*g_session, status, "cli_filter");
  flushEvents();
  _exit(0);
}

CliFilterSettings readCliFilterSettings(const json::Value& request, const StackSettings& stack) {
  CliFilterSettings out;
  const json::Value& cf = request["cliFilter"];
  if (!cf.isObject()) return out;
  for (const auto& p : cf["plugins"].asArray()) out.plugins.push_back(p.asString());
  out.pluginDirs = stack.pluginDirs;
  out.slurmConf = cf["slurmConf"].asString();
  out.file = cf["file"].asString();
  out.line = cf["line"].isNumber() ? static_cast<int>(cf["line"].asNumber()) : 0;
  out.strict = cf["strict"].isBool() && cf["strict"].asBool();
  out.clusterName = cf["clusterName"].asString();
  if (cf["luaVersion"].isString()) out.luaVersion = cf["luaVersion"].asString();
  if (cf["userDefaults"].isString()) out.userDefaults = cf["userDefaults"].asString();
  return out;
}

// "<cmd>: error: cli_filter plugin terminated with error", exit(error_exit).
int filterRefused(ClientSession& s) {
  if (s.filters->fatal()) return finish(s, 1, "cli_filter");
  slurmLog(LogLevel::Error, "cli_filter plugin terminated with error");
  return finish(s, s.errorExit, "cli_filter");
}

// srun's init_spank_env: SLURM_SPANK_<NAME>=value in its environment (set by
// sbatch or salloc) seeds the job-control environment.
void seedJobControlEnv(Stack& stack) {
  for (char** e = environ; e && *e; e++) {
    if (std::strncmp(*e, "SLURM_SPANK_", 12) != 0) continue;
    const char* entry = *e + 12;
    const char* eq = std::strchr(entry, '=');
    if (!eq) continue;
    stack.jobControlEnv().set(std::string_view(entry, static_cast<size_t>(eq - entry)), eq + 1);
  }
}

// _spank_stack_set_remote_options_env: every option that was given goes
// into this process's environment and into the job-control environment.
void setRemoteOptionsEnv(Stack& stack) {
  for (auto& opt : stack.options().entries()) {
    if (!opt.found) continue;
    std::string var = optionEnvName(opt.plugin->name, opt.name);
    setenv(var.c_str(), opt.optarg ? opt.optarg->c_str() : "", 1);
    // A NULL argument reaches the job-control environment as "(null)".
    stack.jobControlEnv().set(var, opt.optarg ? *opt.optarg : "(null)");
  }
}

// sbatch and salloc: _set_spank_env exports SLURM_SPANK_<NAME>=value.
void exportJobControlEnv(Stack& stack) {
  for (const auto& entry : stack.jobControlEnv().entries()) {
    std::string full = "SLURM_SPANK_" + entry;
    size_t eq = full.find('=');
    setenv(full.substr(0, eq).c_str(), full.substr(eq + 1).c_str(), 1);
  }
}

json::Array stringArray(const std::vector<std::string>& v) { return json::Array(v.begin(), v.end()); }

json::Array environArray() {
  json::Array out;
  for (char** e = environ; e && *e; e++) out.emplace_back(*e);
  return out;
}

// What the command writes into its own environment at this point (srun's
// job variables before local_user_init, sbatch's and salloc's after the
// submission): "NAME=value" entries, set with setenv(3) as Slurm does.
void setOwnEnvironment(const json::Value& entries) {
  for (const auto& e : entries.asArray()) {
    const std::string& entry = e.asString();
    size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    setenv(entry.substr(0, eq).c_str(), entry.c_str() + eq + 1, 1);
  }
}

// An option's value as its getter prints it, when it was given.
std::optional<std::string> givenValue(const OptionStore& store, const char* name) {
  const BuiltinOption* option = store.find(name);
  return option && store.isSet(*option) ? store.get(*option) : std::nullopt;
}

// 22.05's sbatch checking its options (_opt_verify): its job name (-J, else
// "wrap", else the script's base name) goes into its own environment.
void setSbatchJobName(const OptionStore& store) {
  std::optional<std::string> name = givenValue(store, "job-name");
  if (!name && givenValue(store, "wrap")) name = "wrap";
  if (!name && !store.argv.empty()) {
    const std::string& script = store.argv[0];
    size_t slash = script.rfind('/');
    name = slash == std::string::npos ? script : script.substr(slash + 1);
  }
  if (name) setenv("SLURM_JOB_NAME", name->c_str(), 1);
}

// What --profile and --acctg-freq write for the batch job's sruns, in
// order: SLURM_PROFILE (its kinds as Slurm prints them), SLURM_ACCTG_FREQ.
std::vector<std::pair<const char*, std::string>> sbatchAccountingEnv(const OptionStore& store) {
  std::vector<std::pair<const char*, std::string>> env;
  if (auto profile = givenValue(store, "profile")) env.emplace_back("SLURM_PROFILE", *profile);
  if (auto freq = givenValue(store, "acctg-freq")) env.emplace_back("SLURM_ACCTG_FREQ", *freq);
  return env;
}

// sbatch's _opt_verify, further on, writes what the batch job's sruns
// read: 22.05 its --open-mode, then both its --dependency and an --export
// other than ALL (unless that variable is set already), then 22.05 its
// --profile and --acctg-freq; under 24.11 slurmctld writes those three
// into the batch launch's environment instead (jobOptionsEnv).
void setSbatchJobControlEnv(const OptionStore& store, bool bySbatch) {
  std::optional<std::string> mode = bySbatch ? givenValue(store, "open-mode") : std::nullopt;
  if (mode && !mode->empty()) {
    const char first = static_cast<char>(std::tolower(static_cast<unsigned char>((*mode)[0])));
    if (first == 'a' || first == 't') setenv("SLURM_OPEN_MODE", first == 'a' ? "a" : "t", 1);
  }
  if (auto dependency = givenValue(store, "dependency")) setenv("SLURM_JOB_DEPENDENCY", dependency->c_str(), 1);
  std::optional<std::string> exported = givenValue(store, "export");
  if (exported && strcasecmp(exported->c_str(), "ALL") != 0) setenv("SLURM_EXPORT_ENV", exported->c_str(), 0);
  if (bySbatch)
    for (const auto& [name, value] : sbatchAccountingEnv(store)) setenv(name, value.c_str(), 1);
}

// 24.11's slurmctld's _set_job_env for the batch launch, after the job's
// name and --open-mode (which Node writes): the job's dependency, then
// --profile and --acctg-freq.
json::Array sbatchJobOptionsEnv(const OptionStore& store) {
  json::Array env;
  if (auto dependency = givenValue(store, "dependency")) env.emplace_back("SLURM_JOB_DEPENDENCY=" + *dependency);
  for (const auto& [name, value] : sbatchAccountingEnv(store)) env.emplace_back(std::string(name) + "=" + value);
  return env;
}

// slurm_print_set_options, once the options are verified, with -v: every
// set option and what its getter prints, in Slurm's table order.
void printSetOptions(const OptionStore& store) {
  const BuiltinOption* verbose = store.find("verbose");
  if (!verbose || std::atoi(store.get(*verbose).value_or("0").c_str()) < 1) return;
  const char* rule = "-------------------- --------------------";
  slurmLog(LogLevel::Info, "defined options");
  slurmLog(LogLevel::Info, rule);
  for (const auto& [name, value] : store.setOptions()) {
    char line[512];
    std::snprintf(line, sizeof line, "%-20s: %s", name.c_str(), value ? value->c_str() : "(null)");
    slurmLog(LogLevel::Info, line);
  }
  slurmLog(LogLevel::Info, rule);
  slurmLog(LogLevel::Info, "end of defined options");
}

std::string helpText(Stack& stack, Command command) {
  std::vector<HelpOption> help;
  for (const auto& o : stack.options().entries())
    help.push_back({o.name, o.arginfo, o.usage, !o.disabled});
  return formatPluginHelp(help, helpColumns(std::getenv("COLUMNS")));
}

int printHelp(ClientSession& s) {
  emitEvent(Event(msg::kPrint).add("stream", "stdout").add("what", "help").add("text", helpText(*s.stack, s.command)));
  return finish(s, 0, "help");
}

// sbatch reads its script (or builds one from --wrap) and checks it.
bool readBatchScript(const ClientOptions::FirstPass& first, std::string* script) {
  if (first.wrap) {
    *script = "#!/bin/sh\n# This script was created by sbatch --wrap.\n\n" + *first.wrap + "\n";
    return true;
  }
  const char* path = first.positional.empty() ? nullptr : first.positional[0].c_str();
  int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
  if (fd < 0) {
    slurmLog(LogLevel::Error, std::string("Unable to open file ") + path);
    return false;
  }
  char buf[65536];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) script->append(buf, static_cast<size_t>(n));
  if (path) close(fd);
  bool blank = true;
  for (char c : *script) blank = blank && std::isspace(static_cast<unsigned char>(c));
  if (script->empty()) {
    slurmLog(LogLevel::Error, "Batch script is empty!");
    return false;
  }
  if (blank) {
    slurmLog(LogLevel::Error, "Batch script contains only whitespace!");
    return false;
  }
  if (script->compare(0, 2, "#!") != 0) {
    slurmLog(LogLevel::Error, "This does not look like a batch script.  The first");
    slurmLog(LogLevel::Error, "line must start with #! followed by the path to an interpreter.");
    slurmLog(LogLevel::Error, "For instance: #!/bin/sh");
    return false;
  }
  if (script->find('\0') != std::string::npos) {
    slurmLog(LogLevel::Error, "The Slurm controller does not allow scripts that");
    slurmLog(LogLevel::Error, "contain a NULL character '\\0'.");
    return false;
  }
  if (script->find("\r\n") != std::string::npos) {
    slurmLog(LogLevel::Error, "Batch script contains DOS line breaks (\\r\\n)");
    slurmLog(LogLevel::Error, "instead of expected UNIX line breaks (\\n).");
    return false;
  }
  return true;
}

json::Value mpiReady(const ClientSession& s) {
  if (s.command != Command::Srun || !s.mpi) return json::Value();
  std::optional<std::string> type = s.mpi->type();
  json::Object o{{"type", type ? json::Value(*type) : json::Value()}};
  if (type) o.emplace_back("pluginId", s.mpi->pluginId());
  return o;
}

MpiClientSettings readMpiSettings(const json::Value& request, const StackSettings& stack) {
  MpiClientSettings out;
  const json::Value& mpi = request["mpi"];
  out.pluginDirs = stack.pluginDirs;
  if (!mpi.isObject()) return out;
  if (mpi["default"].isString()) out.mpiDefault = mpi["default"].asString();
  out.file = mpi["file"].asString();
  out.line = mpi["line"].isNumber() ? static_cast<int>(mpi["line"].asNumber()) : 0;
  return out;
}

// srun's --mpi (or SLURM_MPI_TYPE), when given.
std::optional<std::string> mpiOption(const OptionStore& store) { return givenValue(store, "mpi"); }

// mpi_g_client_init where srun calls it; false when srun ended there.
bool initMpi(ClientSession& s, int* status) {
  MpiClient::Init init = s.mpi->init(mpiOption(s.options->store));
  if (init == MpiClient::Init::Fatal) {
    *status = finish(s, 1, "mpi");
    return false;
  }
  if (init == MpiClient::Init::Invalid) {
    slurmLog(LogLevel::Error, "Invalid MPI type '" + s.mpi->requested() + "', --mpi=list for acceptable types");
    *status = finish(s, s.errorExit, "mpi");
    return false;
  }
  return true;
}

StepShape readStepShape(const json::Value& step) {
  StepShape out;
  out.jobId = static_cast<uint32_t>(step["jobId"].asNumber());
  out.stepId = static_cast<uint32_t>(step["stepId"].asNumber());
  out.ntasks = static_cast<uint32_t>(step["ntasks"].asNumber());
  out.nodeList = step["nodeList"].asString();
  if (step["taskDist"].isNumber()) out.taskDist = static_cast<uint32_t>(step["taskDist"].asNumber());
  if (step["planeSize"].isNumber()) out.planeSize = static_cast<uint16_t>(step["planeSize"].asNumber());
  for (const auto& node : step["layout"].asArray()) {
    std::vector<uint32_t> tids;
    for (const auto& t : node.asArray()) tids.push_back(static_cast<uint32_t>(t.asNumber()));
    out.tids.push_back(std::move(tids));
  }
  return out;
}

void reportReady(ClientSession& s, const ClientOptions& options, const std::string& script) {
  json::Array found;
  for (const auto& opt : s.stack->options().entries()) {
    if (!opt.found) continue;
    json::Object o{{"plugin", opt.plugin->name ? opt.plugin->name : ""}, {"name", opt.name},
                   {"ref", opt.plugin->ref}, {"byEnv", opt.setByEnv}};
    o.emplace_back("value", opt.optarg ? json::Value(*opt.optarg) : json::Value());
    found.emplace_back(std::move(o));
  }
  json::Array builtins;
  for (const auto& b : options.builtins())
    builtins.emplace_back(json::Object{{"name", b.name},
                                       {"value", b.value ? json::Value(*b.value) : json::Value()},
                                       {"source", b.source}});
  json::Object ready{{"t", msg::kReady},
                     {"positional", stringArray(options.positional())},
                     {"builtins", std::move(builtins)},
                     {"options", std::move(found)},
                     {"jobControlEnv", stringArray(s.stack->jobControlEnv().entries())},
                     {"script", script},
                     {"environ", environArray()}};
  if (s.command == Command::Sbatch) ready.emplace_back("jobOptionsEnv", sbatchJobOptionsEnv(s.options->store));
  if (options.requiredNodes().listed)
    ready.emplace_back("requiredNodes", json::Object{{"hosts", stringArray(options.requiredNodes().hosts)},
                                                     {"parsed", options.requiredNodes().parsed},
                                                     {"maxNodes", options.requiredNodes().maxNodes}});
  if (!options.arbitraryHosts().empty())
    ready.emplace_back("arbitraryHosts", json::Object{{"hosts", stringArray(options.arbitraryHosts())},
                                                      {"nodes", stringArray(options.arbitraryNodes())},
                                                      {"reqNodes", options.arbitraryReqNodes()},
                                                      {"fromEnvironment", options.arbitraryFromEnvironment()}});
  // srun: the mpi plugin it loaded (type null: none).
  json::Value mpi = mpiReady(s);
  if (!mpi.isNull()) ready.emplace_back("mpi", std::move(mpi));
  // _set_rlimit_env reads the command's soft limits now, after
  // init_post_opt: what plugin code set until here is what the job gets.
  json::Array limits;
  for (const rlimits::Named& n : rlimits::kNamed) {
    struct rlimit r;
    if (getrlimit(n.resource, &r) == 0)
      limits.emplace_back(json::Object{{"name", n.name}, {"soft", std::to_string(static_cast<unsigned long>(r.rlim_cur))}});
  }
  ready.emplace_back("limits", std::move(limits));
  // error_exit (SLURM_EXIT_ERROR): the status of what ends the command
  // before its job runs, which Node decides (an allocation refused...).
  ready.emplace_back("errorExit", s.errorExit);
  emitEvent(std::move(ready));
  flushEvents();
  // srun then uses every descriptor it may (rlimits_use_max_nofile), after
  // its variables are written; sbatch and salloc never do.
  if (s.command == Command::Srun) slurm_limits::raiseToHard("NOFILE");
}

bool readJob(const json::Value& job, LauncherJobRecord* out, std::string* error) {
  auto num = [&](const char* k) { return static_cast<uint32_t>(job[k].asNumber()); };
  for (const char* k : {"uid", "gid", "jobId", "stepId", "nodes", "tasks"})
    if (!job[k].isNumber()) {
      *error = std::string("job.") + k + " must be a number";
      return false;
    }
  out->uid = num("uid");
  out->gid = num("gid");
  out->jobId = num("jobId");
  out->stepId = num("stepId");
  out->nodeCount = num("nodes");
  out->taskCount = num("tasks");
  std::vector<std::string> argv;
  for (const auto& a : job["argv"].asArray()) argv.push_back(a.asString());
  out->setArgv(argv);
  return true;
}

// Waits for Node's next instruction until the command is done.
int converse(Channel& channel, ClientSession& s) {
  LauncherJobRecord job;
  for (;;) {
    std::string payload, error;
    json::Value msg;
    if (!channel.read(&payload, &error) || !json::parse(payload, &msg, &error)) {
      // Node went away: the command dies with it.
      return 1;
    }
    const std::string& what = msg["t"].asString();
    if (what == msg::kLocalUserInitCommand) {
      // The job record slurm_load_job answers with (libslurm/job_table.h).
      if (!readJob(msg["job"], &job, &error) ||
          (!msg["record"].isNull() && !libslurm::rememberJob(msg["record"], &error))) {
        emitEvent({{"t", msg::kFatal}, {"message", error}});
        return 2;
      }
      // srun's job variables (env_array_for_job, setup_env) are in its own
      // environment before local_user_init.
      setOwnEnvironment(msg["env"]);
      // From here on srun has its shepherd: its exit callbacks will run.
      s.exitCallbacksArmed = true;
      int rc = s.stack->callPass(Phase::LocalUserInit, &job, nullptr).rc;
      if (s.stack->isFailure(rc)) {
        slurmLog(LogLevel::Error, "Failure in local plugin stack");
        emitEvent(Event(msg::kResult).add("hook", "local_user_init").add("rc", rc).add("failed", true).add("status", s.errorExit));
        return finish(s, s.errorExit, "local_user_init");
      }
      // What a plugin set there reaches the tasks: srun launches with its environment.
      emitEvent(Event(msg::kResult).add("hook", "local_user_init").add("rc", rc).add("failed", false)
                    .add("environ", json::Value(environArray())));
      flushEvents();
    } else if (what == msg::kPostSubmitCommand) {
      uint32_t jobId = static_cast<uint32_t>(msg["jobId"].asNumber());
      uint32_t stepId = static_cast<uint32_t>(msg["stepId"].asNumber());
      uint32_t components = msg["components"].isNumber() ? static_cast<uint32_t>(msg["components"].asNumber()) : 1;
      for (uint32_t i = 0; i < components; i++) s.filters->postSubmit(static_cast<int>(i), jobId, stepId);
      emitEvent(Event(msg::kResult).add("hook", "post_submit").add("rc", 0).add("failed", false));
      flushEvents();
    } else if (what == msg::kMpiPrelaunchCommand) {
      std::vector<std::string> env;
      bool ok = s.mpi->prelaunch(readStepShape(msg["step"]), &env);
      emitEvent(Event(msg::kResult).add("hook", "client_prelaunch").add("rc", ok ? 0 : -1).add("failed", !ok)
                    .add("env", json::Value(json::Array(env.begin(), env.end()))));
      flushEvents();
    } else if (what == msg::kMpiFiniCommand) {
      int rc = s.mpi->fini();
      emitEvent(Event(msg::kResult).add("hook", "client_fini").add("rc", rc).add("failed", false));
      flushEvents();
    } else if (what == msg::kAllocatedCommand) {
      // srun got (or joined) an allocation: its shepherd exists now. The
      // signals caught while waiting for one (srun's own, salloc's) stay so.
      s.exitCallbacksArmed = true;
      const releases::Signals& signals = releases::signals(s.stack->version());
      if (s.command == Command::Srun && msg["own"].isBool() && msg["own"].asBool())
        slurm_signals::catchIgnoring(signals.srunCaughtAfterAllocation);
      else if (s.command == Command::Salloc)
        slurm_signals::catchIgnoring(signals.sallocCaughtAfterOptions);
    } else if (what == msg::kLaunchingCommand) {
      // The step's IO, started for its launch, ignores some signals in srun.
      if (s.command == Command::Srun) slurm_signals::ignore(releases::signals(s.stack->version()).srunIgnoredFromLaunch);
    } else if (what == msg::kExitCommand) {
      int status = msg["status"].isNumber() ? static_cast<int>(msg["status"].asNumber()) : 0;
      setOwnEnvironment(msg["env"]);
      return finish(s, status, "done");
    } else {
      emitEvent({{"t", msg::kFatal}, {"message", "unknown request " + what}});
      return 2;
    }
  }
}

}  // namespace

int runClientRole(Channel& channel, const json::Value& request) {
  StackSettings settings;
  std::string error;
  std::optional<Command> command;
  if (request["command"].isString()) command = commandByName(request["command"].asString());
  if (!request["conf"].isString()) error = "request.conf must be a path";
  else if (!command) error = "request.command must be srun, sbatch or salloc";
  else if (!readStackSettings(request, &settings, &error)) {
  } else if (settings.context != (*command == Command::Srun ? Context::Local : Context::Allocator)) {
    error = "srun runs in local context, sbatch and salloc in allocator context";
  }
  if (!error.empty()) {
    emitEvent({{"t", msg::kFatal}, {"message", error}});
    return 2;
  }
  std::vector<std::string> args;
  for (const auto& a : request["argv"].asArray()) args.push_back(a.asString());

  ClientSession s;
  g_session = &s;
  s.command = command.value_or(Command::Srun);
  s.errorExit = errorExitFromEnv();
  s.filters = std::make_unique<CliFilterStack>(readCliFilterSettings(request, settings), settings.version, s.command);
  s.options.reset(new slurm_opt{OptionStore(s.command, settings.version)});
  s.options->store.onExit = exitFromFilter;
  s.options->store.site.multipleSharingGres = request["multipleSharingGres"].isBool() && request["multipleSharingGres"].asBool();
  s.mpi = std::make_unique<MpiClient>(readMpiSettings(request, settings), settings.version);
  setMpiEmulatedVersion(settings.version);
  // plugstack check: load the cli_filter plugins as the command would, and
  // stop (the script of cli_filter/lua is read and run at load).
  if (request["checkOnly"].isBool() && request["checkOnly"].asBool()) {
    CliFilterStack::InitOutcome init = s.filters->init();
    return finish(s, init == CliFilterStack::InitOutcome::Loaded ? 0 : 1, "check");
  }
  // 24.11 loads the cli_filter plugins first thing in main().
  if (s.filters->release().loadsInMain && !s.filters->empty()) {
    CliFilterStack::InitOutcome init = s.filters->init();
    if (init == CliFilterStack::InitOutcome::Fatal) return finish(s, 1, "cli_filter");
    if (init == CliFilterStack::InitOutcome::Failed) {
      slurmLog(LogLevel::Error, "failed to initialize cli_filter plugin", /*fatal=*/true);
      return finish(s, 1, "cli_filter");
    }
  }
  // init_srun blocks srun's signals before its plugin stack loads (and
  // after 24.11's cli_filter load, first thing in main()).
  if (s.command == Command::Srun) slurm_signals::block(releases::signals(settings.version).srunBlocked);
  ParsedConf parsed = readRequestConf(request);
  s.stack = new Stack(settings);
  Stack::setCurrent(s.stack);
  if (s.command == Command::Srun) seedJobControlEnv(*s.stack);

  if (!s.stack->load(parsed) || s.stack->isFailure(s.stack->callPass(Phase::Init, nullptr, nullptr).rc)) {
    slurmLog(LogLevel::Error, initFailure(s.command));
    return finish(s, s.errorExit, "init");
  }
  s.exitCallbacksArmed = s.command != Command::Srun;

  ClientOptions options(*s.stack, s.command);
  options.buildTable();
  OptionStore& store = s.options->store;
  store.spank = s.stack;
  options.attach(&store);
  int rc = 0;
  std::string script;
  if (s.command == Command::Sbatch) {
    // cli_filter plugins set defaults before the first pass (early), and
    // again before the second; what the first set of the options that
    // every pass resets is gone by then.
    if (s.filters->setupDefaults(s.options.get(), true)) return filterRefused(s);
    // sbatch's first pass finds the script (or --wrap) and --help without
    // running any plugin callback; then the script's #SBATCH lines come
    // first in the real pass.
    ClientOptions::FirstPass first = options.firstPass(args);
    if (first.status) return finish(s, first.status, "options");
    if (first.help) return printHelp(s);
    // Arguments after the options are the script's, which --wrap has none of.
    if (first.wrap && !first.positional.empty()) {
      slurmLog(LogLevel::Error, "Script arguments not permitted with --wrap option");
      return finish(s, s.errorExit, "options");
    }
    if (const BuiltinOption* wrap = store.find("wrap")) {
      if (first.wrap) store.given(*wrap, first.wrap->c_str(), false);
      else if (store.isSet(*wrap)) first.wrap = store.get(*wrap);  // a plugin's --wrap
    }
    store.argv = first.wrap ? std::vector<std::string>{} : first.positional;
    // sbatch.c: exit(error_exit) when there is no script to submit.
    if (!readBatchScript(first, &script)) return finish(s, s.errorExit, "script");
    store.startPass();
    if (s.filters->setupDefaults(s.options.get(), false)) return filterRefused(s);
    if (!first.wrap) rc = options.processScript(script);
  } else if (s.command == Command::Salloc) {
    if (s.filters->setupDefaults(s.options.get(), false)) return filterRefused(s);
  } else if (!std::getenv("SLURM_JOB_ID")) {
    // srun sets no defaults inside an allocation.
    if (s.filters->setupDefaults(s.options.get(), true)) return filterRefused(s);
  }
  if (!rc) rc = options.processEnvironment();
  if (!rc) rc = options.processArgs(args, "argv");
  if (rc) return finish(s, rc, "options");
  if (options.helpRequested()) return printHelp(s);
  // srun --mpi=list prints the types its PluginDir offers and exits (0).
  if (s.command == Command::Srun && mpiOption(store) == std::optional<std::string>("list")) {
    emitEvent(Event(msg::kPrint).add("stream", "stdout").add("what", "mpi-list")
                  .add("text", mpiListText(settings.pluginDirs, settings.version)));
    return finish(s, 0, "mpi_list");
  }
  if (s.command == Command::Srun && options.positional().empty()) {
    slurmLog(LogLevel::Error, "No command given to execute.", /*fatal=*/true);
    return finish(s, 1, "options");
  }
  if (s.command == Command::Srun) store.argv = options.positional();
  if (s.filters->preSubmit(s.options.get(), 0)) return filterRefused(s);
  // _opt_verify starts with the checks the three commands share.
  SharedCheckSettings shared;
  shared.allowSpecResources = request["allowSpecResources"].isBool() && request["allowSpecResources"].asBool();
  shared.memoryConsumable = request["memoryConsumable"].isBool() && request["memoryConsumable"].asBool();
  if (int status = validateSharedOptions(store, shared)) return finish(s, status, "options");
  if (s.command == Command::Sbatch && releases::client(settings.version).sbatchJobNameEnv) setSbatchJobName(store);
  if (s.command == Command::Sbatch)
    setSbatchJobControlEnv(store, std::strcmp(releases::client(settings.version).jobOptionsEnvBy, "sbatch") == 0);
  // srun's _opt_verify writes its --dependency for what it starts.
  if (s.command == Command::Srun)
    if (auto dependency = givenValue(store, "dependency")) setenv("SLURM_JOB_DEPENDENCY", dependency->c_str(), 1);
  if (int status = options.verifyNodeList(s.errorExit)) return finish(s, status, "options");
  if (int status = options.verifyRequiredNodes(s.errorExit)) return finish(s, status, "options");
  options.verifyTaskCount();
  if (int x11 = options.verifyX11()) return finish(s, x11, "options");
  printSetOptions(store);
  // 22.05 loads srun's mpi plugin while verifying the options, before
  // init_post_opt; 24.11 once every option is processed.
  const bool mpiEarly = mpiRelease(settings.version).loadsBeforePostOpt;
  int mpiStatus = 0;
  if (s.command == Command::Srun && mpiEarly && !initMpi(s, &mpiStatus)) return mpiStatus;

  setRemoteOptionsEnv(*s.stack);
  if (s.stack->isFailure(s.stack->callPass(Phase::InitPostOpt, nullptr, nullptr).rc)) {
    slurmLog(LogLevel::Error, postOptFailure(s.command));
    return finish(s, s.errorExit, "init_post_opt");
  }
  if (s.command == Command::Srun && !mpiEarly && !initMpi(s, &mpiStatus)) return mpiStatus;
  if (s.command != Command::Srun) exportJobControlEnv(*s.stack);
  reportReady(s, options, script);
  return converse(channel, s);
}

}  // namespace plugstack
