#include "step/task_scripts.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <optional>

#include "common/events.h"
#include "common/slurm_log.h"
#include "job_container/jc_stepd.h"
#include "lifecycle/containment.h"
#include "rules/releases.h"
#include "rules/slurm_errors.h"

namespace plugstack {

namespace {

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

void writeAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= static_cast<size_t>(w);
  }
}

// _proc_stdout, line by line: "print " writes the rest of the line with
// its newline (at the end of an output without one, its terminating NUL
// too, as Slurm writes it); "export NAME=value" (spaces before '=' dropped)
// and "unset NAME" change env; anything else is ignored.
void applyPrologOutput(std::string output, EnvArray& env, int out) {
  output.push_back('\0');
  char* p = output.data();
  while (*p) {
    char* eol = std::strchr(p, '\n');
    bool last = eol == nullptr;
    if (last) eol = p + std::strlen(p);
    if (std::strncmp(p, "print ", 6) == 0) {
      char* text = p + 6;
      while (std::isspace(static_cast<unsigned char>(*text))) text++;
      // text may have skipped past the end of the line: Slurm writes from
      // there anyway, up to the end of its line.
      if (text <= eol) writeAll(out, text, static_cast<size_t>(eol - text + 1));
    } else if (std::strncmp(p, "export ", 7) == 0) {
      char* name = p + 7;
      while (std::isspace(static_cast<unsigned char>(*name))) name++;
      char* eq = std::strchr(name, '=');
      if (eq && eq <= eol) {
        std::string value(eq + 1, eol);
        char* end = eq;
        while (end > name && std::isspace(static_cast<unsigned char>(end[-1]))) end--;
        std::string n(name, end);
        if (!env.set(n, value)) slurmLog(LogLevel::Error, "Unable to set " + n + " environment variable");
      }
    } else if (std::strncmp(p, "unset ", 6) == 0) {
      char* name = p + 6;
      while (std::isspace(static_cast<unsigned char>(*name))) name++;
      if (*name != '\n' && *name != '\0') {
        char* end = eol;
        while (end > name && std::isspace(static_cast<unsigned char>(end[-1]))) end--;
        env.unset(std::string(name, end));
      }
    }
    if (last) break;
    p = eol + 1;
  }
}

