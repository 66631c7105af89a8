#pragma once
// The signal state plugin code meets in a Slurm process: what slurmstepd,
// srun, salloc and slurmd's helpers block, catch or ignore, and when
// (rules/releases.json, table "signals": names without SIG, comma-separated).
// The handlers Slurm installs are emulated by one that does nothing: what
// Slurm's do (log, forward the signal to the step) is not a plugin's to see.

#include <string>
#include <vector>

namespace plugstack::slurm_signals {

// The signal numbers of "INT,TERM,..." (a name unknown here is left out).
std::vector<int> parse(const std::string& names);

// sigprocmask(SIG_BLOCK) of these.
void block(const std::string& names);

// A handler that does nothing, installed as Slurm installs its own: no
// SA_RESTART (a system call it interrupts fails with EINTR), nothing
// blocked while it runs.
void catchIgnoring(const std::string& names);

// SIG_IGN for these.
void ignore(const std::string& names);

// What an execve does to these caught signals: back to their default.
void uncatch(const std::string& names);

// Every signal at its default and none blocked, as a fresh exec leaves a
// process started by someone else than Slurm (a role the zygote forks, a
// process adopted into the extern step).
void allDefault();

// slurmstepd's _unblock_signals in a task's child: each of these set to
// ignored (dropping what is pending) then to its default, and nothing
// blocked any more.
void unblockAsTaskChild(const std::string& blocked);

}  // namespace plugstack::slurm_signals
