#include "common/hook_scope.h"

#include <pthread.h>

#include <atomic>
#include <map>
#include <memory>
#include <utility>

#include "protocol/messages.h"

namespace plugstack {

// The plugin and hook a call is in. Immutable once made, and never freed:
// a plugin's own thread that logs (slurm_info from a thread it started)
// reads the current one while this thread enters and leaves calls, and may
// still hold the one it read.
struct CurrentCall {
  int ref;
  std::string hook;
};

namespace {

// Made once and never destroyed either: a plugin thread may log while the
// process exits.
const CurrentCall* const kNoCall = new CurrentCall{-1, ""};
std::atomic<const CurrentCall*> g_current{kNoCall};

// Every (plugin, hook) pair made so far: a few per plugin. Only the
// threads that call plugin code (this one, a contain_spank clone child)
// add to it.
pthread_mutex_t g_madeLock = PTHREAD_MUTEX_INITIALIZER;
auto* g_made = new std::map<std::pair<int, std::string>, std::unique_ptr<const CurrentCall>>();

const CurrentCall* callOf(int ref, const std::string& hook) {
  if (ref < 0 && hook.empty()) return kNoCall;
  pthread_mutex_lock(&g_madeLock);
  auto& made = (*g_made)[{ref, hook}];
  if (!made) made.reset(new CurrentCall{ref, hook});
  const CurrentCall* call = made.get();
  pthread_mutex_unlock(&g_madeLock);
  return call;
}

// A fork waits for the lock, so that no child starts with the map half
// changed (a plugin forking from a thread of its own while this one enters
// a call), and both sides go on with it free.
void beforeFork() { pthread_mutex_lock(&g_madeLock); }
void afterFork() { pthread_mutex_unlock(&g_madeLock); }
[[maybe_unused]] const int kForkHandler = pthread_atfork(beforeFork, afterFork, afterFork);

}  // namespace

HookScope::HookScope(int ref, std::string hook, json::Object extra)
    : ref_(ref), hook_(std::move(hook)), outer_(g_current.load(std::memory_order_acquire)) {
  // The pid tells Node which process to blame when one dies: task
  // callbacks run in forked children that share the channel.
  Event ev(msg::kEnter);
  ev.add("ref", ref_).add("hook", hook_).add("pid", currentPid()).add("at", monotonicMicros());
  for (auto& [k, v] : extra) {
    if (k == "task" && v.isNumber()) task_ = static_cast<int>(v.asNumber());
    ev.add(k, v);
  }
  // Where Node finds it before the plugin runs, so a crash or hang is
  // blamed right.
  emitEvent(ev.beforePluginCode());
  callOpened();
  g_current.store(callOf(ref_, hook_), std::memory_order_release);
  probe_ = containment::before();
  start_ = monotonicMicros();
}

HookScope::~HookScope() {
  long long us = monotonicMicros() - start_;
  containment::after(probe_, ref_, hook_, task_);
  g_current.store(outer_, std::memory_order_release);
  callClosed();
  Event ev(msg::kLeave);
  ev.add("ref", ref_).add("hook", hook_).add("pid", currentPid()).add("us", us);
  if (hasRc_) ev.add("rc", rc_);
  emitEvent(ev);
}

int HookScope::currentRef() { return g_current.load(std::memory_order_acquire)->ref; }
const std::string& HookScope::currentHook() { return g_current.load(std::memory_order_acquire)->hook; }

HookState HookState::save() { return {g_current.load(std::memory_order_acquire), openCallCount()}; }

void HookState::restore() const {
  g_current.store(call, std::memory_order_release);
  setOpenCallCount(openCalls);
}

}  // namespace plugstack
