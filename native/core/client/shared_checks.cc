#include "client/shared_checks.h"

#include <strings.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "client/host_file.h"
#include "common/comma_list.h"
#include "common/slurm_log.h"
#include "rules/releases.h"
#include "rules/task_distribution.h"

namespace plugstack {

namespace {

// How a check ends the command: fatal() ("<cmd>: fatal: ...", exit(1)), or
// error() and exit(status).
struct Stop {
  std::string message;
  bool fatal = true;
  int status = 1;
};
using Outcome = std::optional<Stop>;

Outcome fatal(std::string message) { return Stop{std::move(message), true, 1}; }

// The command's options as the checks read them.
class Options {
 public:
  Options(OptionStore& store, const SharedCheckSettings& settings)
      : store(store), settings(settings), version(store.version()), command(store.command()) {
    const BuiltinOption* v = store.find("verbose");
    verbose = v ? std::atoi(store.get(*v).value_or("0").c_str()) : 0;
  }

  bool isSet(const char* name) const {
    const BuiltinOption* o = store.find(name);
    return o && store.isSet(*o);
  }
  bool byEnv(const char* name) const {
    const BuiltinOption* o = store.find(name);
    return o && store.setByEnvironment(*o);
  }
  bool byCli(const char* name) const { return isSet(name) && !byEnv(name); }
  // The value its getter prints when set (NULL otherwise).
  std::optional<std::string> value(const char* name) const {
    const BuiltinOption* o = store.find(name);
    if (!o || !store.isSet(*o)) return std::nullopt;
    return store.get(*o);
  }
  long number(const char* name) const {
    auto v = value(name);
    return v ? std::strtol(v->c_str(), nullptr, 10) : 0;
  }
  // slurm_option_reset, for one that is set (an unset one is as reset).
  void reset(const char* name) {
    const BuiltinOption* o = store.find(name);
    if (o && store.isSet(*o)) store.reset(*o);
  }
  // info() that Slurm writes only with -v (level 1) or -vv (2).
  void info(int level, const std::string& text) const {
    if (verbose >= level) slurmLog(LogLevel::Info, text);
  }

