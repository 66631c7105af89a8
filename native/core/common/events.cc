#include "common/events.h"

#include <time.h>
#include <unistd.h>

#include "protocol/messages.h"

namespace plugstack {

namespace {
EventSink* g_sink = nullptr;
int g_pid = 0;
}  // namespace

Event::Event(std::string_view type) {
  text_.reserve(128);
  text_ += "{\"t\":";
  json::quoteTo(text_, type);
}

void Event::key(std::string_view k) {
  text_ += ',';
  json::quoteTo(text_, k);
  text_ += ':';
}

Event& Event::add(std::string_view k, long long value) {
  key(k);
  text_ += std::to_string(value);
  return *this;
}

Event& Event::add(std::string_view k, bool value) {
  key(k);
  text_ += value ? "true" : "false";
  return *this;
}

Event& Event::add(std::string_view k, std::string_view value) {
  key(k);
  json::quoteTo(text_, value);
  return *this;
}

Event& Event::add(std::string_view k, const char* value) {
  if (!value) return addNull(k);
  return add(k, std::string_view(value));
}

Event& Event::add(std::string_view k, const json::Value& value) {
  key(k);
  text_ += value.dump();
  return *this;
}

Event& Event::addNull(std::string_view k) {
  key(k);
  text_ += "null";
  return *this;
}

std::string_view Event::text() {
  if (!closed_) {
    text_ += '}';
    closed_ = true;
  }
  return text_;
}

void setEventSink(EventSink* sink) { g_sink = sink; }

void emitEvent(Event& event) {
  if (g_sink) g_sink->emit(event.text(), event.delivery());
}

void emitEvent(Event&& event) { emitEvent(event); }

void emitEvent(json::Object event) {
  if (!g_sink) return;
  bool urgent = false;
  for (const auto& [k, v] : event)
    if (k == "t" && v.isString())
      urgent = v.asString() == msg::kProblem || v.asString() == msg::kWarning ||
               v.asString() == msg::kFatal || v.asString() == msg::kDone;
  std::string text = json::Value(std::move(event)).dump();
  g_sink->emit(text, urgent ? Event::Delivery::Now : Event::Delivery::Batched);
}

void flushEvents() {
  if (g_sink) g_sink->flush();
}

void useTaskEventSlot(size_t task) {
  if (g_sink) g_sink->useSlot(1 + task);
}

void callOpened() {
  if (g_sink) g_sink->callOpened();
}

void callClosed() {
  if (g_sink) g_sink->callClosed();
}

unsigned openCallCount() { return g_sink ? g_sink->openCalls() : 0; }

void setOpenCallCount(unsigned n) {
  if (g_sink) g_sink->setOpenCalls(n);
}

int currentPid() {
  if (!g_pid) g_pid = static_cast<int>(getpid());
  return g_pid;
}

void resetPid() { g_pid = static_cast<int>(getpid()); }

long long monotonicMicros() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

}  // namespace plugstack
