#include "signals.h"

#include <signal.h>
#include <sys/types.h>

#include <cerrno>

namespace {

// signalProcess(pid, signal) -> 0 or the errno of kill(2). pid < 0 names a
// process group. Node's process.kill throws when the target is gone
// (ESRCH), the usual answer when a host's group is killed after it ended;
// building that exception (a stack trace, whose source positions a cold
// process computes by parsing the functions again) cost about a
// millisecond per host in a short command.
Napi::Value SignalProcess(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsNumber() || !info[1].IsNumber()) {
    Napi::TypeError::New(env, "signalProcess(pid, signal)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  pid_t pid = static_cast<pid_t>(info[0].As<Napi::Number>().Int32Value());
  int sig = info[1].As<Napi::Number>().Int32Value();
  // 0 and -1 mean "this group" and "every process we may signal": never a host's.
  if (pid == 0 || pid == -1) return Napi::Number::New(env, EINVAL);
  return Napi::Number::New(env, kill(pid, sig) == 0 ? 0 : errno);
}

}  // namespace

void registerSignals(Napi::Env env, Napi::Object exports) {
  exports.Set("signalProcess", Napi::Function::New(env, SignalProcess));
}
