#include "common/slurm_log.h"

#include "common/events.h"
#include "common/hook_scope.h"
#include "protocol/messages.h"

namespace plugstack {

const char* logLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::Error: return "error";
    case LogLevel::Warning: return "warning";
    case LogLevel::Info: return "info";
    case LogLevel::Verbose: return "verbose";
    case LogLevel::Debug: return "debug";
    case LogLevel::Debug2: return "debug2";
    case LogLevel::Debug3: return "debug3";
  }
  return "info";
}

void slurmLog(LogLevel level, const std::string& text, bool fatal) {
  Event ev(msg::kLog);
  ev.add("source", "slurm").add("level", fatal ? "fatal" : logLevelName(level)).add("msg", text);
  if (level == LogLevel::Error) ev.urgent();
  emitEvent(ev);
}

void pluginLog(LogLevel level, const std::string& text, bool spankLog) {
  // Sent at once: a plugin's last words before a crash are worth keeping.
  Event ev(msg::kLog);
  ev.add("source", "plugin").add("level", logLevelName(level)).add("msg", text);
  if (spankLog) ev.add("bare", true);
  if (HookScope::currentRef() >= 0) ev.add("ref", HookScope::currentRef()).add("hook", HookScope::currentHook());
  emitEvent(ev.urgent());
}

}  // namespace plugstack
