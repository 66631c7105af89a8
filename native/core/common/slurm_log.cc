#include "common/slurm_log.h"

#include "common/events.h"
#include "common/hook_scope.h"

namespace plugstack {

const char* logLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::Error: return "error";
    case LogLevel::Info: return "info";
    case LogLevel::Verbose: return "verbose";
    case LogLevel::Debug: return "debug";
    case LogLevel::Debug2: return "debug2";
    case LogLevel::Debug3: return "debug3";
  }
  return "info";
}

void slurmLog(LogLevel level, const std::string& text) {
  emitEvent({{"t", "log"}, {"source", "slurm"}, {"level", logLevelName(level)}, {"msg", text}});
}

void pluginLog(LogLevel level, const std::string& text, bool spankLog) {
  json::Object ev{{"t", "log"}, {"source", "plugin"}, {"level", logLevelName(level)},
                  {"msg", text}};
  if (spankLog) ev.emplace_back("bare", true);
  if (HookScope::currentRef() >= 0) {
    ev.emplace_back("ref", HookScope::currentRef());
    ev.emplace_back("hook", HookScope::currentHook());
  }
  emitEvent(std::move(ev));
}

}  // namespace plugstack
