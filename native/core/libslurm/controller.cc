#include "libslurm/controller.h"

#include <cstdlib>
#include <string>

#include "common/hook_scope.h"
#include "common/slurm_log.h"
#include "rules/releases.h"
#include "spank/stack.h"

namespace plugstack::libslurm {

namespace {

bool initialized = false;

// 24.11's slurmstepd holds the authentication plugins' setuid lock while
// its privileges are dropped for user_init: whatever takes that lock again
// there meets slurm_rwlock_*'s EDEADLK, a fatal_abort().
void abortIfUserInitHoldsLock(const Stack& stack, const char* call) {
  if (!releases::libslurm(stack.version()).userInitCallAborts || stack.context() != Context::Remote ||
      HookScope::currentHook() != "slurm_spank_user_init")
    return;
  slurmLog(LogLevel::Error, std::string(call) + ": Resource deadlock avoided", /*fatal=*/true);
  std::abort();
}

}  // namespace

void noteInit() {
  // slurm_init() starts the authentication plugins (auth_g_init), which
  // takes the lock for writing.
  if (const Stack* stack = Stack::current()) abortIfUserInitHoldsLock(*stack, "auth_g_init: pthread_rwlock_wrlock()");
  initialized = true;
}

void beforeControllerCall() {
  const Stack* stack = Stack::current();
  if (!stack) return;
  // Creating the request's credential reads under the lock.
  abortIfUserInitHoldsLock(*stack, "auth_g_create: pthread_rwlock_rdlock()");
  if (initialized || stack->context() != Context::JobScript || !releases::libslurm(stack->version()).jobScriptCallNeedsInit) return;
  // 24.11's helper never ran auth_g_init(): sending the request asks the
  // authentication plugins whether to hash it, finds none, and fatal()s,
  // which exits(1) in the middle of the plugin's callback.
  slurmLog(LogLevel::Error, "No hash plugins loaded. Was slurm_init() called before calling any Slurm API functions?", /*fatal=*/true);
  std::exit(1);
}

}  // namespace plugstack::libslurm
