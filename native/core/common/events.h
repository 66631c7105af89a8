// Where the core reports what happens: hook calls, log lines, item reads,
// problems. A host process forwards every event to Node as one protocol
// frame; without a sink (the addon) events are dropped.
//
// Events are written synchronously, before the core moves on: if a plugin
// then crashes the process, Node has already received the "enter" event that
// names the plugin and the hook.
#pragma once

#include "common/json.h"

namespace plugstack {

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void emit(const json::Value& event) = 0;
};

void setEventSink(EventSink* sink);
void emitEvent(json::Object event);

// Microseconds on the monotonic clock, for hook durations.
long long monotonicMicros();

}  // namespace plugstack
