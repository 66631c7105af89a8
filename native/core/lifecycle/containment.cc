#include "lifecycle/containment.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "common/events.h"
#include "lifecycle/process_tree.h"
#include "protocol/messages.h"

namespace plugstack::containment {

namespace {

struct Origin {
  int ref;
  std::string hook;
  int task;
};

// A set of descriptor numbers as one bit each: descriptors are small
// numbers, and a step owns a few per task. Adding and removing one
// allocates nothing, so a forked task child, which drops the other tasks'
// pipes, writes one page of its copy of the heap, not one per tree node.
class FdSet {
 public:
  void insert(int fd) {
    if (fd < 0) return;
    size_t word = static_cast<size_t>(fd) / 64;
    if (word >= bits_.size()) bits_.resize(word + 1, 0);
    bits_[word] |= uint64_t{1} << (fd % 64);
  }
  void erase(int fd) {
    size_t word = static_cast<size_t>(fd) / 64;
    if (fd >= 0 && word < bits_.size()) bits_[word] &= ~(uint64_t{1} << (fd % 64));
  }
  bool count(int fd) const {
    size_t word = static_cast<size_t>(fd) / 64;
    return fd >= 0 && word < bits_.size() && (bits_[word] >> (fd % 64)) & 1;
  }

 private:
  std::vector<uint64_t> bits_;
};

// The children this process made itself (tasks) or already reported. The
// record belongs to the process that wrote it: a forked task child starts
// with none of its own, and finds that out on first use rather than by
// freeing its copy of the parent's tree node by node (a step's children
// are many, and every page those frees write is a copy-on-write fault in
// a child that is about to exec).
class ChildSet {
 public:
  bool count(pid_t pid) {
    adoptIfInherited();
    return pids_.count(pid) != 0;
  }
  void insert(pid_t pid) {
    adoptIfInherited();
    pids_.insert(pid);
  }

 private:
  void adoptIfInherited() {
    pid_t self = static_cast<pid_t>(currentPid());
    if (owner_ == self) return;
    pids_.clear();
    owner_ = self;
  }
  pid_t owner_ = 0;
  std::set<pid_t> pids_;
};

// Descriptors open before any plugin code (stdio, the channel) and those
// plugstack opens for itself later: never a plugin's.
FdSet g_plugstackFds;
// Descriptors plugin code opened, with the hook that opened them.
std::map<int, Origin> g_fdOrigin;
// Children the role made (tasks) or already reported.
ChildSet g_knownChildren;
// Processes plugin code started in this process: pid -> origin.
std::map<pid_t, Origin> g_started;
// Processes already reported as left behind.
std::set<pid_t> g_reportedLeft;
// /proc/sys/kernel/ns_last_pid, kept open: one pread tells whether any
// process was created since the last reading. -1 when the kernel has none
// (then every hook is followed by a look at our children).
int g_lastPidFd = -1;

long lastPid() {
  if (g_lastPidFd < 0) return -1;
  char buf[32];
  ssize_t n = pread(g_lastPidFd, buf, sizeof buf - 1, 0);
  if (n <= 0) return -1;
  buf[n] = '\0';
  return std::strtol(buf, nullptr, 10);
}

int lowestFreeFd() {
  int fd = fcntl(0, F_DUPFD_CLOEXEC, 0);
  if (fd >= 0) close(fd);
  return fd;
}

std::vector<int> openFds() {
  std::vector<int> out;
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return out;
  int own = dirfd(dir);
  while (struct dirent* e = readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    int fd = std::atoi(e->d_name);
    if (fd != own) out.push_back(fd);
  }
  closedir(dir);
  return out;
}

std::string fdTarget(int fd) {
  char path[64], target[PATH_MAX];
  std::snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(path, target, sizeof target - 1);
  return n > 0 ? std::string(target, static_cast<size_t>(n)) : "?";
}

void reportStarted(const ProcessInfo& p, const Origin& o) {
  Event ev(msg::kSpawned);
  ev.add("pid", static_cast<int>(p.pid)).add("ref", o.ref).add("hook", o.hook).add("command", p.command);
  ev.add("pgid", static_cast<int>(p.pgid)).add("sid", static_cast<int>(p.sid));
  if (o.task >= 0) ev.add("task", o.task);
  emitEvent(ev);
}

void reportLeft(const ProcessInfo& p) {
  if (p.zombie || !g_reportedLeft.insert(p.pid).second) return;
  emitEvent(Event(msg::kLeft)
                .add("pid", static_cast<int>(p.pid))
                .add("command", p.command)
                .add("pgid", static_cast<int>(p.pgid))
                .add("sid", static_cast<int>(p.sid)));
}

// What the role's process has before any plugin code: a pid reading kept
// open, and its descriptors (none of them a plugin's).
void noteBaseline() {
  g_lastPidFd = open("/proc/sys/kernel/ns_last_pid", O_RDONLY | O_CLOEXEC);
  for (int fd : openFds()) g_plugstackFds.insert(fd);
}

// Node died: everything below us goes, then we do. Only async-signal-safe
// calls from here.
void onParentDeath(int) {
  killAllDescendants();
  _exit(1);
}

}  // namespace

void start(pid_t parent) {
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  // A real-time signal no plugin is likely to use or block; a task child
  // puts it back first thing (enterChild): it dies with its parent instead.
  struct sigaction sa = {};
  sa.sa_handler = onParentDeath;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGRTMIN + 2, &sa, nullptr);
  prctl(PR_SET_PDEATHSIG, SIGRTMIN + 2);
  // Node may have died before we asked: then nobody would ever signal us.
  if (parent > 0 && getppid() != parent) onParentDeath(0);
}

