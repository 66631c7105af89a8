#include "lifecycle/zygote.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/channel.h"
#include "common/json.h"
#include "lifecycle/process_tree.h"
#include "lifecycle/slurm_signals.h"
#include "protocol/messages.h"

namespace plugstack::zygote {

namespace {

// The most descriptors one request carries: stdin, stdout, stderr, events,
// commands, and the memory for events not sent yet (common/event_slots.h).
constexpr int kMaxFds = 6;
// A request is an environment and a few words: anything larger is not Node's.
constexpr uint32_t kMaxRequest = 4u << 20;

struct ArgvArea {
  char* start = nullptr;
  size_t size = 0;
};

int g_ctl = -1;
// The roles forked and not yet reaped. Any other child is an orphan: a
// process a role left when it ended, come back to us (a subreaper).
std::set<pid_t> g_roles;

// The user database's modules (nsswitch.conf's libnss_* and what they
// link), loaded once here: a host that asks the database (a slurmstepd
// reading its user's entry and groups) would otherwise load them itself,
// every time. Nothing is kept but the modules: the files are read afresh
// at every lookup, in the host.
void loadUserDatabase() {
  std::vector<char> buf(16384);
  struct passwd pw;
  struct passwd* user = nullptr;
  if (getpwuid_r(getuid(), &pw, buf.data(), buf.size(), &user) == 0 && user) {
    gid_t groups[32];
    int n = 32;
    getgrouplist(user->pw_name, user->pw_gid, groups, &n);
  }
  struct group gr;
  struct group* group = nullptr;
  getgrgid_r(getgid(), &gr, buf.data(), buf.size(), &group);
}

bool writeAll(int fd, const char* p, size_t n) {
  while (n) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// One event, as a frame holding an array of events (channel.h's format).
void reply(const json::Value& v) {
  std::string body = json::Value(json::Array{v}).dump();
  uint32_t len = static_cast<uint32_t>(body.size());
  unsigned char header[4] = {static_cast<unsigned char>(len), static_cast<unsigned char>(len >> 8),
                             static_cast<unsigned char>(len >> 16), static_cast<unsigned char>(len >> 24)};
  std::string frame(reinterpret_cast<char*>(header), 4);
  frame += body;
  // Node gone: its hosts and what is below them go with us.
  if (!writeAll(g_ctl, frame.data(), frame.size())) {
    killAllDescendants();
    _exit(0);
  }
}

// Closes every descriptor from `from` up.
void closeFrom(int from) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, from, ~0u, 0) == 0) return;
#endif
  long max = sysconf(_SC_OPEN_MAX);
  for (long fd = from; fd < max; fd++) close(static_cast<int>(fd));
}

// /proc/<pid>/cmdline of the role: what `plugstack-host <role> --fd 3:4
// --parent <node>` spawned by Node shows, written over the zygote's own
// (longer) argument area.
void retitle(const ArgvArea& area, const std::string& exe, const std::string& role, const std::string& node) {
  std::string text = exe + '\0' + role + '\0' + "--fd" + '\0' + "3:4" + '\0' + "--parent" + '\0' + node;
  if (!area.start || text.size() + 1 > area.size) return;
  std::memset(area.start, 0, area.size);
  std::memcpy(area.start, text.data(), text.size());
}

struct Request {
  long id = 0;
  std::string role;
  std::vector<std::string> env;
  std::string cwd;
  bool stdinGiven = false;
  bool slotsGiven = false;
};

// In the forked child: becomes the role's process. Failures before the
// role starts are written to statusFd (errno, then the failing call).
[[noreturn]] void becomeRole(const Request& req, std::vector<int> fds, int statusFd, const ArgvArea& area,
                             const std::string& exe, const std::string& node, pid_t zygote, RoleMain roleMain) {
  auto fail = [&](const char* call) {
    int e = errno;
    char buf[64];
    std::memcpy(buf, &e, sizeof e);
    size_t n = std::strlen(call);
    if (n > sizeof buf - sizeof e) n = sizeof buf - sizeof e;
    std::memcpy(buf + sizeof e, call, n);
    writeAll(statusFd, buf, sizeof e + n);
    _exit(127);
  };
  // A session and process group of its own, as Node's detached spawn gives.
  setsid();
  // Every signal at its default and none blocked, as after an exec.
  slurm_signals::allDefault();
  if (!req.cwd.empty() && chdir(req.cwd.c_str()) != 0) fail("chdir");
  // Descriptors 0-4: first out of the way (a source may sit on a target's number).
  if (!req.stdinGiven) {
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0) fail("open");
    fds.insert(fds.begin(), null);
  }
  for (int& fd : fds) {
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, 16);
    if (moved < 0) fail("fcntl");
    fd = moved;
  }
  if (statusFd < 16) {
    int moved = fcntl(statusFd, F_DUPFD_CLOEXEC, 16);
    if (moved < 0) fail("fcntl");
    statusFd = moved;
  }
  for (int i = 0; i < static_cast<int>(fds.size()); i++)
    if (dup2(fds[static_cast<size_t>(i)], i) < 0) fail("dup2");
  // The environment Node asked for, and nothing of the zygote's.
  auto* envp = static_cast<char**>(std::calloc(req.env.size() + 1, sizeof(char*)));
  if (!envp) fail("calloc");
  for (size_t i = 0; i < req.env.size(); i++) envp[i] = strdup(req.env[i].c_str());
  environ = envp;
  retitle(area, exe, req.role, node);
  // Started: the zygote reads end of stream on the status pipe.
  close(statusFd);
  closeFrom(static_cast<int>(fds.size()));
  std::exit(roleMain(req.role.c_str(), 3, 4, zygote));
}

