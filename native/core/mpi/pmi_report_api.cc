// What plugstack's own mpi/pmi2 reports at the end of a node (its fini):
// each rank's PMI conversation, line by line on request, and what the rank
// did (its PMI version, finalize, abort), as "pmi" events. Only that
// plugin calls these (plugstack-only names, weak in the plugin).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/events.h"
#include "common/visibility.h"
#include "mpi/mpi_stepd.h"
#include "protocol/messages.h"

namespace plugstack {

namespace {
bool g_trace = false;
std::map<uint32_t, json::Array> g_lines;
}  // namespace

void setPmiTrace(bool on) { g_trace = on; }

}  // namespace plugstack

extern "C" {

PLUGSTACK_EXPORT int plugstack_pmi_trace_wanted(void) { return plugstack::g_trace ? 1 : 0; }

// line: '>' then what the rank sent, or '<' then the server's reply.
PLUGSTACK_EXPORT void plugstack_pmi_line(uint32_t rank, const char* line) {
  if (!line || !line[0]) return;
  plugstack::g_lines[rank].emplace_back(plugstack::json::Object{
      {"from", line[0] == '>' ? "rank" : "server"}, {"text", std::string(line + 1)}});
}

PLUGSTACK_EXPORT void plugstack_pmi_rank(uint32_t rank, const char* version, int connected, int finalized,
                                         int aborted, int abortCode, uint32_t sizeTold, size_t dropped) {
  using plugstack::json::Value;
  plugstack::Event ev(plugstack::msg::kPmi);
  ev.add("rank", static_cast<long long>(rank));
  if (version && version[0]) ev.add("version", version);
  else ev.addNull("version");
  ev.add("connected", connected != 0).add("finalized", finalized != 0).add("aborted", aborted != 0);
  if (aborted) ev.add("exitCode", abortCode);
  if (sizeTold) ev.add("size", static_cast<long long>(sizeTold));
  auto it = plugstack::g_lines.find(rank);
  if (plugstack::g_trace) {
    ev.add("lines", Value(it == plugstack::g_lines.end() ? plugstack::json::Array{} : std::move(it->second)));
    if (dropped) ev.add("dropped", static_cast<long long>(dropped));
  }
  if (it != plugstack::g_lines.end()) plugstack::g_lines.erase(it);
  plugstack::emitEvent(ev);
}

}  // extern "C"