// run_command as _run_script_and_set_env calls it: the script's output
// (stdout and stderr) and its wait status; checks first.
std::string runCommand(const char* type, const std::string& path, EnvArray& env, int* status,
                       const SlurmVersion& version) {
  const std::string configError = "Run command failed - configuration error";
  if (path[0] != '/') {
    slurmLog(LogLevel::Error, std::string("run_command: ") + type + " " +
                                  releases::taskScripts(version).notQualifiedText + " (" + path + ")");
    *status = 127;
    return configError;
  }
  if (access(path.c_str(), R_OK | X_OK) < 0) {
    slurmLog(LogLevel::Error, std::string("run_command: ") + type + " can not be executed (" + path + ") " +
                                  std::strerror(errno));
    *status = 127;
    return configError;
  }
  int pfd[2];
  if (pipe2(pfd, O_CLOEXEC) < 0) {
    slurmLog(LogLevel::Error, std::string("run_command: pipe(): ") + std::strerror(errno));
    *status = 127;
    return "System error";
  }
  flushEvents();
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR);
    if (null < 0) _exit(127);
    dup2(null, 0);
    dup2(pfd[1], 2);
    dup2(pfd[1], 1);
    if (syscall(SYS_close_range, 3u, ~0u, 0) != 0)
      for (int fd = 3; fd < 1024; fd++) close(fd);
    setpgid(0, 0);
    if (setresgid(getegid(), getegid(), static_cast<gid_t>(-1)) || setresuid(geteuid(), geteuid(), static_cast<uid_t>(-1)))
      _exit(127);
    char* argv[] = {const_cast<char*>(path.c_str()), nullptr};
    execve(path.c_str(), argv, env.data());
    _exit(127);
  }
  close(pfd[1]);
  std::string out;
  if (pid > 0) containment::adopt(pid);
  if (pid < 0) {
    close(pfd[0]);
    slurmLog(LogLevel::Error, std::string("run_command: fork(): ") + std::strerror(errno));
    *status = 127;
    return "System error";
  }
  char buf[4096];
  for (;;) {
    ssize_t n = read(pfd[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(pfd[0]);
  while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
  // What the script left running is not killed here (as in Slurm): it is
  // the step's, ended with the step.
  return out;
}

// _run_script_and_set_env.
int runProlog(const char* type, const std::string& path, EnvArray& env, const SlurmVersion& version) {
  if (path.empty()) return 0;
  env.set("SLURM_SCRIPT_CONTEXT", "prolog_task");
  int status = 0;
  std::string out = runCommand(type, path, env, &status, version);
  if (WIFEXITED(status)) {
    applyPrologOutput(out, env, 1);
    return WEXITSTATUS(status);
  }
  slurmLog(LogLevel::Error, std::string(type) + " did not exit normally. reason: " + out);
  return 1;
}

// 22.05's _access: the user's read and execute bits by owner, group, other.
bool userMayRun(const std::string& path, const JobIdentity& job) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return false;
  unsigned mode;
  if (st.st_uid == job.uid) {
    mode = (st.st_mode >> 6) & 07;
  } else {
    bool group = false;
    for (gid_t g : job.gids) group = group || g == st.st_gid;
    mode = group ? (st.st_mode >> 3) & 07 : st.st_mode & 07;
  }
  return (mode & 05) == 05;
}

// _run_script_as_user: the script's status (WEXITSTATUS when it exited,
// else the raw wait status), -1 when it never ran.
int runEpilog(const char* type, const std::string& path, const StepSpec& spec, size_t local, int maxWait,
              EnvArray& env, const PrivState& privileges, const SlurmVersion& version) {
  if (path.empty()) return 0;
  const JobIdentity job = spec.identity();
  if (releases::taskScripts(version).epilogAccessCheck && !userMayRun(path, job)) {
    slurmLog(LogLevel::Error, std::string("Could not run ") + type + " [" + path + "]: access denied");
    return -1;
  }
  flushEvents();
  pid_t pid = fork();
  if (pid < 0) {
    slurmLog(LogLevel::Error, std::string("executing ") + type + ": fork: " + std::strerror(errno));
    return -1;
  }
  if (pid == 0) {
    resetPid();
    containment::enterChild();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    // Signals stay as slurmstepd has them (what it blocks, what plugin
    // code ignored there): _run_script_as_user touches none, and the
    // script inherits them through execve (measured on 22.05 and 24.11).
    // Into the job's container first (a failure only logged).
    if (spec.record.jobId != 0)
      if (JcStepd* jc = JcStepd::current())
        if (jc->scriptJoin(local) != 0)
          slurmLog(LogLevel::Error, "container_g_join(" + std::to_string(spec.record.jobId) + "): " +
                                        slurmErrorText(errno));
    // slurmstepd is root again when it reaps a task.
    reclaimPrivileges(privileges);
    PrivState saved;
    if (!dropPrivileges(job, true, &saved)) {
      slurmLog(LogLevel::Error, std::string("run_script_as_user drop_privileges: ") + std::strerror(errno));
      flushEvents();
      _exit(127);
    }
    if (!becomeUser(job, privileges)) {
      slurmLog(LogLevel::Error, std::string("run_script_as_user _become_user failed: ") + std::strerror(errno));
      flushEvents();
      _exit(127);
    }
    if (chdir(spec.cwd.c_str()) == -1)
      slurmLog(LogLevel::Error, "run_script_as_user: couldn't change working dir to " + spec.cwd + ": " +
                                    std::strerror(errno));
    setpgid(0, 0);
    // slurmstepd's own standard streams, which lead nowhere.
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
      dup2(null, 2);
      if (null > 2) close(null);
    }
    char* argv[] = {const_cast<char*>(path.c_str()), nullptr};
    flushEvents();
    execve(path.c_str(), argv, env.data());
    int saved_errno = errno;
    slurmLog(LogLevel::Error, "execve(" + path + "): " + std::strerror(saved_errno));
    if (saved_errno == EACCES && !releases::taskScripts(version).epilogAccessCheck)
      slurmLog(LogLevel::Error, std::string("Could not run ") + type + " [" + path + "]: access denied");
    flushEvents();
    _exit(127);
  }
  containment::adopt(pid);
  int status = 0;
  int waited = 0;
  for (;;) {
    pid_t r = waitpid(pid, &status, maxWait < 0 ? 0 : WNOHANG);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      slurmLog(LogLevel::Error, std::string("waitpid: ") + std::strerror(errno));
      status = 0;
      break;
    }
    if (r == pid) break;
    // Polled every second, killed after max_wait seconds.
    sleep(1);
    if (++waited >= maxWait) {
      kill(-pid, SIGKILL);
      maxWait = -1;
    }
  }
  kill(-pid, SIGKILL);
  return WIFEXITED(status) ? WEXITSTATUS(status) : status;
}

}  // namespace

int runTaskPrologs(const StepSpec& spec, EnvArray& env, const SlurmVersion& version) {
  if (int status = runProlog("slurm task_prolog", spec.taskProlog, env, version)) {
    slurmLog(LogLevel::Error, "TaskProlog failed status=" + std::to_string(status));
    return status;
  }
  if (int status = runProlog("user task_prolog", spec.userTaskProlog, env, version)) {
    slurmLog(LogLevel::Error, "--task-prolog failed status=" + std::to_string(status));
    return status;
  }
  return 0;
}

void runTaskEpilogs(const StepSpec& spec, size_t local, EnvArray& env, const PrivState& privileges,
                    const SlurmVersion& version) {
  // Slurm's messages name the other script than the one that failed.
  if (int rc = runEpilog("user task_epilog", spec.userTaskEpilog, spec, local, 5, env, privileges, version))
    slurmLog(LogLevel::Error, "TaskEpilog failed status=" + std::to_string(rc));
  if (int rc = runEpilog("slurm task_epilog", spec.taskEpilog, spec, local, -1, env, privileges, version))
    slurmLog(LogLevel::Error, "--task-epilog failed status=" + std::to_string(rc));
}

}  // namespace plugstack
