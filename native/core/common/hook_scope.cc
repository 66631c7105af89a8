#include "common/hook_scope.h"

#include <unistd.h>

namespace plugstack {

namespace {
int g_ref = -1;
std::string g_hook;
}  // namespace

HookScope::HookScope(int ref, std::string hook, json::Object extra)
    : ref_(ref), hook_(std::move(hook)), outerRef_(g_ref), outerHook_(g_hook) {
  // The pid tells Node which process to blame when one dies: task
  // callbacks run in forked children that share the channel.
  json::Object ev{{"t", "enter"}, {"ref", ref_}, {"hook", hook_}, {"pid", static_cast<int>(getpid())}};
  for (auto& kv : extra) ev.push_back(std::move(kv));
  emitEvent(std::move(ev));
  g_ref = ref_;
  g_hook = hook_;
  start_ = monotonicMicros();
}

HookScope::~HookScope() {
  long long us = monotonicMicros() - start_;
  g_ref = outerRef_;
  g_hook = outerHook_;
  json::Object ev{{"t", "leave"}, {"ref", ref_}, {"hook", hook_}, {"pid", static_cast<int>(getpid())}, {"us", us}};
  if (hasRc_) ev.emplace_back("rc", rc_);
  emitEvent(std::move(ev));
}

int HookScope::currentRef() { return g_ref; }
const std::string& HookScope::currentHook() { return g_hook; }

}  // namespace plugstack
