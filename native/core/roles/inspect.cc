// The inspect role: what one context of Slurm would make of a plugstack.conf.
#include <unistd.h>

#include <cstdlib>

#include "rules/builtin_options.h"
#include "common/events.h"
#include "spank/help_format.h"
#include "common/problem.h"
#include "common/slurm_log.h"
#include "spank/stack.h"
#include "roles/role.h"
#include "roles/stack_request.h"
#include "protocol/messages.h"

namespace plugstack {

namespace {

// The commands that build an option table in each context, and so may
// find a plugin option clashing with one of their own.
std::vector<Command> commandsOf(Context c) {
  switch (c) {
    case Context::Local: return {Command::Srun};
    case Context::Allocator: return {Command::Sbatch, Command::Salloc};
    default: return {};
  }
}

bool runsInit(Context c) { return c != Context::JobScript; }

// A stand-in for the step slurmstepd would be running: init in remote
// context sees a real step record (job 1, step 0, one task of /bin/true).
StepRecord inspectionStep() {
  StepRecord step;
  step.jobId = 1;
  step.stepId = 0;
  step.uid = getuid();
  step.gid = getgid();
  step.setArgv({"/bin/true"});
  TaskRecord task;
  task.id = 0;
  task.gtid = 0;
  task.setArgv(step.argvStore);
  step.tasks.push_back(std::move(task));
  return step;
}

// Applies the command's option table to the cache: disabled options and
// clashes with the command's own long options are left out of --help.
void reportHelp(Stack& stack, Command command, int columns) {
  std::vector<HelpOption> help;
  for (auto& opt : stack.options().entries()) {
    bool shown = !opt.disabled;
    if (shown && findBuiltinOption(command, stack.version(), opt.name)) {
      shown = false;
      const char* pluginName = opt.plugin->name ? opt.plugin->name : "";
      slurmLog(LogLevel::Error, "Ignoring conflicting option \"" + opt.name + "\" in plugin \"" +
                                    pluginName + "\"");
      Diagnostic d;
      d.code = "OPTION_CONFLICT";
      d.message = "option --" + opt.name + " of plugin " + opt.plugin->basename() +
                  " has the name of one of " + commandName(command) +
                  "'s own options; " + commandName(command) + " disables it";
      d.file = opt.plugin->file;
      d.line = opt.plugin->line;
      reportProblem(d, {{"ref", opt.plugin->ref}, {"option", opt.name},
                        {"command", commandName(command)}});
    }
    if (shown && !opt.usage) {
      Diagnostic d;
      d.code = "OPTION_NULL_USAGE";
      d.message = "option --" + opt.name + " of plugin " + opt.plugin->basename() +
                  " has a NULL usage string; " + commandName(command) +
                  " --help crashes on it (strlcpy of NULL)";
      d.file = opt.plugin->file;
      d.line = opt.plugin->line;
      reportProblem(d, {{"ref", opt.plugin->ref}, {"option", opt.name},
                        {"command", commandName(command)}});
    }
    help.push_back({opt.name, opt.arginfo, opt.usage, shown});
  }
  emitEvent({{"t", msg::kHelp},
             {"command", commandName(command)},
             {"text", formatPluginHelp(help, columns)}});
}

}  // namespace

int runInspectRole(Channel& channel, const json::Value& request) {
  (void)channel;
  StackSettings settings;
  std::string error;
  if (!request["conf"].isString() || !readStackSettings(request, &settings, &error)) {
    emitEvent({{"t", msg::kFatal},
               {"message", error.empty() ? "request.conf must be a path" : error}});
    return 2;
  }
  const std::string conf = request["conf"].asString();

  ParsedConf parsed = parsePlugstackConf(conf);
  emitEvent({{"t", msg::kConf}, {"path", conf}, {"missing", parsed.missing}});

  bool ok;
  int initRc = 0;
  bool anyProlog = false, anyEpilog = false;
  {
    Stack stack(settings);
    Stack::setCurrent(&stack);
    ok = stack.load(parsed);
    // A scan is what slurmd does with the file at start, short of init:
    // which plugins load and whether any has a job prolog or epilog.
    const bool scanOnly = request["scanOnly"].isBool() && request["scanOnly"].asBool();
    if (ok && runsInit(settings.context) && !scanOnly) {
      StepRecord step = inspectionStep();
      void* job = settings.context == Context::Remote ? &step : nullptr;
      initRc = stack.callPass(Phase::Init, job, nullptr).rc;
      ok = !stack.isFailure(initRc);
    }
    if (ok && !scanOnly) {
      const char* columnsEnv = std::getenv("COLUMNS");
      for (Command c : commandsOf(settings.context))
        reportHelp(stack, c, helpColumns(columnsEnv));
    }
    anyProlog = stack.anyJobProlog();
    anyEpilog = stack.anyJobEpilog();
    // The stack is destroyed here: fini() and dlclose of every plugin, in
    // config order, still reported as hook calls.
  }
  emitEvent({{"t", msg::kDone},
             {"ok", ok},
             {"initRc", initRc},
             {"anyJobProlog", anyProlog},
             {"anyJobEpilog", anyEpilog}});
  return 0;
}

}  // namespace plugstack
