#include "client/client_options.h"

#include <getopt.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "common/comma_list.h"
#include "common/events.h"
#include "client/host_file.h"
#include "common/slurm_log.h"
#include "libslurm/hostlist_log.h"
#include "rules/builtin_checks.h"
#include "rules/cli_env_options.h"
#include "rules/releases.h"
#include "rules/task_distribution.h"
#include "step/remote_options.h"
#include "protocol/messages.h"

namespace plugstack {

namespace {

// Long options without a one-letter form get values above any character.
constexpr int kLongOnlyBase = 0x100;

// What glibc's getopt would print, sent as console text (opterr is off so
// that nothing reaches the host's stderr out of order).
void console(const std::string& text) {
  emitEvent(Event(msg::kConsole).add("stream", "stderr").add("text", text).urgent());
}

// One word of an #SBATCH line, with sbatch's quoting rules: quotes group,
// "\ " is a space, "\x" is x, an unescaped # ends the line. Returns false
// when there is no further word.
bool nextScriptWord(const char*& p, std::string* word) {
  while (*p && std::isspace(static_cast<unsigned char>(*p))) p++;
  if (!*p) return false;
  word->clear();
  bool quoted = false, escaped = false, any = false;
  char quote = 0;
  while ((quoted || !std::isspace(static_cast<unsigned char>(*p))) && *p != '\n' && *p) {
    if (escaped) {
      escaped = false;
    } else if (*p == '\\') {
      p++;
      if (*p == ' ') {
        *word += *p++;
        any = true;
      } else {
        escaped = true;
      }
      continue;
    } else if (quoted) {
      if (*p == quote) {
        quoted = false;
        p++;
        continue;
      }
    } else if (*p == '"' || *p == '\'') {
      quoted = true;
      quote = *p++;
      continue;
    } else if (*p == '#') {
      break;
    }
    *word += *p++;
    any = true;
  }
  return any;
}

}  // namespace

ClientOptions::ClientOptions(Stack& stack, Command command) : stack_(stack), command_(command) {}

void ClientOptions::buildTable() {
  int index = 0;
  shortOptions_ = "+";
  forEachBuiltinOption(command_, stack_.version(), [&](const BuiltinOption& o) {
    int val = o.shortName ? o.shortName : kLongOnlyBase + index;
    table_.push_back({o.name, o.hasArg, val, nullptr, &o});
    if (o.shortName) {
      shortOptions_ += o.shortName;
      if (o.hasArg == 1) shortOptions_ += ":";
      if (o.hasArg == 2) shortOptions_ += "::";
    }
    index++;
  });
  for (auto& opt : stack_.options().entries()) {
    if (opt.disabled) continue;
    if (findBuiltinOption(command_, stack_.version(), opt.name)) {
      opt.disabled = true;
      opt.disabledReason = std::string("the name of one of ") + commandName(command_) + "'s own options";
      slurmLog(LogLevel::Error, "Ignoring conflicting option \"" + opt.name + "\" in plugin \"" +
                                    (opt.plugin->name ? opt.plugin->name : "") + "\"");
      continue;
    }
    table_.push_back({opt.name, opt.hasArg, opt.optval, &opt, nullptr});
  }
}

int ClientOptions::runPluginOption(CachedOption& opt, const char* arg, const char* source) {
  return runOptionCallback(opt, arg, 0, source);
}

int ClientOptions::setBuiltin(const BuiltinOption& opt, const char* arg, const char* source) {
  arg = processedOptionArg(opt, arg);
  if (auto bad = checkBuiltinValue(opt.name, arg)) {
    logRefusal(*bad);
    return bad->status;
  }
  // The option's setter: a value it refuses ends the command
  // (slurm_process_option_or_exit: exit(-1), or parse_int's exit(1)).
  // sbatch's second pass leaves the options of its first pass (-v, -Q,
  // --wrap, ...) as that pass set them.
  const bool earlyDone = command_ == Command::Sbatch && (opt.earlyFor & commandBit(Command::Sbatch)) &&
                         std::strcmp(source, "env") != 0;
  if (store_ && !earlyDone) {
    if (auto bad = store_->take(opt, arg, std::strcmp(source, "env") == 0)) {
      logRefusal(*bad);
      return bad->status == 1 ? 1 : 255;
    }
  }
  if (std::strcmp(opt.name, "help") == 0) help_ = true;
  recordBuiltin(opt, arg, source);
  return 0;
}

void ClientOptions::recordBuiltin(const BuiltinOption& opt, const char* value, const char* source) {
  builtins_.push_back({opt.name, value ? std::optional<std::string>(value) : std::nullopt, source});
  Event ev(msg::kBuiltin);
  ev.add("name", opt.name).add("source", source);
  if (value) ev.add("value", value);
  else ev.addNull("value");
  emitEvent(ev);
}

void ClientOptions::attach(OptionStore* store) {
  store_ = store;
  store_->onChange = [this](const BuiltinOption& opt, const char* value, bool reset) {
    recordFilterChange(opt, value, reset);
  };
}

void ClientOptions::recordFilterChange(const BuiltinOption& opt, const char* value, bool reset) {
  const char* source = reset ? "reset" : "cli_filter";
  if (reset) {
    // Back to the default: what was given before no longer counts.
    builtins_.erase(std::remove_if(builtins_.begin(), builtins_.end(),
                                   [&](const BuiltinSetting& b) { return b.name == opt.name; }),
                    builtins_.end());
  } else {
    builtins_.push_back({opt.name, value ? std::optional<std::string>(value) : std::nullopt, source});
  }
  Event ev(msg::kBuiltin);
  ev.add("name", opt.name).add("source", source);
  if (value && !reset) ev.add("value", value);
  else ev.addNull("value");
  emitEvent(ev);
}

int ClientOptions::processEnvironment() {
  // The command's own options from its variables (SLURM_JOB_NAME,
  // SBATCH_PARTITION, ...): cli_filter plugins see them set, by the
  // environment. plugstack shapes the job from the variables it knows
  // itself (lib/commands), not from these. A value the option's setter
  // refuses ends the command as on the command line (Slurm's
  // slurm_process_option_or_exit: the setter's message, exit(-1), or
  // parse_int's exit(1)).
  if (store_) {
    std::optional<BuiltinValueError> refused;
    forEachEnvOption(command_, stack_.version(), [&](const EnvOption& e) {
      if (refused) return;
      const char* value = std::getenv(e.variable);
      const BuiltinOption* o = value ? findBuiltinOption(command_, stack_.version(), e.option) : nullptr;
      if (!o) return;
      value = processedOptionArg(*o, value);
      refused = store_->take(*o, value, true);
      // What the variable set, as the command line would have; a flag's
      // variable can also unset it.
      if (!refused && store_->isSet(*o)) recordBuiltin(*o, value, "env");
    });
    if (refused) {
      logRefusal(*refused);
      return refused->status == 1 ? 1 : 255;
    }
  }
  // Every cached option is looked for, disabled ones included, as Slurm does.
  for (auto& opt : stack_.options().entries()) {
    std::string var = "SLURM_SPANK_" + optionEnvName(opt.plugin->name, opt.name);
    const char* value = std::getenv(var.c_str());
    if (!value) continue;
    std::string arg = value;
    if (runPluginOption(opt, arg.c_str(), "env")) {
      slurmLog(LogLevel::Error, "Invalid argument (" + arg + ") for environment variable: " + var);
      return 1;
    }
    opt.setByEnv = true;
  }
  return 0;
}

int ClientOptions::processScript(const std::string& script) {
  std::vector<std::string> words;
  size_t start = 0;
  while (start < script.size()) {
    size_t end = script.find('\n', start);
    std::string line = script.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? script.size() : end + 1;
    const char* p = nullptr;
    if (line.compare(0, 7, "#SBATCH") == 0) {
      p = line.c_str() + 7;
    } else if (line.compare(0, 6, "#SLURM") == 0) {
      p = line.c_str() + 6;
    } else {
      // The first line that is neither blank nor a comment ends the
      // directives.
      bool command = false;
      for (char c : line) {
        if (std::isspace(static_cast<unsigned char>(c))) continue;
        command = c != '#';
        break;
      }
      if (command) break;
      continue;
    }
    std::string word;
    while (nextScriptWord(p, &word)) words.push_back(word);
  }
  if (words.empty()) return 0;
  int rc = processArgs(words, "script");
  if (rc) return rc;
  if (!positional_.empty()) {
    slurmLog(LogLevel::Error, "Invalid directive found in batch script: " + positional_[0]);
    positional_.clear();
    return 255;
  }
  return 0;
}

namespace {

// What glibc's getopt_long prints for a "--" word it refuses: an option
// given an argument it does not take, one missing its argument (both named
// in full, as matched), a prefix several options share ("possibilities",
// in table order: the first match and every later one that differs from
// it), or no option at all.
// sameAs[i] is the index of the first option Slurm gives the same val as
// option i (its aliases: cpu_bind, pack-group, tasks-per-node), else i.
std::string longOptionError(const char* program, const char* word, const std::vector<struct option>& options,
                            const std::vector<size_t>& sameAs, int matchedVal) {
  const std::string rest(word + 2);
  const std::string name = rest.substr(0, rest.find('='));
  if (matchedVal != 0) {
    for (const auto& o : options) {
      if (!o.name || o.val != matchedVal) continue;
      const char* why = rest.find('=') != std::string::npos ? "doesn't allow an argument" : "requires an argument";
      return std::string(program) + ": option '--" + o.name + "' " + why + "\n";
    }
  }
  std::vector<size_t> listed;
  for (size_t i = 0; i < options.size() && options[i].name; i++) {
    if (std::strncmp(options[i].name, name.c_str(), name.size()) != 0) continue;
    if (listed.empty() || options[i].has_arg != options[listed[0]].has_arg || sameAs[i] != sameAs[listed[0]]) listed.push_back(i);
  }
  if (listed.size() > 1) {
    std::string text = std::string(program) + ": option '" + word + "' is ambiguous; possibilities:";
    for (size_t i : listed) text += std::string(" '--") + options[i].name + "'";
    return text + "\n";
  }
  return std::string(program) + ": unrecognized option '" + word + "'\n";
}

}  // namespace

template <typename Visit>
int ClientOptions::scan(const std::vector<std::string>& args, Visit&& visit) {
  std::vector<struct option> longOptions;
  std::vector<size_t> sameAs;
  for (const auto& e : table_) {
    size_t same = longOptions.size();
    for (size_t i = 0; i < same && e.builtin; i++) {
      const BuiltinOption* b = table_[i].builtin;
      if (b && b->hasArg == e.builtin->hasArg && b->shortName == e.builtin->shortName && std::strcmp(b->field, e.builtin->field) == 0) {
        same = sameAs[i];
        break;
      }
    }
    sameAs.push_back(same);
    longOptions.push_back({e.name.c_str(), e.hasArg, nullptr, e.val});
  }
  longOptions.push_back({nullptr, 0, nullptr, 0});

  const char* program = commandName(command_);
  std::vector<std::string> storage;
  storage.reserve(args.size() + 1);
  storage.emplace_back(program);
  for (const auto& a : args) storage.push_back(a);
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  const int argc = static_cast<int>(storage.size());

  optind = 0;  // a full reinitialisation, as Slurm does
  opterr = 0;
  int c, longIndex = -1;
  while ((c = getopt_long(argc, argv.data(), shortOptions_.c_str(), longOptions.data(), &longIndex)) != -1) {
    if (c == '?' || c == ':') {
      // glibc's wording (Slurm leaves opterr set, so getopt_long prints),
      // then the command's own hint.
      const char* word = argv[optind - 1];
      std::string text;
      if (std::strncmp(word, "--", 2) == 0) text = longOptionError(program, word, longOptions, sameAs, optopt);
      else if (optopt == 0) text = std::string(program) + ": unrecognized option '" + word + "'\n";
      else if (std::strchr(shortOptions_.c_str(), optopt))
        text = std::string(program) + ": option requires an argument -- '" + static_cast<char>(optopt) + "'\n";
      else
        text = std::string(program) + ": invalid option -- '" + static_cast<char>(optopt) + "'\n";
      console(text + "Try \"" + program + " --help\" for more information\n");
      return 255;
    }
    const TableEntry* entry = nullptr;
    for (const auto& e : table_)
      if (e.val == c) entry = &e;
    if (!entry) continue;
    if (int rc = visit(*entry, optarg)) return rc;
  }
  // argv[0] is the program name, so the first word left is args[optind - 1].
  size_t first = static_cast<size_t>(optind) - 1;
  positional_.assign(args.begin() + static_cast<long>(std::min(first, args.size())), args.end());
  return 0;
}

int ClientOptions::processArgs(const std::vector<std::string>& args, const char* source) {
  return scan(args, [&](const TableEntry& entry, const char* arg) {
    if (!entry.spank) {
      // --help prints and ends the command at once, where it stands.
      return setBuiltin(*entry.builtin, arg, source);
    }
    // optarg is NULL for flags and for an optional argument not given.
    std::string kept = arg ? arg : "";
    if (runPluginOption(*entry.spank, arg ? kept.c_str() : nullptr, source)) {
      slurmLog(LogLevel::Error, "Invalid --" + entry.name + " argument: " + (arg ? kept : "(null)"));
      return 255;
    }
    return 0;
  });
}

BuiltinSetting* ClientOptions::lastBuiltin(const char* name) {
  BuiltinSetting* found = nullptr;
  for (auto& b : builtins_)
    if (b.name == name) found = &b;
  return found;
}

void ClientOptions::verifyTaskCount() {
  // The values in force: the variables', then the script's, then the
  // command line's, in the order the command read them.
  BuiltinSetting* ntasks = lastBuiltin("ntasks");
  BuiltinSetting* nodes = lastBuiltin("nodes");
  if (!ntasks || !nodes || !ntasks->value || !nodes->value) return;
  long tasks = std::strtol(ntasks->value->c_str(), nullptr, 10);
  std::optional<NodeCountRange> range = nodeCountRange(nodes->value->c_str());
  if (!range || tasks <= 0) return;
  long minNodes = range->min;
  long maxNodes = range->max;
  // No more nodes than tasks.
  if (tasks < maxNodes) maxNodes = tasks;
  if (tasks < minNodes) {
    std::string counts = std::to_string(tasks) + " processes on " + std::to_string(minNodes) +
                         " nodes, setting nnodes to " + std::to_string(tasks);
    // 22.05 says it with info("Warning: ..."), 24.11 with warning().
    if (releases::client(stack_.version()).nodeCountWarning) slurmLog(LogLevel::Warning, "can't run " + counts);
    else slurmLog(LogLevel::Info, "Warning: can't run " + counts);
    minNodes = tasks;
    if (maxNodes && minNodes > maxNodes) maxNodes = minNodes;
    nodes->value = std::to_string(tasks);
    // Set again as on the command line: no longer the environment's.
    if (const BuiltinOption* o = store_ ? findBuiltinOption(command_, stack_.version(), "nodes") : nullptr)
      store_->given(*o, nodes->value->c_str(), /*byEnvironment=*/false, /*quiet=*/true);
    // As -N given now: its maximum too.
    required_.maxNodes = tasks;
    // -w's hosts beyond the new count go, from the end of its sorted list.
    if (required_.counted && commandListed(releases::client(stack_.version()).nodeListTrimmedBy) &&
        static_cast<long>(required_.hosts.size()) > tasks) {
      required_.hosts.resize(static_cast<size_t>(tasks));
      setVerified("nodelist", rangedHosts(required_.hosts));
    }
  }
  if (command_ == Command::Srun) verifyTasksPerNode(tasks, minNodes, maxNodes);
}

void ClientOptions::setVerified(const char* name, const std::string& value) {
  const BuiltinOption* option = store_ ? findBuiltinOption(command_, stack_.version(), name) : nullptr;
  if (option && store_->assign(*option, value.c_str())) builtins_.push_back({name, value, "verify"});
}

bool ClientOptions::isArbitrary() {
  // Set, or assigned by SLURM_HOSTFILE.
  const BuiltinOption* o = findBuiltinOption(command_, stack_.version(), "distribution");
  std::optional<std::string> text = o ? store_->get(*o) : std::nullopt;
  return text && isArbitraryDistribution(*text);
}

bool ClientOptions::assigned(const char* name) const {
  return std::any_of(builtins_.begin(), builtins_.end(),
                     [&](const BuiltinSetting& b) { return b.name == name && b.source == "verify"; });
}

std::optional<std::string> ClientOptions::valueOf(const char* name) const {
  const BuiltinOption* o = findBuiltinOption(command_, stack_.version(), name);
  return o && (store_->isSet(*o) || assigned(name)) ? store_->get(*o) : std::nullopt;
}

bool ClientOptions::given(const char* name) const {
  const BuiltinOption* o = findBuiltinOption(command_, stack_.version(), name);
  if (!o || !store_->isSet(*o)) return false;
  // srun with -m arbitrary: what the environment set no longer counts.
  return !(std::strcmp(name, "ntasks") == 0 ? envCounts_.tasks : std::strcmp(name, "nodes") == 0 && envCounts_.nodes);
}

void ClientOptions::dropEnvironmentCounts() {
  if (command_ != Command::Srun || !isArbitrary()) return;
  const auto byEnvironment = [&](const char* name) {
    const BuiltinOption* o = findBuiltinOption(command_, stack_.version(), name);
    return o && store_->isSet(*o) && store_->setByEnvironment(*o);
  };
  envCounts_ = {byEnvironment("ntasks"), byEnvironment("nodes")};
}

int ClientOptions::readNodeListFiles(int errorExit) {
  const auto& rules = releases::client(stack_.version());
  // --nodefile's hosts (the shared checks refused a file they cannot take).
  if (std::optional<std::string> file = valueOf("nodefile")) {
    HostFile read = readHostFile(*file, 0, rules.hostFileLimitPerHost);
    if (read.ok()) setVerified("nodelist", rangedHosts(read.hosts));
  }
  std::optional<std::string> list = valueOf("nodelist");
  bool fromEnvironment = false;
  if (!list) {
    const char* hostfile = std::getenv("SLURM_HOSTFILE");
    if (!hostfile) return 0;
    // A name without '/' is a file in the working directory all the same.
    list = std::strchr(hostfile, '/') ? std::string(hostfile) : "./" + std::string(hostfile);
    fromEnvironment = true;
    // The distribution becomes arbitrary, its pack flag kept.
    std::optional<std::string> before = given("distribution") ? valueOf("distribution") : std::nullopt;
    std::optional<TaskDistribution> old = before ? parseTaskDistribution(before->c_str(), nullptr) : std::nullopt;
    std::string text = "arbitrary";
    if (old && (old->value & kDistPackNodes)) text += ",pack";
    if (old && (old->value & kDistNoPackNodes)) text += ",nopack";
    setVerified("distribution", text);
  }
  if (list->find('/') == std::string::npos) return 0;
  if (int status = readListFile("nodelist", *list, errorExit)) {
    if (fromEnvironment) slurmLog(LogLevel::Error, "Failure getting NodeNames from hostfile");
    return status;
  }
  return 0;
}

int ClientOptions::readListFile(const char* name, const std::string& file, int errorExit) {
  const auto& rules = releases::client(stack_.version());
  // _valid_node_list: with -m arbitrary exactly as many hosts as -n asks
  // for (or -N's maximum, else its minimum), otherwise the whole file.
  int limit = kReadAllHosts;
  if (isArbitrary()) {
    if (given("ntasks")) limit = static_cast<int>(std::strtol(valueOf("ntasks")->c_str(), nullptr, 10));
    else if (given("nodes"))
      if (std::optional<NodeCountRange> r = nodeCountRange(valueOf("nodes")->c_str()))
        limit = static_cast<int>(r->max ? r->max : r->min);
  }
  HostFile read = readHostFile(file, limit, rules.hostFileLimitPerHost);
  if (!read.ok()) {
    for (const auto& line : read.errors) slurmLog(LogLevel::Error, line);
    return std::strcmp(rules.hostFileFailureExit, "1") == 0 && std::strcmp(name, "nodelist") == 0 ? 1 : errorExit;
  }
  setVerified(name, rangedHosts(read.hosts));
  return 0;
}

int ClientOptions::readExcludeFile(int errorExit) {
  std::optional<std::string> exclude = valueOf("exclude");
  return exclude && exclude->find('/') != std::string::npos ? readListFile("exclude", *exclude, errorExit) : 0;
}

int ClientOptions::verifyNodeList(int errorExit) {
  if (!store_) return 0;
  const auto& rules = releases::client(stack_.version());
  envCounts_ = {};
  arbitraryHosts_.clear();
  arbitraryNodes_.clear();
  arbitraryReqNodes_.clear();
  arbitraryFromEnvironment_ = false;
  // -x naming a file is read as -w's (22.05: before the node list's
  // files; 24.11's srun, salloc and sbatch: after, which the shared checks read).
  if (!rules.nodeListFirst) {
    dropEnvironmentCounts();
    if (int status = readExcludeFile(errorExit)) return status;
  }
  if (int status = readNodeListFiles(errorExit)) return status;
  if (rules.nodeListFirst) {
    dropEnvironmentCounts();
    if (int status = readExcludeFile(errorExit)) return status;
  }
  if (!isArbitrary()) return 0;
  const bool tasksSet = given("ntasks");
  const bool nodesSet = given("nodes");
  std::optional<std::string> nodelist = valueOf("nodelist");
  // 24.11 leaves a list with '{' (another syntax) alone.
  const bool skipped = rules.arbitrarySkipsBrace && nodelist && nodelist->find('{') != std::string::npos;
  const libslurm::HostlistRules& hostRules =
      libslurm::hostlistRules(static_cast<libslurm::Release>(releaseIndex(stack_.version())));
  // No list is an empty one (hostlist_create(NULL)).
  libslurm::HostList list;
  if (nodelist && !skipped && !libslurm::parseAndLog(list, nodelist->c_str(), hostRules)) {
    // A list the hostlist refuses: 24.11's fatal; 22.05's salloc and sbatch
    // fail where they count it for -N. 22.05's srun counts no tasks in it
    // (its real one then crashes; plugstack ends on the task count below).
    if (rules.nodeListFatal) {
      slurmLog(LogLevel::Error, "Invalid node list specified", /*fatal=*/true);
      return 1;
    }
    if (command_ != Command::Srun) {
      slurmLog(LogLevel::Error, "memory allocation failure");
      return errorExit;
    }
  }
  libslurm::HostList distinct = list;
  distinct.uniq();
  // The hosts the step is laid out from (arbitraryHosts()): srun's own
  // list, else, inside a job, the one the job was given.
  libslurm::HostList jobHosts;
  const char* jobList = std::getenv("SLURM_ARBITRARY_NODELIST");
  if (!nodelist && command_ == Command::Srun && jobList && libslurm::parseAndLog(jobHosts, jobList, hostRules)) arbitraryFromEnvironment_ = true;
  libslurm::HostList jobDistinct = jobHosts;
  jobDistinct.uniq();
  const libslurm::HostList& laid = arbitraryFromEnvironment_ ? jobHosts : list;
  const libslurm::HostList& laidDistinct = arbitraryFromEnvironment_ ? jobDistinct : distinct;
  std::string host;
  for (int i = 0; laid.nth(i, &host); i++) arbitraryHosts_.push_back(host);
  for (int i = 0; laidDistinct.nth(i, &host); i++) arbitraryNodes_.push_back(host);
  arbitraryReqNodes_ = rules.reqNodesKeepRepeats ? laid.ranged() : laidDistinct.ranged();
  // opt.ntasks as it stands: what -n (or the environment) gave, else 1.
  std::optional<std::string> ntasks = valueOf("ntasks");
  long tasks = ntasks ? std::strtol(ntasks->c_str(), nullptr, 10) : 1;
  if ((!tasksSet || !nodesSet) && !skipped) {
    if (!tasksSet) {
      // salloc and sbatch of 22.05 count the list they made uniq for -N.
      bool unique = command_ != Command::Srun && rules.arbitraryCountsUnique && nodelist;
      tasks = unique ? distinct.count() : list.count();
      setVerified("ntasks", std::to_string(tasks));
    }
    if (!nodesSet) setVerified("nodes", std::to_string(distinct.count()));
  }
  // srun's check for realistic arguments.
  if (command_ == Command::Srun && tasks <= 0) {
    slurmLog(LogLevel::Error, "invalid number of tasks (-n " + std::to_string(tasks) + ")");
    return errorExit;
  }
  return 0;
}

bool ClientOptions::commandListed(const char* commands) const {
  for (const std::string& c : commaItems(commands))
    if (c == commandName(command_)) return true;
  return false;
}

int ClientOptions::verifyRequiredNodes(int errorExit) {
  required_ = {};
  if (!store_) return 0;
  if (isArbitrary()) {
    // -m arbitrary's own list (not the job's SLURM_ARBITRARY_NODELIST): its
    // distinct hosts are the job's required nodes all the same.
    if (!arbitraryNodes_.empty() && !arbitraryFromEnvironment_) {
      required_.listed = required_.parsed = true;
      required_.hosts = arbitraryNodes_;
      if (std::optional<std::string> nodes = valueOf("nodes"))
        if (std::optional<NodeCountRange> range = nodeCountRange(nodes->c_str())) required_.maxNodes = range->max;
    }
    return 0;
  }
  std::optional<std::string> nodelist = valueOf("nodelist");
  if (!nodelist) return 0;
  const auto& rules = releases::client(stack_.version());
  const libslurm::HostlistRules& hostRules =
      libslurm::hostlistRules(static_cast<libslurm::Release>(releaseIndex(stack_.version())));
  // 24.11's hostlist functions ("{...}") are not emulated: slurmctld's to read.
  if (!rules.nodeListCountsWithNodes && nodelist->find('{') != std::string::npos) return 0;
  const bool nodesGiven = given("nodes");
  std::optional<NodeCountRange> range;
  if (std::optional<std::string> nodes = valueOf("nodes")) range = nodeCountRange(nodes->c_str());
  // 24.11 counts the list only when -N was not given.
  required_.counted = rules.nodeListCountsWithNodes || !nodesGiven;
  // 22.05's srun: no more hosts than -N's maximum, the last ones dropped.
  if (commandListed(rules.nodeListTrimmedToMaxBy) && range && range->max > 0) {
    libslurm::HostList asGiven;
    if (libslurm::parseAndLog(asGiven, nodelist->c_str(), hostRules) && asGiven.count() > range->max) {
      slurmLog(LogLevel::Error, "Required nodelist includes more nodes than permitted by max-node count (" +
                                    std::to_string(asGiven.count()) + " > " + std::to_string(range->max) +
                                    "). Eliminating nodes from the nodelist.");
      std::string dropped;
      while (asGiven.count() > range->max && asGiven.pop(&dropped)) {
      }
      nodelist = asGiven.ranged();
      setVerified("nodelist", *nodelist);
    }
  }
  required_.listed = true;
  required_.maxNodes = range ? range->max : 0;
  // 24.11's srun with -N (and neither -n nor --ntasks-per-node) still
  // reads the list where it makes one task a node.
  const bool readsForTasks = command_ == Command::Srun && range && (range->min == range->max || range->max == 0) &&
                        !given("ntasks") && !given("ntasks-per-node");
  libslurm::HostList list;
  if (!required_.counted && !readsForTasks) {
    // Left for the job request, which slurmctld refuses.
    if (!list.parse(nodelist->c_str(), hostRules)) return 0;
  } else if (!libslurm::parseAndLog(list, nodelist->c_str(), hostRules)) {
    if (rules.nodeListFatal) {
      slurmLog(LogLevel::Error, "Invalid node list specified", /*fatal=*/true);
      return 1;
    }
    slurmLog(LogLevel::Error, "memory allocation failure");
    return errorExit;
  }
  required_.parsed = true;
  list.uniq();
  std::string host;
  for (int i = 0; list.nth(i, &host); i++) required_.hosts.push_back(host);
  if (!required_.counted) return 0;
  long count = list.count();
  long minNodes = nodesGiven && range ? std::max(count, range->min) : count;
  if (nodesGiven && range && minNodes == range->min) return 0;
  long maxNodes = nodesGiven && range ? range->max : 0;
  // The list raised the minimum past -N's maximum (22.05's salloc and
  // sbatch; its srun trimmed the list first).
  if (maxNodes && minNodes > maxNodes) {
    slurmLog(LogLevel::Error, "invalid number of nodes (-N " + std::to_string(minNodes) + "-" + std::to_string(maxNodes) + ")");
    return errorExit;
  }
  setVerified("nodes", maxNodes > minNodes ? std::to_string(minNodes) + "-" + std::to_string(maxNodes) : std::to_string(minNodes));
  return 0;
}

void ClientOptions::verifyTasksPerNode(long tasks, long minNodes, long maxNodes) {
  BuiltinSetting* perNodeSetting = lastBuiltin("ntasks-per-node");
  if (!perNodeSetting || !perNodeSetting->value || !store_) return;
  long perNode = std::strtol(perNodeSetting->value->c_str(), nullptr, 10);
  const BuiltinOption* perNodeOption = findBuiltinOption(command_, stack_.version(), "ntasks-per-node");
  const BuiltinOption* ntasksOption = findBuiltinOption(command_, stack_.version(), "ntasks");
  const BuiltinOption* nodesOption = findBuiltinOption(command_, stack_.version(), "nodes");
  if (!perNodeOption || !ntasksOption || !nodesOption) return;
  const auto& rules = releases::client(stack_.version());
  const std::string counts = "can't honor --ntasks-per-node set to " + std::to_string(perNode) +
                             " which doesn't match the requested tasks " + std::to_string(tasks);
  if (rules.envNtasksYieldsToNtasksPerNode && store_->setByEnvironment(*ntasksOption) &&
      !store_->setByEnvironment(*nodesOption)) {
    // The tasks become --ntasks-per-node times the nodes.
    store_->reset(*ntasksOption);
  } else if (rules.ntasksPerNodeAgainstMaximum) {
    // Inside a job only: a new job's request is slurmctld's to refuse.
    if (maxNodes && tasks > maxNodes * perNode && std::getenv("SLURM_JOB_ID")) {
      slurmLog(LogLevel::Warning, counts + " with the maximum number of requested nodes " + std::to_string(maxNodes) +
                                      ". Ignoring --ntasks-per-node.");
      store_->reset(*perNodeOption);
    }
  } else if (minNodes && perNode != tasks / minNodes) {
    if (tasks > perNode)
      slurmLog(LogLevel::Info, "Warning: " + counts + " with the number of requested nodes " + std::to_string(minNodes) +
                                   ". Ignoring --ntasks-per-node.");
    store_->reset(*perNodeOption);
  }
}

int ClientOptions::verifyX11() {
  if (command_ == Command::Sbatch) return 0;
  bool x11 = false;
  for (const auto& b : builtins_) x11 = x11 || b.name == "x11";
  if (!x11) return 0;
  const char* display = std::getenv("DISPLAY");
  if (!display) {
    slurmLog(LogLevel::Error, "No DISPLAY variable set, cannot setup x11 forwarding.");
    return 255;
  }
  std::string d = display;
  if (!d.empty() && d[0] == ':') {
    // ":N[.S]": the local socket of display N.
    std::string socket = "/tmp/.X11-unix/X" + d.substr(1, d.find('.') == std::string::npos ? std::string::npos : d.find('.') - 1);
    struct stat st;
    if (stat(socket.c_str(), &st) != 0) {
      slurmLog(LogLevel::Error, "Cannot stat() local X11 socket `" + socket + "`");
      return 255;
    }
    return 0;
  }
  if (d.find(':') == std::string::npos) {
    slurmLog(LogLevel::Error, "Error parsing DISPLAY environment variable. Cannot use X11 forwarding.");
    return 255;
  }
  return 0;
}

ClientOptions::FirstPass ClientOptions::firstPass(const std::vector<std::string>& args) {
  FirstPass pass;
  pass.status = scan(args, [&](const TableEntry& entry, const char* arg) {
    if (!entry.builtin) return 0;
    // Slurm's first pass sets every built-in option it finds, as if from the
    // environment (so that its early-pass filter lets each through); those
    // not reset each pass are still set when the second pass starts.
    if (store_) store_->given(*entry.builtin, arg, /*byEnvironment=*/true, /*quiet=*/true);
    if (std::strcmp(entry.builtin->name, "wrap") == 0 && arg) pass.wrap = arg;
    if (std::strcmp(entry.builtin->name, "help") == 0) pass.help = true;
    return 0;
  });
  pass.positional = positional_;
  positional_.clear();
  return pass;
}

}  // namespace plugstack
