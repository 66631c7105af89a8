// Starting the zygote (native/core/lifecycle/zygote.h) without forking Node.
//
// Node's child_process.spawn forks the whole Node process: the kernel
// copies the page tables of tens of megabytes of heap, on Node's main
// thread, which then waits for the exec. That was about 10 ms of every
// short command (a third of what `plugstack run -n 1 true` spends beyond
// Node's own start). posix_spawn in glibc creates the child with
// CLONE_VM|CLONE_VFORK: it borrows Node's memory until it execs, so its
// cost does not grow with Node's size. Only the zygote is started this way;
// a host that must be spawned (no zygote, or a large environment) still is
// by Node, whose errors the callers know.
//
// Node does not reap a child it did not start (libuv waits for its own
// pids only), so reapProcess() is here too.
#include "spawn.h"
#include "system_error.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

namespace {

std::vector<std::string> strings(const Napi::Array& list) {
  std::vector<std::string> out;
  out.reserve(list.Length());
  for (uint32_t i = 0; i < list.Length(); i++) out.push_back(list.Get(i).As<Napi::String>().Utf8Value());
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& list) {
  std::vector<char*> out;
  out.reserve(list.size() + 1);
  for (auto& s : list) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Frees what posix_spawn's setup allocated, whichever way the call ends.
struct SpawnSetup {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
};

// spawnDetached(file, argv, env, fd) -> pid. The child gets /dev/null on
// 0-2, fd as descriptor 3 (argv names it so), every signal at its default
// and none blocked, and a session of its own (as spawn()'s detached does);
// no other descriptor (Node's are close-on-exec). Throws an Error with
// errno when the file cannot be run.
Napi::Value SpawnDetached(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 4 || !info[0].IsString() || !info[1].IsArray() || !info[2].IsArray() || !info[3].IsNumber()) {
    Napi::TypeError::New(env, "spawnDetached(file, argv, env, fd)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  std::string file = info[0].As<Napi::String>().Utf8Value();
  std::vector<std::string> argvText = strings(info[1].As<Napi::Array>());
  std::vector<std::string> envText = strings(info[2].As<Napi::Array>());
  int fd = info[3].As<Napi::Number>().Int32Value();
  if (fd < 3) return throwSystemError(env, "spawnDetached", EBADF);

  // A dup2 onto itself would leave close-on-exec set (older glibc does not
  // clear it): hand over a copy numbered above 3 instead.
  int source = fd;
  if (fd == 3) {
    source = fcntl(fd, F_DUPFD_CLOEXEC, 4);
    if (source < 0) return throwSystemError(env, "fcntl", errno);
  }

  SpawnSetup setup;
  // The standard descriptors: /dev/null, never Node's terminal or pipes.
  posix_spawn_file_actions_addopen(&setup.actions, 0, "/dev/null", O_RDWR, 0);
  posix_spawn_file_actions_adddup2(&setup.actions, 0, 1);
  posix_spawn_file_actions_adddup2(&setup.actions, 0, 2);
  // dup2 clears close-on-exec on the copy: this one descriptor survives exec.
  posix_spawn_file_actions_adddup2(&setup.actions, source, 3);

  // Node ignores SIGPIPE and may block signals on this thread; exec keeps
  // both. The child starts as a fresh process would: all at their defaults,
  // nothing blocked (what libuv's spawn does too).
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&setup.attr, &all);
  posix_spawnattr_setsigmask(&setup.attr, &none);
  posix_spawnattr_setflags(&setup.attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSID);

  std::vector<char*> argv = pointers(argvText);
  std::vector<char*> envp = pointers(envText);
  pid_t pid = -1;
  // glibc reports a failed exec here (the vfork'd child writes it before
  // the parent resumes), not as an exit status of 127.
  int rc = posix_spawn(&pid, file.c_str(), &setup.actions, &setup.attr, argv.data(), envp.data());
  if (source != fd) close(source);
  if (rc != 0) return throwSystemError(env, "posix_spawn", rc);
  return Napi::Number::New(env, pid);
}

// reapProcess(pid) -> the raw wait status, or null while it still runs.
// Throws on anything else (ECHILD: not our child, or reaped already).
Napi::Value ReapProcess(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) {
    Napi::TypeError::New(env, "reapProcess(pid)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  pid_t pid = static_cast<pid_t>(info[0].As<Napi::Number>().Int32Value());
  if (pid <= 0) return throwSystemError(env, "waitpid", EINVAL);
  int status = 0;
  pid_t r;
  do r = waitpid(pid, &status, WNOHANG);
  while (r < 0 && errno == EINTR);
  if (r < 0) return throwSystemError(env, "waitpid", errno);
  if (r == 0) return env.Null();
  return Napi::Number::New(env, status);
}

}  // namespace

void registerSpawn(Napi::Env env, Napi::Object exports) {
  exports.Set("spawnDetached", Napi::Function::New(env, SpawnDetached));
  exports.Set("reapProcess", Napi::Function::New(env, ReapProcess));
}
