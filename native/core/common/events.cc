#include "common/events.h"

#include <time.h>

namespace plugstack {

namespace {
EventSink* g_sink = nullptr;
}

void setEventSink(EventSink* sink) { g_sink = sink; }

void emitEvent(json::Object event) {
  if (g_sink) g_sink->emit(json::Value(std::move(event)));
}

long long monotonicMicros() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

}  // namespace plugstack
