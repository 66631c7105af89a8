#include "lifecycle/user_env.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/comma_list.h"
#include "common/events.h"
#include "common/slurm_log.h"
#include "lifecycle/containment.h"
#include "rules/rlimits.h"
#include "spank/env_array.h"

extern char** environ;

namespace plugstack::user_env {

namespace {

// Where Debian's Slurm finds su (configure's SUCMD) and echo.
constexpr char kSu[] = "/bin/su";
constexpr char kEcho[] = "/bin/echo";
// The marks around what the getenv command prints: whatever the login
// scripts print before it is skipped.
constexpr char kStart[] = "XXXXSLURMSTARTPARSINGHEREXXXX";
constexpr char kStop[] = "XXXXSLURMSTOPPARSINGHEREXXXXX";
// ENV_BUFSIZE: the most of su's output Slurm reads, and the longest value.
constexpr size_t kBufSize = 256 * 1024;
// The longest name _env_array_entry_splitter takes (PATH_MAX with its NUL).
constexpr size_t kNameMax = 4096;

double now() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

// What a POSIX shell reads as one word, whatever the path holds.
std::string shellQuoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// _discard_env: what the node's login may set but a job must not inherit.
bool discarded(const std::string& name) { return name == "DISPLAY" || name == "ENVIRONMENT" || name == "HOSTNAME"; }

// _bracket_cnt: braces opened and not yet closed in a bash function's text.
int openBraces(const std::string& value) {
  int count = 0;
  for (char c : value) count += c == '{' ? 1 : c == '}' ? -1 : 0;
  return count;
}

// strtok_r(buffer, "\n"): the lines, empty ones skipped, up to the first
// NUL (where Slurm's string ends).
std::vector<std::string> lines(const std::string& output) {
  const std::string text = output.substr(0, output.find('\0'));
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (end > at) out.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

// The variables between the marks, as env_array_user_default keeps them.
// False (with Slurm's line logged) when a mark is missing.
bool parse(const std::string& output, EnvArray* env) {
  const std::vector<std::string> all = lines(output);
  size_t i = 0;
  while (i < all.size() && all[i].compare(0, sizeof kStart - 1, kStart) != 0) i++;
  if (i == all.size()) {
    slurmLog(LogLevel::Error, "Failed to get current user environment variables");
    return false;
  }
  for (i++; i < all.size(); i++) {
    const std::string& line = all[i];
    if (line.compare(0, sizeof kStop - 1, kStop) == 0) return true;
    size_t eq = line.find('=');
    // _env_array_entry_splitter: an '=' and a name and value that fit.
    if (eq == std::string::npos || eq + 1 > kNameMax || line.size() - eq > kBufSize) continue;
    std::string name = line.substr(0, eq);
    std::string value = line.substr(eq + 1);
    if (discarded(name)) continue;
    // A bash function (BASH_FUNC_f%%=() {...}) goes on over the next lines
    // until its braces close; a line that would overflow the value is
    // taken and dropped, and ends it.
    if (!value.empty() && value[0] == '(')
      while (openBraces(value) > 0 && i + 1 < all.size()) {
        const std::string& next = all[++i];
        if (value.size() + next.size() > kBufSize - 2) break;
        value += "\n" + next;
      }
    env->set(name, value);
  }
  slurmLog(LogLevel::Error, "Failed to get all user environment variables");
  return false;
}

// Reads the child's output until it ends, the buffer is full or the time is
// up; true when it ended.
bool readAll(int fd, pid_t child, int timeoutSec, std::string* out) {
  const double deadline = now() + timeoutSec;
  char buf[16384];
  for (;;) {
    int left = static_cast<int>((deadline - now()) * 1000);
    if (left <= 0) {
      slurmLog(LogLevel::Verbose, std::string("timeout waiting for ") + kSu + " to complete");
      kill(-child, SIGKILL);
      return false;
    }
    struct pollfd p = {fd, POLLIN, 0};
    int rc = poll(&p, 1, left);
    if (rc < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (rc < 0) {
      slurmLog(LogLevel::Error, std::string("poll(): ") + std::strerror(errno));
      return false;
    }
    if (rc == 0) continue;  // the deadline check above ends it
    if (!(p.revents & POLLIN)) {
      if (p.revents & POLLHUP) return true;
      slurmLog(LogLevel::Error, p.revents & POLLERR ? std::string("POLLERR")
                                                     : "poll() revents=" + std::to_string(p.revents));
      return false;
    }
    if (out->size() >= kBufSize) {
      slurmLog(LogLevel::Error, "buffer overflow loading env vars");
      return false;
    }
    ssize_t n = read(fd, buf, std::min(sizeof buf, kBufSize - out->size()));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) {
      slurmLog(LogLevel::Error, std::string("read(env pipe): ") + std::strerror(errno));
      return false;
    }
    if (n == 0) return true;
    out->append(buf, static_cast<size_t>(n));
  }
}

// su's process group killed (usually gone already) and su reaped; Slurm
// gives up after two more tries a second apart (a process stuck in the
// kernel stays a zombie). Polled here every 10 ms for the same 2 s, so
// that a su still closing its PAM session costs no whole second.
void endChild(pid_t child) {
  for (int tries = 0; tries <= 200; tries++) {
    kill(-child, SIGKILL);
    int status;
    pid_t r = waitpid(child, &status, WNOHANG);
    if (r == child || (r < 0 && errno != EINTR)) return;
    usleep(10000);
  }
  slurmLog(LogLevel::Error, "Failed to kill program loading user environment");
}

}  // namespace

Loaded loadDefault(const std::string& user, const std::vector<std::string>& getenv, int timeoutSec) {
  Loaded result;
  if (geteuid() != 0) {
    slurmLog(LogLevel::Error, "SlurmdUser must be root to use --get-user-env");
    return result;
  }
  // Slurm's slurmd ends (fatal) when su or echo is missing.
  struct stat st;
  for (const char* path : {kSu, kEcho})
    if (stat(path, &st) != 0) {
      slurmLog(LogLevel::Error, std::string("Could not locate command: ") + path, true);
      return result;
    }
  std::string getenvCommand;
  for (const std::string& word : getenv) getenvCommand += (getenvCommand.empty() ? "" : " ") + shellQuoted(word);
  const std::string command = std::string("/bin/echo; /bin/echo; /bin/echo; /bin/echo ") + kStart + "; " +
                              getenvCommand + "; /bin/echo " + kStop;
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) < 0) {
    slurmLog(LogLevel::Error, std::string("pipe: ") + std::strerror(errno), true);
    return result;
  }
  flushEvents();
  pid_t child = fork();
  if (child < 0) {
    close(pipefd[0]);
    close(pipefd[1]);
    slurmLog(LogLevel::Error, std::string("fork: ") + std::strerror(errno), true);
    return result;
  }
  if (child == 0) {
    // su and the login shell under it: a process group of their own, which
    // a timeout kills whole, and dead with this host.
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, STDIN_FILENO);
      dup2(null, STDERR_FILENO);
    }
    dup2(pipefd[1], STDOUT_FILENO);
    // Nothing of the host's reaches su (the channel to Node above all).
    if (syscall(SYS_close_range, 3u, ~0u, 0) != 0)
      for (int fd = 3; fd < 1024; fd++) close(fd);
    // su starts from an environment of its own: ENVIRONMENT=BATCH alone
    // (su - then builds the login's).
    char batch[] = "ENVIRONMENT=BATCH";
    char* env[] = {batch, nullptr};
    execle(kSu, "su", "-", user.c_str(), "-c", command.c_str(), static_cast<char*>(nullptr), env);
    _exit(1);
  }
  containment::adopt(child);
  close(pipefd[1]);
  // Non-blocking, as Slurm reads it: a login shell's background job that
  // keeps the pipe open cannot hold the read past the poll's deadline.
  fcntl(pipefd[0], F_SETFL, fcntl(pipefd[0], F_GETFL) | O_NONBLOCK);
  std::string output;
  bool ended = readAll(pipefd[0], child, timeoutSec, &output);
  close(pipefd[0]);
  endChild(child);
  if (!ended) {
    slurmLog(LogLevel::Error, "Failed to load current user environment variables");
    return result;
  }
  EnvArray env;
  if (!parse(output, &env)) return result;
  result.ok = true;
  result.env = env.entries();
  return result;
}

int printLoginEnv(const std::string& rlimitTable) {
  for (const std::string& name : commaItems(rlimitTable)) {
    int resource = rlimits::resourceOf(name);
    struct rlimit r;
    if (resource >= 0 && getrlimit(resource, &r) == 0)
      std::printf("SLURM_RLIMIT_%s=%lu\n", name.c_str(), static_cast<unsigned long>(r.rlim_cur));
  }
  for (char** e = environ; *e; e++) std::printf("%s\n", *e);
  return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace plugstack::user_env
