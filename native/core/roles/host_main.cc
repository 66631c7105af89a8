// plugstack-host: one executable for every Slurm process plugstack plays.
//
//   plugstack-host <role> --fd <events>[:<commands>] [--parent <pid>]
//   plugstack-host getenv <rlimit names>   (slurmstepd getenv, for su's login shell)
//   plugstack-host salloc-command <foreground|group> <error_exit> <file> <argv0> [args...]
//                                          (salloc's command)
//
// The role is chosen at start; the request arrives as the first frame on the
// socket <n> (Node's end is the other half of the socketpair); <pid> is
// Node's, whose death ends the host and everything below it. The process
// is single-threaded, so it may fork tasks the way slurmstepd does.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/channel.h"
#include "common/event_slots.h"
#include "lifecycle/containment.h"
#include "lifecycle/mount_namespace.h"
#include "lifecycle/salloc_command.h"
#include "lifecycle/user_env.h"
#include "lifecycle/zygote.h"
#include "spank/stack.h"
#include "roles/role.h"
#include "common/visibility.h"
#include "protocol/messages.h"

namespace plugstack {

namespace {

struct RoleEntry {
  const char* name;
  int (*run)(Channel&, const json::Value&);
};

constexpr RoleEntry kRoles[] = {
    {"inspect", runInspectRole},
    {"stepd", runStepdRole},
    {"client", runClientRole},
    {"slurmd", runSlurmdRole},
    {"job_script", runJobScriptRole},
};

int usage() {
  std::fprintf(stderr, "usage: plugstack-host <role> --fd <events>[:<commands>] [--parent <pid>]\n       plugstack-host zygote --parent <pid> --fd <control>\nroles:");
  for (const auto& r : kRoles) std::fprintf(stderr, " %s", r.name);
  std::fprintf(stderr, "\nThis program is started by the plugstack Node package.\n");
  return 2;
}

}  // namespace

}  // namespace plugstack

namespace plugstack {

namespace {

// Plays one role on the channel's descriptors; <parent> is the process
// whose death ends the host (Node's, or the zygote's that forked it), and
// the host's keeper when keptByParent (the zygote's hosts).
int runRole(const RoleEntry* role, int fd, int cmdFd, pid_t parent, bool keptByParent) {
  // Plugins and the programs they start must not inherit our end of the
  // channel.
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  fcntl(cmdFd, F_SETFD, FD_CLOEXEC);
  // The memory Node shares for the events not sent yet, when it gave it:
  // mapped, and its descriptor closed before containment notes which
  // descriptors are plugstack's (a plugin's may take its number).
  event_slots::attach();
  // Before any plugin code: a subreaper that dies with Node, and a keeper
  // that outlives whatever the role does (the zygote, or one of its own).
  containment::start(parent);
  if (keptByParent)
    containment::keptByParent();
  else
    containment::keep(fd, cmdFd);
  // SIGPIPE stays at its default: the channel sends without it, and each
  // role blocks, catches or leaves it as its Slurm process does
  // (lifecycle/slurm_signals.h).
  // The open files limit stays the caller's: slurmd's side raises it as
  // slurmd does (lifecycle/slurm_limits.h), srun once it has read it.

  Channel channel(fd, cmdFd);
  setEventSink(&channel);
  emitEvent({{"t", msg::kHello},
             {"protocol", msg::kProtocolVersion},
             {"pid", static_cast<int>(getpid())},
             {"role", role->name}});
  // The hello opens the stream, before anything a forked child may send.
  flushEvents();

  std::string payload, error;
  if (!channel.read(&payload, &error)) {
    emitEvent({{"t", msg::kFatal}, {"message", "no request: " + error}});
    flushEvents();
    return 2;
  }
  json::Value request;
  if (!json::parse(payload, &request, &error) || !request.isObject()) {
    emitEvent({{"t", msg::kFatal}, {"message", "malformed request: " + error}});
    flushEvents();
    return 2;
  }
  // A run with job_container plugins: into its own mount namespace, before
  // any plugin code (lifecycle/mount_namespace.h).
  if (!enterRunMountNamespace(&error)) {
    emitEvent({{"t", msg::kFatal}, {"message", error}});
    flushEvents();
    return 2;
  }
  int rc = role->run(channel, request);
  // Whatever plugin code left running goes, and is reported; so are the
  // descriptors it left open, where the stack was unloaded.
  containment::finish(Stack::liveCount() == 0);
  flushEvents();
  return rc;
}

const RoleEntry* findRole(const char* name) {
  for (const auto& r : kRoles)
    if (std::strcmp(name, r.name) == 0) return &r;
  return nullptr;
}

// A role the zygote forked (lifecycle/zygote.h).
int zygoteRole(const char* name, int fd, int cmdFd, pid_t parent) {
  const RoleEntry* role = findRole(name);
  return role ? runRole(role, fd, cmdFd, parent, true) : usage();
}

}  // namespace

}  // namespace plugstack

extern "C" PLUGSTACK_EXPORT int plugstack_host_main(int argc, char** argv) {
  using namespace plugstack;
  if (argc == 2 && std::strcmp(argv[1], "--mount-namespace") == 0) return runMountNamespaceHolder();
  if (argc >= 2 && std::strcmp(argv[1], "zygote") == 0) return zygote::run(argc, argv, zygoteRole);
  // `slurmstepd getenv`, which the user's login shell runs for slurmd's
  // _get_user_env (lifecycle/user_env.h): the limits of argv[2]'s table.
  if (argc == 3 && std::strcmp(argv[1], "getenv") == 0) return user_env::printLoginEnv(argv[2]);
  // salloc's command (lifecycle/salloc_command.h).
  if (argc >= 2 && std::strcmp(argv[1], "salloc-command") == 0) return salloc_command::run(argc, argv);
  if ((argc != 4 && argc != 6) || std::strcmp(argv[2], "--fd") != 0) return usage();
  long parent = 0;
  if (argc == 6) {
    char* end;
    if (std::strcmp(argv[4], "--parent") != 0) return usage();
    parent = std::strtol(argv[5], &end, 10);
    if (*end || parent <= 0) return usage();
  }
  const RoleEntry* role = findRole(argv[1]);
  if (!role) return usage();
  char* end;
  long fd = std::strtol(argv[3], &end, 10);
  long cmdFd = fd;
  if (*end == ':') cmdFd = std::strtol(end + 1, &end, 10);
  if (*end || fd < 3 || cmdFd < 3 || fcntl(static_cast<int>(fd), F_GETFD) < 0 ||
      fcntl(static_cast<int>(cmdFd), F_GETFD) < 0)
    return usage();
  return runRole(role, static_cast<int>(fd), static_cast<int>(cmdFd), static_cast<pid_t>(parent), false);
}
