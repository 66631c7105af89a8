#include "plugins/typed_plugin.h"

#include "common/events.h"
#include "protocol/messages.h"

namespace plugstack {

void emitTypedPluginLine(int ref, const std::string& file, int line, const std::string& type, const char* kind) {
  emitEvent({{"t", msg::kLine},
             {"ref", ref},
             {"file", file},
             {"line", line},
             {"required", true},
             {"configPath", type},
             {"args", json::Array{}},
             {"kind", kind}});
}

void emitTypedPluginLoaded(int ref, const PluginFile& file) {
  emitEvent({{"t", msg::kPlugin},
             {"ref", ref},
             {"path", file.path},
             {"loaded", true},
             {"kept", true},
             {"name", file.name ? json::Value(file.name) : json::Value()},
             {"type", file.type ? json::Value(file.type) : json::Value()},
             {"version", file.version}});
}

}  // namespace plugstack