bool parseRequest(const json::Value& v, Request* out) {
  if (!v.isObject() || !v["t"].isString() || v["t"].asString() != msg::kForkCommand || !v["id"].isNumber() ||
      !v["role"].isString() || !v["env"].isArray())
    return false;
  out->id = static_cast<long>(v["id"].asNumber());
  out->role = v["role"].asString();
  for (const json::Value& e : v["env"].asArray()) {
    if (!e.isString()) return false;
    out->env.push_back(e.asString());
  }
  if (v["cwd"].isString()) out->cwd = v["cwd"].asString();
  out->stdinGiven = v["stdin"].isBool() && v["stdin"].asBool();
  out->slotsGiven = v["slots"].isBool() && v["slots"].asBool();
  return true;
}

}  // namespace

// glibc's posix_spawn, which starts the zygote (native/addon/spawn.cc),
// leaves the C library's own signals (32 and 33, below SIGRTMIN: thread
// cancellation and set*id across threads) ignored in the new program: its
// child sets them so while it shares Node's memory, and exec keeps an
// ignored signal. A process exec'd by anyone else has them at the default,
// and so must every role and task forked from here. glibc's sigaction()
// refuses these numbers; the kernel's does not. An all-zero kernel
// sigaction is SIG_DFL with no flags and an empty mask on every
// architecture we build for.
namespace {
void defaultInternalSignals() {
  for (int sig = 32; sig < SIGRTMIN; sig++) {
    unsigned long defaults[4] = {};
    syscall(SYS_rt_sigaction, sig, defaults, nullptr, sizeof(uint64_t));
  }
}

// What the zygote blocks and reads through its signalfd: every signal
// but those the kernel raises for a fault of its own (which must kill it
// as they would any program) and SIGABRT. Nothing it does not read can
// end it, then, but SIGKILL: not a stray signal (plugin code in a host
// signalling its parent), and not a stop, which would hold up every host
// start. glibc's sigfillset leaves out its own signals 32 and 33, which
// only its threads send. Roles unblock everything (becomeRole).
sigset_t signalsRead() {
  sigset_t set;
  sigfillset(&set);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT}) sigdelset(&set, sig);
  return set;
}

// The signals read whose default action is not to end a process: to
// ignore it, or to stop it. The others end the zygote when Node sends
// them (or once Node is dead), as SIGTERM does.
constexpr int kNeverEnding[] = {SIGCHLD, SIGCONT, SIGURG, SIGWINCH, SIGTSTP, SIGTTIN, SIGTTOU};

bool endsByDefault(int sig) {
  for (int s : kNeverEnding)
    if (s == sig) return false;
  return true;
}

// A descriptor polled has something to read, its end, or an error (a
// descriptor closed under us, POLLNVAL, would otherwise be polled again
// at once, forever).
constexpr short kReadable = POLLIN | POLLHUP | POLLERR | POLLNVAL;

// A role forked whose start is not known yet: its status pipe says, at
// its end (started) or with an errno (failed before the role).
struct Starting {
  long id;
  pid_t pid;
  int statusFd;
};

// What the status pipe of a role said: "forked", or "fork_failed" with the
// errno and the call it failed in.
void reportStart(const Starting& s) {
  char why[64];
  ssize_t got;
  do got = read(s.statusFd, why, sizeof why);
  while (got < 0 && errno == EINTR);
  close(s.statusFd);
  if (got >= static_cast<ssize_t>(sizeof(int))) {
    int e;
    std::memcpy(&e, why, sizeof e);
    reply(json::Object{{"t", msg::kForkFailed}, {"id", s.id}, {"errno", e}, {"syscall", std::string(why + sizeof e, static_cast<size_t>(got) - sizeof e)}});
    // Its exit is reaped and reported like any other; Node ignores it.
  } else {
    reply(json::Object{{"t", msg::kForked}, {"id", s.id}, {"pid", static_cast<int>(s.pid)}});
  }
}

