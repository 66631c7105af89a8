#include "common/problem.h"

#include "common/events.h"
#include "common/slurm_log.h"
#include "protocol/messages.h"

namespace plugstack {

json::Object diagnosticToJson(const Diagnostic& d) {
  json::Object o{{"severity", severityName(d.severity)}, {"code", d.code}, {"message", d.message}};
  if (!d.file.empty()) o.emplace_back("file", d.file);
  if (d.line > 0) o.emplace_back("line", d.line);
  return o;
}

void reportProblem(const Diagnostic& d, json::Object extra) {
  for (const auto& l : d.slurmLog)
    emitEvent({{"t", msg::kLog}, {"source", "slurm"}, {"level", l.level}, {"msg", l.text}});
  json::Object ev{{"t", msg::kProblem}};
  for (auto& kv : diagnosticToJson(d)) ev.push_back(std::move(kv));
  for (auto& kv : extra) ev.push_back(std::move(kv));
  emitEvent(std::move(ev));
}

}  // namespace plugstack