namespace {

// Node's request to end the host: everything below the keeper goes, and
// the keeper dies as a killed host does.
void onEndRequest(int) {
  killAllDescendants();
  signal(SIGKILL, SIG_DFL);
  kill(getpid(), SIGKILL);
}

[[noreturn]] void keeperWait(pid_t role) {
  int status = 0;
  for (;;) {
    int st;
    pid_t pid = waitpid(-1, &st, 0);
    if (pid == role) {
      status = st;
      break;
    }
    if (pid < 0 && errno != EINTR) break;  // ECHILD: nothing left to wait for
  }
  killAllDescendants();
  if (WIFSIGNALED(status)) {
    // Die the way the role died, so that Node sees the same signal; one
    // core file (the role's) is enough.
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    int sig = WTERMSIG(status);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
    kill(getpid(), sig);
  }
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

}  // namespace

void keep(int eventsFd, int commandsFd) {
  pid_t keeper = getpid();
  pid_t role = fork();
  if (role < 0) return;  // no keeper: the role runs in this process
  if (role > 0) {
    // Only the role talks to Node: its ends of the streams are the role's.
    close(eventsFd);
    if (commandsFd != eventsFd) close(commandsFd);
    struct sigaction sa = {};
    sa.sa_handler = onEndRequest;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, nullptr);
    keeperWait(role);
  }
  // The role's process: dies with its keeper, and sees its own children.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != keeper) _exit(1);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  noteBaseline();
}

void keptByParent() {
  // start() made this process a subreaper that ends everything below it
  // when its parent, the zygote, dies; the zygote ends what it leaves.
  noteBaseline();
}

Probe before() { return {lastPid(), lowestFreeFd()}; }

void after(const Probe& probe, int ref, const std::string& hook, int task) {
  const Origin origin{ref, hook, task};
  long pidNow = lastPid();
  if ((pidNow < 0 || pidNow != probe.lastPid) && mayHaveChildren()) {
    // Something was created somewhere: look at our children, and at
    // everything below a child we have not seen yet.
    std::vector<pid_t> queue;
    for (pid_t c : childrenOf(getpid()))
      if (!g_knownChildren.count(c)) queue.push_back(c);
    for (size_t i = 0; i < queue.size(); i++) {
      ProcessInfo info;
      if (g_knownChildren.count(queue[i]) || !readProcess(queue[i], &info)) continue;
      g_knownChildren.insert(queue[i]);
      g_started.emplace(queue[i], origin);
      reportStarted(info, origin);
      for (pid_t c : childrenOf(queue[i])) queue.push_back(c);
    }
  }
  if (lowestFreeFd() != probe.lowestFreeFd) {
    for (int fd : openFds())
      if (!g_plugstackFds.count(fd) && !g_fdOrigin.count(fd)) g_fdOrigin.emplace(fd, origin);
  }
}

