#include "libslurm/controller.h"

#include <cstdlib>

#include "common/slurm_log.h"
#include "rules/releases.h"
#include "spank/stack.h"

namespace plugstack::libslurm {

namespace {
bool initialized = false;
}  // namespace

void noteInit() { initialized = true; }

void beforeControllerCall() {
  const Stack* stack = Stack::current();
  if (initialized || !stack || stack->context() != Context::JobScript) return;
  if (!releases::libslurm(stack->version()).jobScriptCallNeedsInit) return;
  // 24.11's helper never ran auth_g_init(): sending the request asks the
  // authentication plugins whether to hash it, finds none, and fatal()s,
  // which exits(1) in the middle of the plugin's callback.
  slurmLog(LogLevel::Error, "No hash plugins loaded. Was slurm_init() called before calling any Slurm API functions?", /*fatal=*/true);
  std::exit(1);
}

}  // namespace plugstack::libslurm
