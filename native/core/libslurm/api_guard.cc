#include "libslurm/api_guard.h"

#include <slurm/slurm.h>

#include <cerrno>
#include <set>
#include <string>
#include <tuple>

#include "common/hook_scope.h"
#include "common/problem.h"
#include "libslurm/api_table.h"
#include "libslurm/release.h"
#include "spank/stack.h"

namespace plugstack::libslurm {

namespace {

const char* failureText(const ApiFunction& f) {
  switch (f.failure) {
    case Failure::Void: return "nothing";
    case Failure::Null: return "NULL";
    case Failure::MinusOne: return "-1 (SLURM_ERROR)";
    case Failure::Zero: return "0";
  }
  return "";
}

// Once per function, plugin and hook in this process (a plugin may call a
// function in a loop).
bool firstTime(const char* code, const char* name) {
  static std::set<std::tuple<std::string, std::string, int, std::string>> seen;
  return seen.emplace(code, name, HookScope::currentRef(), HookScope::currentHook()).second;
}

void report(const char* code, const std::string& message, const char* name) {
  Diagnostic d;
  d.code = code;
  d.message = message;
  json::Object extra{{"function", name}};
  if (HookScope::currentRef() >= 0) {
    extra.emplace_back("ref", HookScope::currentRef());
    extra.emplace_back("hook", HookScope::currentHook());
  }
  reportProblem(d, std::move(extra));
}

// "<plugin> called f() in <hook>": the plugin by its basename, as Slurm's
// messages about plugins name them.
std::string caller(const char* name) {
  std::string who = "plugin code";
  if (Stack* stack = Stack::current())
    for (const auto& p : stack->plugins())
      if (p->ref == HookScope::currentRef()) who = p->basename();
  std::string out = who + " called " + name + "()";
  if (HookScope::currentRef() >= 0) out += " in " + HookScope::currentHook();
  return out;
}

}  // namespace

void checkRelease(const char* name) {
  const ApiFunction* f = findApiFunction(name);
  Release r = currentRelease();
  if (!f || (f->releases & releaseBit(r)) || !firstTime("LIBSLURM_NOT_IN_RELEASE", name)) return;
  report("LIBSLURM_NOT_IN_RELEASE",
         caller(name) + ", but Slurm " + releaseName(r) + "'s " + f->header +
             " does not declare it: in that Slurm the plugin would die of an undefined symbol; "
             "plugstack answers it",
         name);
}

void notEmulated(const char* name) {
  const ApiFunction* f = findApiFunction(name);
  Release r = currentRelease();
  if (f && firstTime("LIBSLURM_NOT_EMULATED", name)) {
    std::string message = caller(name) + " (" + f->header + "): plugstack does not emulate it; it returned " +
                          failureText(*f) + " with errno PLUGSTACK_ELIBSLURM_NOT_EMULATED";
    if (!(f->releases & releaseBit(r)))
      message += std::string("; Slurm ") + releaseName(r) + " does not declare it either " +
                 "(the plugin would die of an undefined symbol there)";
    report("LIBSLURM_NOT_EMULATED", message, name);
  }
  errno = PLUGSTACK_ELIBSLURM_NOT_EMULATED;
}

}  // namespace plugstack::libslurm