// Roles forked and still on their way to the role: their starts are read
// as they come, not waited for, so that a host's end is reaped and
// reported while the next host starts (a spare host is often asked for
// just as the host before it ends).
std::vector<Starting> g_starting;

// The start of a role that has ended already: its status pipe is at its
// end, or holds why it failed, so this does not wait.
void reportStartOf(pid_t pid) {
  for (size_t i = 0; i < g_starting.size(); i++)
    if (g_starting[i].pid == pid) {
      reportStart(g_starting[i]);
      g_starting.erase(g_starting.begin() + static_cast<long>(i));
      return;
    }
}

bool isRole(pid_t child) { return g_roles.count(child) != 0; }

// What the roles that ended left below them came back to us: it is
// killed and reaped, as a keeper of the host's own would, before the
// host's end is reported (so that nothing below a host outlives the
// report); the other hosts, and what is below them, are spared. Bounded
// (process_tree.h): a process we may not kill (a setuid program's) or
// that does not die at once holds up no host for long; it is tried again
// at the next host's end, and at the zygote's own.
void killOrphans() { killDescendants(isRole); }

// Reaps what ended; the roles' statuses go to Node once what they left is gone.
void reapChildren() {
  std::vector<std::pair<pid_t, int>> ended;
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
    if (g_roles.erase(pid)) ended.emplace_back(pid, status);
  if (ended.empty()) return;
  killOrphans();
  for (const auto& [role, raw] : ended) {
    // A role that ended as soon as it started (between the poll and this
    // reaping): its start is reported first, as Node needs it.
    reportStartOf(role);
    reply(json::Object{{"t", msg::kReaped}, {"pid", static_cast<int>(role)}, {"status", raw}});
  }
}

int serve(int sfd, const ArgvArea& area, const std::string& exe, const std::string& nodeText, pid_t self, RoleMain roleMain);

}  // namespace

int run(int argc, char** argv, RoleMain roleMain) {
  // plugstack-host zygote --parent <pid> --fd <n> [--pad <...>]
  if (argc < 6 || std::strcmp(argv[2], "--parent") != 0 || std::strcmp(argv[4], "--fd") != 0) return 2;
  char* end;
  long node = std::strtol(argv[3], &end, 10);
  if (*end || node <= 0) return 2;
  g_ctl = static_cast<int>(std::strtol(argv[5], &end, 10));
  if (*end || g_ctl < 3 || fcntl(g_ctl, F_GETFD) < 0) return 2;
  fcntl(g_ctl, F_SETFD, FD_CLOEXEC);
  ArgvArea area{argv[0], static_cast<size_t>(argv[argc - 1] + std::strlen(argv[argc - 1]) + 1 - argv[0])};
  const std::string exe = argv[0];
  const std::string nodeText = argv[3];
  defaultInternalSignals();
  // The keeper of every host it forks: what a host leaves when it ends
  // comes back here, and goes.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  // Ends with Node, and so do its hosts: Node's death, like Node's own
  // request to end, is a SIGTERM, read below (no plugin code runs here, so
  // nothing can have changed how it is handled).
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != node) return 1;
  // Nothing of ours on the standard descriptors: a role gets Node's.
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null >= 0) {
    for (int fd = 0; fd < 3; fd++) dup2(null, fd);
    close(null);
  }
  // Nothing else of Node's either: only the control socket.
  closeFrom(g_ctl + 1);
  for (int fd = 3; fd < g_ctl; fd++) close(fd);
  sigset_t mine = signalsRead();
  sigprocmask(SIG_BLOCK, &mine, nullptr);
  int sfd = signalfd(-1, &mine, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0) return 1;
  signal(SIGPIPE, SIG_IGN);
  const pid_t self = getpid();
  // Node uses the zygote once it has said who it is.
  reply(json::Object{{"t", msg::kHello}, {"protocol", msg::kProtocolVersion}, {"pid", static_cast<int>(self)}, {"role", "zygote"}});
  loadUserDatabase();
  int rc = serve(sfd, area, exe, nodeText, self, roleMain);
  // However it ends, nothing it started outlives it.
  killAllDescendants();
  return rc;
}

