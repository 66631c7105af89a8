#include "lifecycle/mount_namespace.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

namespace plugstack {

int runMountNamespaceHolder() {
  pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) return 1;
  // Without root: a user namespace of the run's own first, mapping the
  // caller's uid and gid to themselves (the only mapping an unprivileged
  // process may write), in which the run's processes have the capabilities
  // the namespace work needs while their ids stay the caller's.
  uid_t uid = getuid();
  gid_t gid = getgid();
  bool user = geteuid() != 0;
  if (unshare(CLONE_NEWNS | (user ? CLONE_NEWUSER : 0)) != 0) {
    std::fprintf(stderr, "unshare(%s): %s\n", user ? "CLONE_NEWUSER|CLONE_NEWNS" : "CLONE_NEWNS", std::strerror(errno));
    return 1;
  }
  if (user) {
    std::string uidMap = std::to_string(uid) + " " + std::to_string(uid) + " 1\n";
    std::string gidMap = std::to_string(gid) + " " + std::to_string(gid) + " 1\n";
    const std::pair<const char*, std::string> writes[] = {
        {"/proc/self/uid_map", uidMap}, {"/proc/self/setgroups", "deny\n"}, {"/proc/self/gid_map", gidMap}};
    for (const auto& [file, text] : writes) {
      int fd = open(file, O_WRONLY | O_CLOEXEC);
      bool ok = fd >= 0 && write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
      int err = errno;
      if (fd >= 0) close(fd);
      if (!ok) {
        std::fprintf(stderr, "%s: %s\n", file, std::strerror(err));
        return 1;
      }
    }
  }
  // Nothing mounted below / from here on propagates back to the machine.
  if (mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    std::fprintf(stderr, "mount(/, MS_REC|MS_PRIVATE): %s\n", std::strerror(errno));
    return 1;
  }
  if (std::printf("ready %d\n", static_cast<int>(getpid())) < 0 || std::fflush(stdout) != 0) return 1;
  // Until Node closes our stdin or kills us.
  char c;
  for (;;) {
    ssize_t n = read(0, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
  }
}

namespace {

// The holder's user namespace, when the run has one of its own (the run
// without root) and this process is not in it yet: entered first, so that
// the mount namespace it owns can be entered.
bool enterRunUserNamespace(const std::string& mountNs, std::string* error) {
  std::string path = mountNs.substr(0, mountNs.rfind('/')) + "/user";
  struct stat mine, theirs;
  if (stat("/proc/self/ns/user", &mine) != 0 || stat(path.c_str(), &theirs) != 0) return true;
  if (mine.st_ino == theirs.st_ino && mine.st_dev == theirs.st_dev) return true;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = "the run's user namespace " + path + ": " + std::strerror(errno);
    return false;
  }
  int rc = setns(fd, CLONE_NEWUSER);
  int err = errno;
  close(fd);
  if (rc != 0) {
    *error = "cannot enter the run's user namespace " + path + ": " + std::strerror(err);
    return false;
  }
  return true;
}

}  // namespace

bool enterRunMountNamespace(std::string* error) {
  const char* path = std::getenv("PLUGSTACK_MOUNT_NS");
  if (!path || !*path) return true;
  if (!enterRunUserNamespace(path, error)) return false;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = std::string("the run's mount namespace ") + path + ": " + std::strerror(errno);
    return false;
  }
  int rc = setns(fd, CLONE_NEWNS);
  int err = errno;
  close(fd);
  if (rc != 0) {
    *error = std::string("cannot enter the run's mount namespace ") + path + ": " + std::strerror(err);
    return false;
  }
  // The variable is ours, not the job's.
  unsetenv("PLUGSTACK_MOUNT_NS");
  return true;
}

}  // namespace plugstack