void adopt(pid_t pid) { g_knownChildren.insert(pid); }

void own(int fd) { g_plugstackFds.insert(fd); }

void disown(int fd) {
  g_plugstackFds.erase(fd);
  // Looked up first: erasing a key from an empty map resets the map's
  // header, a write (and between a step's forks, a page copied) for nothing.
  auto it = g_fdOrigin.find(fd);
  if (it != g_fdOrigin.end()) g_fdOrigin.erase(it);
}

void closeOwned(int* fd) {
  if (*fd < 0) return;
  disown(*fd);
  close(*fd);
  *fd = -1;
}

bool startedByPlugin(pid_t pid, pid_t pgid, pid_t sid) {
  return g_started.count(pid) || g_started.count(pgid) || g_started.count(sid);
}

void enterChild() {
  // The parent's records describe the parent: in the child, everything
  // open now is inherited, and no process below it exists yet.
  for (const auto& [fd, origin] : g_fdOrigin) g_plugstackFds.insert(fd);
  // (Emptied only when not empty: clearing writes even an empty one.)
  if (!g_fdOrigin.empty()) g_fdOrigin.clear();
  // g_knownChildren: the parent's record, which ChildSet drops on first use.
  if (!g_started.empty()) g_started.clear();
  if (!g_reportedLeft.empty()) g_reportedLeft.clear();
  // Node's death is the parent's to handle (start above); the child's own
  // parent-death signal is set by whoever forked it.
  signal(SIGRTMIN + 2, SIG_DFL);
  // Orphans of what plugin code starts here (a daemon forked twice) come
  // back to this child, so that it can see and report them; the task
  // program must not inherit the attribute, so beforeExec drops it.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
}

void beforeExec(int task) {
  prctl(PR_SET_CHILD_SUBREAPER, 0);
  for (const auto& [fd, origin] : g_fdOrigin) {
    int flags = fcntl(fd, F_GETFD);
    if (flags < 0 || (flags & FD_CLOEXEC)) continue;
    Event ev(msg::kFdLeft);
    ev.add("fd", fd).add("target", fdTarget(fd)).add("ref", origin.ref).add("hook", origin.hook).add("task", task);
    emitEvent(ev);
  }
}

int killStrays(bool sparePlugins) {
  std::set<pid_t> spared;
  int killed = 0;
  for (const ProcessInfo& p : descendants()) {
    // Below a spared process, or started by plugin code here: may live on
    // until the role ends.
    if (sparePlugins && (spared.count(p.ppid) || startedByPlugin(p.pid, p.pgid, p.sid))) {
      spared.insert(p.pid);
      continue;
    }
    if (p.zombie) continue;
    reportLeft(p);
    if (kill(p.pid, SIGKILL) == 0) killed++;
  }
  // Reap what is dead; a spared process is reaped when the role ends.
  int status;
  for (const ProcessInfo& p : descendants())
    if (p.zombie && p.ppid == getpid()) waitpid(p.pid, &status, WNOHANG);
  return killed;
}

void finish(bool stackUnloaded) {
  for (const ProcessInfo& p : descendants()) reportLeft(p);
  killAllDescendants();
  if (!stackUnloaded) return;
  // Once the stack is unloaded (fini() and dlclose ran), a descriptor
  // plugin code opened and nobody closed is a leak.
  for (int fd : openFds()) {
    if (g_plugstackFds.count(fd) || fd == g_lastPidFd) continue;
    Event ev(msg::kFdLeft);
    ev.add("fd", fd).add("target", fdTarget(fd));
    auto it = g_fdOrigin.find(fd);
    if (it != g_fdOrigin.end()) ev.add("ref", it->second.ref).add("hook", it->second.hook);
    emitEvent(ev);
  }
}

void abandon() {
  killAllDescendants();
  _exit(1);
}

}  // namespace plugstack::containment