namespace {

int serve(int sfd, const ArgvArea& area, const std::string& exe, const std::string& nodeText, pid_t self, RoleMain roleMain) {
  const pid_t node = static_cast<pid_t>(std::strtol(nodeText.c_str(), nullptr, 10));
  std::string pending;
  std::deque<int> fdQueue;
  std::vector<Starting>& starting = g_starting;
  std::vector<struct pollfd> pfd;
  for (;;) {
    pfd.assign({{g_ctl, POLLIN, 0}, {sfd, POLLIN, 0}});
    for (const Starting& s : starting) pfd.push_back({s.statusFd, POLLIN, 0});
    if (poll(pfd.data(), pfd.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    // Starts first: a role's "forked" comes before its "reaped" (its
    // status pipe ends before it can exit; one that ended since the poll
    // is reported at its reaping).
    for (size_t i = starting.size(); i-- > 0;) {
      if (!(pfd[2 + i].revents & kReadable)) continue;
      reportStart(starting[i]);
      starting.erase(starting.begin() + static_cast<long>(i));
    }
    // The signalfd cannot fail or close under us; if it did, neither a
    // host's end nor Node's could be heard any more.
    if (pfd[1].revents & (POLLERR | POLLNVAL)) return 1;
    if (pfd[1].revents & POLLIN) {
      struct signalfd_siginfo si;
      bool end = false;
      while (read(sfd, &si, sizeof si) == static_cast<ssize_t>(sizeof si))
        // Node's request (or its death: the parent-death signal comes
        // from the dead parent's pid); one from anyone else (plugin code
        // in a host signalling its parent, say) must not end every host
        // of Node's, and is let go.
        if (endsByDefault(static_cast<int>(si.ssi_signo)) && (static_cast<pid_t>(si.ssi_pid) == node || getppid() != node))
          end = true;
      // Node's end, or its request: run() ends every host.
      if (end) return 0;
      reapChildren();
    }
    if (!(pfd[0].revents & kReadable)) continue;
    char buf[65536];
    alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds * 4)];
    struct iovec iov = {buf, sizeof buf};
    struct msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n = recvmsg(g_ctl, &msg, MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == EINTR) continue;
    // Node closed its end (or died): nothing more will be asked.
    if (n <= 0) return 0;
    for (struct cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      const int* data = reinterpret_cast<const int*>(CMSG_DATA(c));
      for (size_t i = 0; i < count; i++) fdQueue.push_back(data[i]);
    }
    // Descriptors cut off for want of room: the stream can no longer be trusted.
    if (msg.msg_flags & MSG_CTRUNC) return 1;
    pending.append(buf, static_cast<size_t>(n));
    while (pending.size() >= 4) {
      auto* h = reinterpret_cast<const unsigned char*>(pending.data());
      uint32_t len = h[0] | (h[1] << 8) | (h[2] << 16) | (static_cast<uint32_t>(h[3]) << 24);
      if (len > kMaxRequest) return 1;
      if (pending.size() < 4 + len) break;
      json::Value value;
      std::string error;
      Request req;
      bool ok = json::parse(pending.substr(4, len), &value, &error) && parseRequest(value, &req);
      pending.erase(0, 4 + len);
      if (!ok) return 1;
      size_t want = (req.stdinGiven ? 5 : 4) + (req.slotsGiven ? 1 : 0);
      if (fdQueue.size() < want) return 1;
      std::vector<int> fds(fdQueue.begin(), fdQueue.begin() + static_cast<long>(want));
      fdQueue.erase(fdQueue.begin(), fdQueue.begin() + static_cast<long>(want));
      int status[2];
      if (pipe2(status, O_CLOEXEC) != 0) {
        int e = errno;
        for (int fd : fds) close(fd);
        reply(json::Object{{"t", msg::kForkFailed}, {"id", req.id}, {"errno", e}, {"syscall", "pipe"}});
        continue;
      }
      pid_t pid = fork();
      if (pid == 0) {
        close(g_ctl);
        close(sfd);
        close(status[0]);
        for (const Starting& s : starting) close(s.statusFd);
        becomeRole(req, fds, status[1], area, exe, nodeText, self, roleMain);
      }
      int forkErrno = errno;
      for (int fd : fds) close(fd);
      close(status[1]);
      if (pid < 0) {
        close(status[0]);
        reply(json::Object{{"t", msg::kForkFailed}, {"id", req.id}, {"errno", forkErrno}, {"syscall", "fork"}});
        continue;
      }
      // A role from now on, not an orphan: its end is reported (one that
      // failed to start too; Node ignores that).
      g_roles.insert(pid);
      starting.push_back({req.id, pid, status[0]});
    }
  }
}

}  // namespace

}  // namespace plugstack::zygote
