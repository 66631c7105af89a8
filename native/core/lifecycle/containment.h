// Containment: nothing plugin code starts outlives the Slurm process it
// belongs to, and nothing it leaves behind goes unnoticed.
//
// At start, before any plugin code, a host becomes a child subreaper (every
// process started below it stays below it), asks the kernel for a signal
// when Node dies (then it kills everything below it and exits) and notes
// the descriptors it has. Around each call into plugin code it takes two
// cheap readings — the namespace's last allocated pid and the lowest free
// descriptor — and only when one of them moved does it look at /proc: new
// children are reported ("spawned": the plugin, the hook, the command), new
// descriptors are remembered with the hook that opened them. When the role
// ends, every process still below the host is killed and reported ("left"),
// and so is every descriptor plugin code left open once the stack was
// unloaded ("fd_left"). Processes a plugin starts may live as long as the
// role (an ssh tunnel from local_user_init to exit), not longer.
#pragma once

#include <sys/types.h>

#include <string>

namespace plugstack::containment {

// First thing in a host: subreaper, parent-death signal (parent is Node's
// pid, to catch a Node that died before we asked).
void start(pid_t parent);

// The keeper of a host Node spawned. The host's first process stays behind
// as the parent of the process that plays the role, runs no plugin code,
// and waits: whatever the role leaves below it — even when it crashes, even
// a daemon that called setsid — comes back to the keeper (a subreaper),
// which kills it all and ends with the role's own status. Node ends such a
// host by sending the keeper SIGTERM. Returns in the role's process (which
// dies with the keeper and notes its descriptor baseline); never returns in
// the keeper.
void keep(int eventsFd, int commandsFd);

// A host the zygote forked: the zygote is its keeper (lifecycle/zygote.h),
// so the role plays in the host's first process, with no keeper of its own
// between them: one process less to start and to end for every host. Notes
// the role's descriptor baseline, as keep() does in the role's process.
void keptByParent();

// Readings taken before plugin code runs.
struct Probe {
  long lastPid = -1;
  int lowestFreeFd = -1;
};
Probe before();
// After plugin code returned: reports what it started and remembers what
// it opened. task is the local task id of a per-task callback, or -1.
void after(const Probe& probe, int ref, const std::string& hook, int task);

// A child the role made itself (a task): not a plugin's process.
void adopt(pid_t pid);
// A descriptor plugstack opened for itself (a task's pipes, a signalfd),
// and its end.
void own(int fd);
void disown(int fd);
// close() of a descriptor plugstack owns; sets it to -1.
void closeOwned(int* fd);
// True when pid (or its session or process group leader) was started by
// plugin code in this process.
bool startedByPlugin(pid_t pid, pid_t pgid, pid_t sid);

// In a forked task child, first thing: its own children and descriptors
// are new, the parent's records are the parent's, and so is the handler
// for Node's death (every other signal is as slurmstepd's child has it).
void enterChild();
// In a task child about to exec: descriptors plugin code opened in this
// child without close-on-exec go into the task; reported with their hook.
void beforeExec(int task);

// Kills and reports (once) every live process below this one, e.g. what
// tasks left at the end of a step, and reaps what died. Processes started
// by plugin code in this process are spared when sparePlugins: they may
// live until the role ends. Returns how many it killed.
int killStrays(bool sparePlugins);

// The role is over: kill and report everything below, then report
// descriptors plugin code left open if the stack was unloaded.
void finish(bool stackUnloaded);

// Node is gone (the channel closed): kill everything below and exit.
[[noreturn]] void abandon();

}  // namespace plugstack::containment
