#include "lifecycle/process_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace plugstack {

namespace {

// Writes n in decimal at p; returns the end. No locale, no allocation.
char* formatUnsigned(char* p, unsigned long n) {
  char tmp[24];
  int len = 0;
  do tmp[len++] = static_cast<char>('0' + n % 10);
  while ((n /= 10) != 0);
  while (len) *p++ = tmp[--len];
  return p;
}

// "/proc/<a>/task/<b>/children" into buf (at least 64 bytes).
void childrenPath(char* buf, const char* self, const char* tid) {
  char* p = buf;
  for (const char* s = "/proc/"; *s;) *p++ = *s++;
  for (const char* s = self; *s;) *p++ = *s++;
  for (const char* s = "/task/"; *s;) *p++ = *s++;
  for (const char* s = tid; *s;) *p++ = *s++;
  for (const char* s = "/children"; *s;) *p++ = *s++;
  *p = '\0';
}

// Calls visit(pid) for each child listed in one children file. Returns
// false when the file could not be read.
template <typename Visit>
bool forEachChildIn(const char* path, Visit&& visit) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  // The kernel produces the list in pages; read it whole, carrying a
  // number cut at a buffer boundary over to the next read.
  char buf[4096];
  unsigned long current = 0;
  bool inNumber = false;
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (ssize_t i = 0; i < n; i++) {
      if (buf[i] >= '0' && buf[i] <= '9') {
        current = current * 10 + static_cast<unsigned long>(buf[i] - '0');
        inNumber = true;
      } else if (inNumber) {
        visit(static_cast<pid_t>(current));
        current = 0;
        inNumber = false;
      }
    }
  }
  if (inNumber) visit(static_cast<pid_t>(current));
  close(fd);
  return true;
}

// Calls visit(pid) for each child of process `self` ("self" or a number),
// through the children file of every one of its threads: a plugin may
// fork from a thread of its own.
template <typename Visit>
void forEachChild(const char* self, Visit&& visit) {
  char dirPath[64];
  char* p = dirPath;
  for (const char* s = "/proc/"; *s;) *p++ = *s++;
  for (const char* s = self; *s;) *p++ = *s++;
  for (const char* s = "/task"; *s;) *p++ = *s++;
  *p = '\0';
  int dir = open(dirPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return;
  // getdents64 directly: opendir allocates, which a signal handler may not.
  alignas(8) char entries[4096];
  for (;;) {
    long n = syscall(SYS_getdents64, dir, entries, sizeof entries);
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      auto* d = reinterpret_cast<struct dirent64*>(entries + off);
      off += d->d_reclen;
      if (d->d_name[0] < '0' || d->d_name[0] > '9') continue;
      char path[96];
      childrenPath(path, self, d->d_name);
      forEachChildIn(path, visit);
    }
  }
  close(dir);
}

std::string readSmallFile(const std::string& path) {
  std::string out;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[4096];
  ssize_t n;
  // A command line is shown, not parsed: the first 4 KiB say enough.
  while (out.size() < 4096 && (n = read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  close(fd);
  return out;
}

}  // namespace

bool mayHaveChildren() {
  int saved = errno;
  siginfo_t info;
  info.si_pid = 0;
  bool none = waitid(P_ALL, 0, &info, WEXITED | WSTOPPED | WCONTINUED | WNOHANG | WNOWAIT | __WALL) < 0 &&
              errno == ECHILD;
  errno = saved;
  return !none;
}

std::vector<pid_t> childrenOf(pid_t pid) {
  std::vector<pid_t> out;
  char self[24];
  *formatUnsigned(self, static_cast<unsigned long>(pid)) = '\0';
  forEachChild(self, [&](pid_t child) { out.push_back(child); });
  return out;
}

bool readProcess(pid_t pid, ProcessInfo* out) {
  std::string base = "/proc/" + std::to_string(pid);
  std::string stat = readSmallFile(base + "/stat");
  // "pid (comm) state ppid pgrp session ...": comm may hold spaces and
  // parentheses, so the fields start after the last ')'.
  size_t close = stat.rfind(')');
  size_t open = stat.find('(');
  if (close == std::string::npos || open == std::string::npos) return false;
  char state = 0;
  int ppid = 0, pgid = 0, sid = 0;
  if (std::sscanf(stat.c_str() + close + 1, " %c %d %d %d", &state, &ppid, &pgid, &sid) != 4) return false;
  out->pid = pid;
  out->ppid = ppid;
  out->pgid = pgid;
  out->sid = sid;
  out->zombie = state == 'Z';
  std::string cmdline = readSmallFile(base + "/cmdline");
  while (!cmdline.empty() && cmdline.back() == '\0') cmdline.pop_back();
  for (char& c : cmdline)
    if (c == '\0') c = ' ';
  out->command = cmdline.empty() ? "[" + stat.substr(open + 1, close - open - 1) + "]" : cmdline;
  return true;
}

std::vector<ProcessInfo> descendants() {
  std::vector<ProcessInfo> out;
  // Without a child, nothing is below us (everything below a subreaper
  // hangs from one of its children).
  if (!mayHaveChildren()) return out;
  std::vector<pid_t> queue = childrenOf(getpid());
  for (size_t i = 0; i < queue.size(); i++) {
    ProcessInfo info;
    if (!readProcess(queue[i], &info)) continue;
    out.push_back(info);
    for (pid_t c : childrenOf(queue[i])) queue.push_back(c);
  }
  return out;
}

int killDescendants(bool (*spare)(pid_t child), int rounds) {
  int killed = 0;
  for (int round = 0; round < rounds && mayHaveChildren(); round++) {
    int found = 0;
    forEachChild("self", [&](pid_t child) {
      if (spare && spare(child)) return;
      found++;
      if (kill(child, SIGKILL) == 0) killed++;
      // Reaped once dead (a zombie stays listed as a child until then, and
      // is reaped in a later round); its own children are ours then and
      // show up in the next round.
      int status;
      waitpid(child, &status, WNOHANG);
    });
    if (!found) break;
    struct timespec pause = {0, 1000000};  // 1 ms for SIGKILL to land
    nanosleep(&pause, nullptr);
  }
  return killed;
}

}  // namespace plugstack
