// Where the core reports what happens: hook calls, log lines, item reads,
// problems. A host process forwards events to Node over its channel;
// without a sink (the addon) events are dropped.
//
// Events are buffered and sent in batches (one frame holds a JSON array of
// them), because a step can produce thousands. Log lines and problems are
// sent at once, together with whatever is buffered, so that a plugin's last
// words before a crash are not lost. "enter", emitted before the core calls
// into plugin code, must be where Node can find it before the plugin runs,
// so that a crash, exit() or hang inside the plugin is pinned on the right
// plugin and hook: in the process's slot of the memory Node shares with
// the host (common/event_slots.h), or, without one, on the socket at once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/json.h"

namespace plugstack {

// One event, written straight into JSON text: {"t":"<type>", ...}.
class Event {
 public:
  explicit Event(std::string_view type);
  Event& add(std::string_view key, long long value);
  Event& add(std::string_view key, int value) { return add(key, static_cast<long long>(value)); }
  Event& add(std::string_view key, unsigned value) { return add(key, static_cast<long long>(value)); }
  Event& add(std::string_view key, unsigned long value) { return add(key, static_cast<long long>(value)); }
  Event& add(std::string_view key, bool value);
  Event& add(std::string_view key, std::string_view value);
  Event& add(std::string_view key, const std::string& value) { return add(key, std::string_view(value)); }
  Event& add(std::string_view key, const char* value);  // NULL is null
  Event& add(std::string_view key, const json::Value& value);
  Event& addNull(std::string_view key);
  // Sent immediately, with everything buffered before it.
  Event& urgent() {
    delivery_ = Delivery::Now;
    return *this;
  }
  // Where Node finds it even if the process never gets to send it: its
  // slot, or the socket at once.
  Event& beforePluginCode() {
    delivery_ = Delivery::BeforePluginCode;
    return *this;
  }
  enum class Delivery { Batched, Now, BeforePluginCode };
  Delivery delivery() const { return delivery_; }
  // The complete JSON text.
  std::string_view text();

 private:
  void key(std::string_view k);
  std::string text_;
  bool closed_ = false;
  Delivery delivery_ = Delivery::Batched;
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  // One event's JSON text; the sink may buffer it.
  virtual void emit(std::string_view event, Event::Delivery delivery) = 0;
  // Sends what is buffered.
  virtual void flush() = 0;
  // In a task child: its own slot from now on (event_slots.h).
  virtual void useSlot(size_t index) = 0;
  // A call into plugin code opens and closes (HookScope).
  virtual void callOpened() = 0;
  virtual void callClosed() = 0;
  // The count of open calls Node sees, read and put back (HookState).
  virtual unsigned openCalls() const = 0;
  virtual void setOpenCalls(unsigned n) = 0;
};

void setEventSink(EventSink* sink);
void emitEvent(Event& event);
void emitEvent(Event&& event);
// For the less frequent events, built as a JSON object.
void emitEvent(json::Object event);
// Sends everything buffered: before exec and _exit, at the end.
void flushEvents();
// A forked child starts with nothing buffered and no slot: its copy of the
// parent's buffer is the parent's to send (Channel's pthread_atfork handler).
// In task i's child: its events go to slot 1 + i.
void useTaskEventSlot(size_t task);
// A call into plugin code opens, and closes: counted where Node can see it.
void callOpened();
void callClosed();
unsigned openCallCount();
void setOpenCallCount(unsigned n);

// The pid of this process, cached: glibc's getpid() is a system call, and
// every hook event carries the pid. Forked children must call resetPid().
int currentPid();
void resetPid();

// Microseconds on the monotonic clock, for hook durations.
long long monotonicMicros();

}  // namespace plugstack
