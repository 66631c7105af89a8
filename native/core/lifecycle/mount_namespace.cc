#include "lifecycle/mount_namespace.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace plugstack {

int runMountNamespaceHolder() {
  pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) return 1;
  if (unshare(CLONE_NEWNS) != 0) {
    std::fprintf(stderr, "unshare(CLONE_NEWNS): %s\n", std::strerror(errno));
    return 1;
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

bool enterRunMountNamespace(std::string* error) {
  const char* path = std::getenv("PLUGSTACK_MOUNT_NS");
  if (!path || !*path) return true;
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
