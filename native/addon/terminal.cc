// The terminal calls Node lacks. srun --pty first reads its terminal's
// size (set_winsize). An interactive salloc (salloc.c, both releases)
// decides it is interactive when its standard input is a terminal whose
// foreground process group is its own, saves the terminal's mode, ignores
// the job-control signals, makes its command's group the foreground one
// while the command runs and takes the terminal back after it; at exit it
// puts the saved mode back and hands the terminal to its parent's group.
// The policy (when, to whom) is lib/commands/'s (srun-pty.ts,
// salloc-terminal.ts).
#include "terminal.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace {

// A process outside the terminal's foreground group that changes the
// terminal gets SIGTTOU, and the call fails until it is resumed, unless
// SIGTTOU is blocked or ignored (POSIX tcsetpgrp, tcsetattr): salloc
// blocks it (and SIGTTIN) for these calls. Here only in the calling
// thread, and only for the call: Node's other threads never take them.
// (sigprocmask: on Linux the calling thread's mask, as pthread_sigmask's,
// whose glibc 2.32 version the glibc floor keeps out: native/compat/.)
class TerminalSignalsBlocked {
 public:
  TerminalSignalsBlocked() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTTOU);
    sigaddset(&set, SIGTTIN);
    sigprocmask(SIG_BLOCK, &set, &saved_);
  }
  ~TerminalSignalsBlocked() { sigprocmask(SIG_SETMASK, &saved_, nullptr); }
  TerminalSignalsBlocked(const TerminalSignalsBlocked&) = delete;
  TerminalSignalsBlocked& operator=(const TerminalSignalsBlocked&) = delete;

 private:
  sigset_t saved_;
};

bool fdArg(const Napi::CallbackInfo& info, size_t count, const char* usage) {
  if (info.Length() < count || !info[0].IsNumber()) {
    Napi::TypeError::New(info.Env(), usage).ThrowAsJavaScriptException();
    return false;
  }
  return true;
}

// terminalState(fd) -> null when fd is no terminal (tcgetattr fails, as
// salloc tests it), else {foreground: tcgetpgrp's group or -errno,
// own: getpgrp(), parent: the parent's group}.
Napi::Value TerminalState(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!fdArg(info, 1, "terminalState(fd)")) return env.Undefined();
  int fd = info[0].As<Napi::Number>().Int32Value();
  struct termios mode;
  if (tcgetattr(fd, &mode) < 0) return env.Null();
  pid_t foreground = tcgetpgrp(fd);
  Napi::Object state = Napi::Object::New(env);
  state.Set("foreground", foreground < 0 ? -errno : foreground);
  state.Set("own", getpgrp());
  state.Set("parent", getpgid(getppid()));
  return state;
}

// terminalSize(fd) -> {rows, cols} (TIOCGWINSZ), or the errno when fd is
// no terminal: srun --pty reads it first (set_winsize).
Napi::Value TerminalSize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!fdArg(info, 1, "terminalSize(fd)")) return env.Undefined();
  struct winsize ws;
  if (ioctl(info[0].As<Napi::Number>().Int32Value(), TIOCGWINSZ, &ws) < 0) return Napi::Number::New(env, errno);
  Napi::Object size = Napi::Object::New(env);
  size.Set("rows", ws.ws_row);
  size.Set("cols", ws.ws_col);
  return size;
}

// terminalMode(fd) -> the terminal's mode (struct termios) as bytes to
// give back to setTerminalMode, or null when fd is no terminal.
Napi::Value TerminalMode(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!fdArg(info, 1, "terminalMode(fd)")) return env.Undefined();
  struct termios mode;
  if (tcgetattr(info[0].As<Napi::Number>().Int32Value(), &mode) < 0) return env.Null();
  return Napi::Buffer<char>::Copy(env, reinterpret_cast<const char*>(&mode), sizeof mode);
}

// setTerminalMode(fd, bytes) -> 0 or errno (tcsetattr, TCSANOW).
Napi::Value SetTerminalMode(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!fdArg(info, 2, "setTerminalMode(fd, mode)") || !info[1].IsBuffer()) {
    if (!env.IsExceptionPending()) Napi::TypeError::New(env, "setTerminalMode(fd, mode)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  Napi::Buffer<char> bytes = info[1].As<Napi::Buffer<char>>();
  if (bytes.Length() != sizeof(struct termios)) return Napi::Number::New(env, EINVAL);
  struct termios mode;
  std::memcpy(&mode, bytes.Data(), sizeof mode);
  TerminalSignalsBlocked blocked;
  int rc = tcsetattr(info[0].As<Napi::Number>().Int32Value(), TCSANOW, &mode);
  return Napi::Number::New(env, rc == 0 ? 0 : errno);
}

// setForegroundGroup(fd, pgid) -> 0 or errno (tcsetpgrp).
Napi::Value SetForegroundGroup(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!fdArg(info, 2, "setForegroundGroup(fd, pgid)") || !info[1].IsNumber()) {
    if (!env.IsExceptionPending()) Napi::TypeError::New(env, "setForegroundGroup(fd, pgid)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  TerminalSignalsBlocked blocked;
  int rc = tcsetpgrp(info[0].As<Napi::Number>().Int32Value(), static_cast<pid_t>(info[1].As<Napi::Number>().Int32Value()));
  return Napi::Number::New(env, rc == 0 ? 0 : errno);
}

// leadProcessGroup() -> 0 or errno: setpgid(0, 0), as salloc makes itself
// the leader of a group before it takes the terminal.
Napi::Value LeadProcessGroup(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), setpgid(0, 0) == 0 ? 0 : errno);
}

// ignoreJobControlSignals(): SIGTSTP, SIGTTIN and SIGTTOU ignored by the
// whole process, as salloc ignores them once it has the terminal. Node
// watches none of them; the processes it starts get every signal back at
// its default (libuv's spawn, spawnDetached).
Napi::Value IgnoreJobControlSignals(const Napi::CallbackInfo& info) {
  for (int sig : {SIGTSTP, SIGTTIN, SIGTTOU}) signal(sig, SIG_IGN);
  return info.Env().Undefined();
}

}  // namespace

void registerTerminal(Napi::Env env, Napi::Object exports) {
  exports.Set("terminalState", Napi::Function::New(env, TerminalState));
  exports.Set("terminalMode", Napi::Function::New(env, TerminalMode));
  exports.Set("terminalSize", Napi::Function::New(env, TerminalSize));
  exports.Set("setTerminalMode", Napi::Function::New(env, SetTerminalMode));
  exports.Set("setForegroundGroup", Napi::Function::New(env, SetForegroundGroup));
  exports.Set("leadProcessGroup", Napi::Function::New(env, LeadProcessGroup));
  exports.Set("ignoreJobControlSignals", Napi::Function::New(env, IgnoreJobControlSignals));
}
