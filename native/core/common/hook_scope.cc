#include "common/hook_scope.h"
#include "protocol/messages.h"

namespace plugstack {

namespace {
int g_ref = -1;
std::string g_hook;
}  // namespace

HookScope::HookScope(int ref, std::string hook, json::Object extra)
    : ref_(ref), hook_(std::move(hook)), outerRef_(g_ref), outerHook_(g_hook) {
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
  g_ref = ref_;
  g_hook = hook_;
  probe_ = containment::before();
  start_ = monotonicMicros();
}

HookScope::~HookScope() {
  long long us = monotonicMicros() - start_;
  containment::after(probe_, ref_, hook_, task_);
  g_ref = outerRef_;
  g_hook = outerHook_;
  callClosed();
  Event ev(msg::kLeave);
  ev.add("ref", ref_).add("hook", hook_).add("pid", currentPid()).add("us", us);
  if (hasRc_) ev.add("rc", rc_);
  emitEvent(ev);
}

int HookScope::currentRef() { return g_ref; }
const std::string& HookScope::currentHook() { return g_hook; }

HookState HookState::save() { return {g_ref, g_hook, openCallCount()}; }

void HookState::restore() const {
  g_ref = ref;
  g_hook = hook;
  setOpenCallCount(openCalls);
}

}  // namespace plugstack
