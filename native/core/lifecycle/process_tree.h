// The processes below this one, read from /proc.
//
// Every host is a child subreaper from its first instruction, so anything
// started below it — by the role, by plugin code, by a task — stays below it
// even when its own parent exits: orphans are reparented to the host, not to
// init. Walking /proc/self/task/*/children from here therefore finds
// everything a plugin could have left, daemons that called setsid and forked
// twice included.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace plugstack {

struct ProcessInfo {
  pid_t pid = 0;
  pid_t ppid = 0;
  pid_t pgid = 0;
  pid_t sid = 0;
  bool zombie = false;  // dead, waiting to be reaped
  // /proc/<pid>/cmdline with spaces for NULs, or [comm] for a process
  // without one (a zombie, a kernel thread).
  std::string command;
};

// False when this process has no child at all, running, stopped or dead
// and unreaped, of any of its threads (__WALL: clone children too): then
// nothing is below it, and /proc has nothing to tell. One system call, where
// a look at /proc is several and makes the kernel build its entries.
// Async-signal-safe.
bool mayHaveChildren();

// Direct children of this process (every thread's), in /proc's order.
std::vector<pid_t> childrenOf(pid_t pid);

// Every descendant of this process, parents before their children
// (zombies included, marked).
std::vector<ProcessInfo> descendants();

// What /proc says about one process; false when it is gone.
bool readProcess(pid_t pid, ProcessInfo* out);

// SIGKILLs every descendant and reaps them, until none is left or `rounds`
// passes a millisecond apart went by (each orphan comes back to us as a
// child once its parent is dead; a process we may not kill, or stuck in
// the kernel, is given up on then). Children `spare` says yes to, and what
// is below them, are left alone, their ends for the caller to reap (the
// zygote's hosts). Async-signal-safe: no allocation, only system calls, so
// the parent-death handler can use it. Returns the number of processes
// killed.
int killDescendants(bool (*spare)(pid_t child), int rounds = 50);
inline int killAllDescendants(int rounds = 50) { return killDescendants(nullptr, rounds); }

}  // namespace plugstack
