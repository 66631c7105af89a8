// Brackets a call into plugin code with "enter" and "leave" events.
//
// The "enter" event is where Node finds it before the plugin runs (the
// process's slot of the memory Node shares, or the socket), so a crash,
// exit() or hang inside the plugin is attributed to the right plugin and
// hook even though the process never gets to say so itself; the slot also
// counts the calls open (common/event_slots.h). Around the call,
// containment notes the processes and descriptors it creates.
#pragma once

#include <string>

#include "common/events.h"
#include "common/json.h"
#include "lifecycle/containment.h"

namespace plugstack {

// The plugin and hook a call is in (hook_scope.cc).
struct CurrentCall;

class HookScope {
 public:
  // hook names plugin code, e.g. "slurm_spank_init", "init()", "dlopen".
  HookScope(int ref, std::string hook, json::Object extra = {});
  ~HookScope();
  void setResult(int rc) {
    rc_ = rc;
    hasRc_ = true;
  }
  HookScope(const HookScope&) = delete;
  HookScope& operator=(const HookScope&) = delete;

  // The plugin and hook currently running, for log events; safe to read
  // from any thread (a plugin's own, logging while this one calls).
  static int currentRef();
  static const std::string& currentHook();

 private:
  int ref_;
  std::string hook_;
  int task_ = -1;
  containment::Probe probe_;
  long long start_;
  int rc_ = 0;
  bool hasRc_ = false;
  const CurrentCall* outer_;
};

// What a call into plugin code changes in this process until it returns:
// the plugin and hook log lines are attributed to, and the count of open
// calls Node reads. A child that shares this process's memory
// (clone(CLONE_VM), contain_spank's) and dies inside plugin code never
// puts them back: the parent saves them before the clone and restores
// them once the child has been reaped.
struct HookState {
  const CurrentCall* call;
  unsigned openCalls;
  static HookState save();
  void restore() const;
};

}  // namespace plugstack