  OptionStore& store;
  const SharedCheckSettings& settings;
  const SlurmVersion& version;
  Command command;
  int verbose = 0;
};

bool containsNoCase(const std::string& hay, const std::string& needle) {
  for (size_t i = 0; i + needle.size() <= hay.size(); i++)
    if (strncasecmp(hay.c_str() + i, needle.c_str(), needle.size()) == 0) return true;
  return false;
}

// What --ntasks-per-gpu and --ntasks-per-tres do not go with: each given on
// the command line, then by the environment, is fatal.
struct NtasksPerGpuRival {
  const char* option;
  const char* cli;  // how Slurm names it
  const char* env;
  bool tresPerTask;  // only where ntasksPerGpuRefusesTresPerTask
};
constexpr NtasksPerGpuRival kNtasksPerGpuRivals[] = {
    {"tres-per-task", "--tres-per-task", "SLURM_TRES_PER_TASK", true},
    {"gpus-per-task", "--gpus-per-task", "SLURM_GPUS_PER_TASK", false},
    {"gpus-per-socket", "--gpus-per-socket", "SLURM_GPUS_PER_SOCKET", false},
    {"ntasks-per-node", "--ntasks-per-node", "SLURM_NTASKS_PER_NODE", false},
};

Outcome ntasksPerGpu(Options& o) {
  bool tres = o.byCli("ntasks-per-tres"), gpu = o.byCli("ntasks-per-gpu");
  bool tresEnv = o.byEnv("ntasks-per-tres"), gpuEnv = o.byEnv("ntasks-per-gpu");
  if (!tres && !gpu && !tresEnv && !gpuEnv) return std::nullopt;
  long perGpu = o.number("ntasks-per-gpu"), perTres = o.number("ntasks-per-tres");
  if (gpu && tres) {
    if (perGpu != perTres)
      return fatal("Inconsistent values set to --ntasks-per-gpu=" + std::to_string(perGpu) +
                   " and --ntasks-per-tres=" + std::to_string(perTres) + " ");
  } else if (gpu && tresEnv) {
    o.info(1, "Ignoring SLURM_NTASKS_PER_TRES since --ntasks-per-gpu given as command line option");
    o.reset("ntasks-per-tres");
  } else if (tres && gpuEnv) {
    o.info(1, "Ignoring SLURM_NTASKS_PER_GPU since --ntasks-per-tres given as command line option");
    o.reset("ntasks-per-gpu");
  } else if (gpuEnv && tresEnv && perGpu != perTres) {
    return fatal("Inconsistent values set by environment variables SLURM_NTASKS_PER_GPU=" + std::to_string(perGpu) +
                 " and SLURM_NTASKS_PER_TRES=" + std::to_string(perTres) + " ");
  }
  const bool refusesTres = releases::client(o.version).ntasksPerGpuRefusesTresPerTask;
  for (const auto& r : kNtasksPerGpuRivals) {
    if (r.tresPerTask && !refusesTres) continue;
    const char* suffix = " is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU";
    if (o.byCli(r.option)) return fatal(std::string(r.cli) + suffix);
    if (o.byEnv(r.option)) return fatal(std::string(r.env) + suffix);
  }
  return std::nullopt;
}

Outcome specCores(Options& o) {
  if (!o.isSet("thread-spec") && !o.isSet("core-spec")) return std::nullopt;
  int cli = o.byCli("core-spec") + o.byCli("thread-spec");
  int env = o.byEnv("core-spec") + o.byEnv("thread-spec");
  // (Slurm's message has the typo.)
  if (cli > 1) return fatal("-S/--core-spec and --thred-spec options are mutually exclusive");
  if (env > 1 && cli == 0)
    return fatal("Both --core-spec and --thread-spec set using environment variables. Those options are mutually exclusive.");
  if (!o.settings.allowSpecResources) {
    // Both write one field; the one set last is what it holds.
    const BuiltinOption* thread = o.store.find("thread-spec");
    const BuiltinOption* core = o.store.find("core-spec");
    bool threads = thread && core && o.store.setAfter(*thread, *core);
    slurmLog(LogLevel::Error, std::string("Ignoring ") + (threads ? "--thread-spec" : "-S") +
                                  " since it's not allowed by configuration (AllowSpecResourcesUsage = No)");
  }
  return std::nullopt;
}

// srun's --cpu-bind default for --threads-per-core (only the lines:
// plugstack binds no CPUs).
Outcome threadsPerCore(Options& o) {
  if (!o.isSet("threads-per-core")) return std::nullopt;
  std::optional<std::string> bind = o.value("cpu-bind");
  bool verboseOnly = false;
  if (bind && o.command == Command::Srun) {
    verboseOnly = releases::client(o.version).cpuBindVerboseAbbrev
                      ? (strcasecmp(bind->c_str(), "verbose") == 0 || strcasecmp(bind->c_str(), "v") == 0)
                      : *bind == "verbose";
  }
  if (!o.isSet("cpu-bind"))
    o.info(1, "Setting --cpu-bind=threads as a default of --threads-per-core use");
  else if (verboseOnly)
    o.info(1, "Setting --cpu-bind=threads,verbose as a default of --threads-per-core use");
  else
    o.info(2, "Not setting --cpu-bind=threads because of --threads-per-core since --cpu-bind already set by cli option or environment variable");
  return std::nullopt;
}

// --mem, --mem-per-cpu and --mem-per-gpu: one on the command line drops the
// others the environment gave.
Outcome memory(Options& o) {
  static const char* const kMem[] = {"mem", "mem-per-cpu", "mem-per-gpu"};
  int cli = 0, env = 0;
  for (const char* m : kMem) {
    cli += o.byCli(m);
    env += o.byEnv(m);
  }
  if (cli > 1) return fatal("--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.");
  if (cli == 1) {
    for (const char* given : kMem)
      if (o.byCli(given))
        for (const char* other : kMem)
          if (other != given) o.reset(other);
  } else if (env > 1) {
    return fatal("SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU, and SLURM_MEM_PER_NODE are mutually exclusive.");
  }
  if (releases::client(o.version).memoryNotConsumableInfo && !o.settings.memoryConsumable) {
    if (o.isSet("mem-per-cpu"))
      o.info(1, "Configured SelectTypeParameters doesn't treat memory as a consumable resource. In this case value of --mem-per-cpu is only used to eliminate nodes with lower configured RealMemory value.");
    else if (o.isSet("mem-per-gpu"))
      o.info(1, "Configured SelectTypeParameters doesn't treat memory as a consumable resource. In this case value of --mem-per-gpu is ignored.");
  }
  return std::nullopt;
}

Outcome share(Options& o) {
  if (o.byCli("exclusive") && o.byCli("oversubscribe"))
    return fatal("--exclusive and --oversubscribe options are mutually exclusive");
  return std::nullopt;
}

// TRES a task cannot ask for, in the order Slurm looks for them: at the
// start of --tres-per-task or after a comma, in any case.
constexpr const char* kNotPerTask[] = {"mem", "energy", "node", "billing", "fs", "vmem", "pages", "bb"};

// --tres-per-task's cpu= (or gres/gpu...=) entry against -c (or
// --gpus-per-task): the command line may not give both.
Outcome tresSibling(Options& o, const std::string& tpt, const char* option, const std::string& name) {
  size_t at = std::string::npos;
  for (size_t i = 0; i + name.size() <= tpt.size() && at == std::string::npos; i++)
    if (strncasecmp(tpt.c_str() + i, name.c_str(), name.size()) == 0) at = i;
  if (at == std::string::npos) return std::nullopt;
  if (o.byCli(option) && o.byCli("tres-per-task"))
    return fatal("You can not have --tres-per-task=" + name + "= and --" + option + " please use one or the other");
  if (o.byCli(option) && o.byEnv("tres-per-task")) return std::nullopt;
  size_t from = at + name.size() + 1;
  int count = from <= tpt.size() ? std::atoi(tpt.c_str() + from) : 0;
  if (count <= 0) return fatal("Invalid --tres-per-task=" + name + "=" + std::to_string(count));
  return std::nullopt;
}

Outcome tresPerTask(Options& o) {
  std::optional<std::string> tpt = o.value("tres-per-task");
  if (!tpt) return std::nullopt;
  for (const char* t : kNotPerTask) {
    std::string name = t;
    if (strncasecmp(tpt->c_str(), t, name.size()) == 0 || containsNoCase(*tpt, "," + name))
      return fatal("Invalid TRES for --tres-per-task: " + name);
  }
  // --gpus-per-task's entry is gres/gpu, with its type when it has one.
  if (std::optional<std::string> gpt = o.value("gpus-per-task")) {
    std::string name = "gres/gpu";
    size_t sep = gpt->find(':');
    if (sep == std::string::npos) sep = gpt->find('=');
    if (sep != std::string::npos) name += ":" + gpt->substr(0, sep);
    if (auto stop = tresSibling(o, *tpt, "gpus-per-task", name)) return stop;
  }
  return tresSibling(o, *tpt, "cpus-per-task", "cpu");
}

Outcome cpusPerTres(Options& o) {
  std::optional<std::string> tpt = o.value("tres-per-task");
  bool cpuInTpt = (tpt && containsNoCase(*tpt, "cpu")) || o.isSet("cpus-per-task");
  bool cptCli = o.byCli("cpus-per-task") || (cpuInTpt && o.byCli("tres-per-task"));
  bool cptEnv = o.byEnv("cpus-per-task") || (cpuInTpt && o.byEnv("tres-per-task"));
  if ((cptCli && o.byCli("cpus-per-gpu")) || (cptEnv && o.byEnv("cpus-per-gpu")))
    return fatal("--cpus-per-task, --tres-per-task=cpu:#, and --cpus-per-gpu are mutually exclusive");
  if (cptCli && o.byEnv("cpus-per-gpu")) {
    const char* env = o.command == Command::Salloc   ? "SALLOC_CPUS_PER_GPU"
                      : o.command == Command::Sbatch ? "SBATCH_CPUS_PER_GPU"
                                                     : "SLURM_CPUS_PER_GPU";
    o.info(1, std::string("Ignoring ") + env + " since --cpus-per-task or --tres-per-task=cpu:# given as command line option");
    o.reset("cpus-per-gpu");
  } else if (o.byCli("cpus-per-gpu") && cptEnv) {
    o.info(1, "Ignoring cpus_per_task from the environment since --cpus-per-gpu was given as a command line option");
    o.reset("cpus-per-task");
  }
  return std::nullopt;
}

// -m arbitrary lays the tasks out from the node list: a node count given
// on the command line is an error (exit(1)).
Outcome arbitrary(Options& o) {
  std::optional<std::string> dist = o.value("distribution");
  if (!dist || !isArbitraryDistribution(*dist)) return std::nullopt;
  if (!o.isSet("nodes") || o.byEnv("nodes")) return std::nullopt;
  return Stop{"--nodes is incompatible with --distribution=arbitrary", false, 1};
}

// --nodefile is read before the job is asked for: a file it cannot take
// is an error and exit(-1). (24.11 does it here; 22.05 a little later in
// each command's own checks, with the same lines.)
Outcome nodefile(Options& o) {
  std::optional<std::string> file = o.value("nodefile");
  if (!file) return std::nullopt;
  HostFile read = readHostFile(*file, 0, releases::client(o.version).hostFileLimitPerHost);
  if (!read.ok()) {
    for (const auto& line : read.errors) slurmLog(LogLevel::Error, line);
    return Stop{"Invalid --nodefile node file", false, 255};
  }
  return std::nullopt;
}

// --gres-flags=one-task-per-sharing needs a shared GRES (mps, shard) among
// --tres-per-task's gres entries.
Outcome gresFlags(Options& o) {
  std::optional<std::string> flags = o.value("gres-flags");
  if (!flags || !containsNoCase(*flags, "one-task-per-sharing")) return std::nullopt;
  std::string tpt = o.value("tres-per-task").value_or("");
  for (const std::string& entry : commaItems(tpt)) {
    if (entry.compare(0, 5, "gres/") != 0 && entry.compare(0, 5, "gres:") != 0) continue;
    std::string name = entry.substr(5, entry.find_first_of(":=", 5) - 5);
    if (name == "mps" || name == "shard") return std::nullopt;
  }
  return fatal("--gres-flags=one-task-per-sharing requested, but that shared gres needs to appear in --tres-per-task as well.");
}

struct NamedCheck {
  const char* name;  // as releases.json's sharedChecks lists it
  Outcome (*run)(Options&);
};
constexpr NamedCheck kChecks[] = {
    {"ntasks-per-gpu", ntasksPerGpu}, {"spec-cores", specCores}, {"threads-per-core", threadsPerCore},
    {"memory", memory},               {"share", share},          {"tres-per-task", tresPerTask},
    {"cpus-per-tres", cpusPerTres},   {"nodefile", nodefile},    {"arbitrary", arbitrary},
    {"gres-flags", gresFlags},
};

}  // namespace

int validateSharedOptions(OptionStore& store, const SharedCheckSettings& settings) {
  Options o(store, settings);
  std::string list = releases::client(store.version()).sharedChecks;
  for (const std::string& name : commaItems(list)) {
    for (const auto& c : kChecks) {
      if (name != c.name) continue;
      if (Outcome stop = c.run(o)) {
        slurmLog(LogLevel::Error, stop->message, stop->fatal);
        return stop->status;
      }
    }
  }
  return 0;
}

}  // namespace plugstack
