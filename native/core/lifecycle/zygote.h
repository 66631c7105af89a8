// The zygote: a plugstack-host that plays no role itself and forks a fresh
// process for each role Node asks for, instead of Node spawning (forking
// itself, then exec'ing) plugstack-host every time.
//
// It is started once per Node process, before anything of the user's is
// loaded in it, and stays that way: it never loads a plugin, never parses
// a configuration, never touches the core's state; it only waits for
// requests. Each role therefore starts in the state an exec would give
// it — nothing loaded, every signal at its default and unblocked, only the
// descriptors Node handed over (0-2 and the two channel ends, 3 and 4),
// the environment and working directory Node asked for, a session of its
// own — without the cost of forking Node and exec'ing and linking
// plugstack-host again. /proc/<pid>/cmdline reads as a spawned host's.
//
//   plugstack-host zygote --parent <node pid> --fd <control> --pad <...>
//
// On the control socket (a unix stream socket, channel.h's frames) the
// zygote first says hello, then takes "fork" commands, each with the
// role's descriptors attached (SCM_RIGHTS): [stdin], stdout, stderr,
// events, commands; and answers "forked" (the pid of the role's process)
// or "fork_failed" (the call and its errno), and "reaped" (the raw wait
// status) when a process it forked ends. It waits on no one host: a start
// is reported when the child's status pipe says so, read like any other
// event, so that another host's end is not held up behind it. The messages
// are declared in protocol/messages.json with the hosts'.
//
// It is the keeper of the hosts it forks (lifecycle/containment.h): a
// child subreaper, so whatever a host leaves when it ends — crashed, killed
// by Node, or exited inside plugin code — comes back to it and is killed,
// as a keeper of the host's own would (a host Node spawns has one; these
// need not, which spares a process per host). When Node dies (a
// parent-death signal), asks it to end (SIGTERM, or any signal whose
// default is to end a process) or closes the control socket, it kills
// every host and everything below them, then exits. Such a signal from
// anyone but Node, while Node lives, is read and let go: only SIGKILL, or
// a fault of its own, ends it without that.
#pragma once

#include <sys/types.h>

namespace plugstack::zygote {

// Plays a role in the current process; returns its exit status.
using RoleMain = int (*)(const char* role, int eventsFd, int commandsFd, pid_t parent);

// Runs the zygote (argv as above). Returns the zygote's exit status; in a
// forked role, never returns (the role's status ends the process).
int run(int argc, char** argv, RoleMain roleMain);

}  // namespace plugstack::zygote
