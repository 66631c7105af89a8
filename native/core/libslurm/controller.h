// Calls that ask slurmctld (slurm_load_job and its relatives,
// slurm_get_end_time) go through here first. plugstack answers them from
// the jobs this process was told about (job_table.h); what a real process
// of the emulated release would do before it could ask is played here.
#pragma once

namespace plugstack::libslurm {

// The plugin called slurm_init() in this process.
void noteInit();

// Before a call that would reach slurmctld, what 24.11 does first: in
// slurmstepd's user_init it dies of a deadlock on its own lock (SIGABRT:
// rules libslurm.userInitCallAborts), in the job prolog/epilog helper
// without the plugin's own slurm_init() it dies with fatal() (exit status
// 1: libslurm.jobScriptCallNeedsInit); so does this process, with Slurm's
// line. Otherwise it returns.
void beforeControllerCall();

}  // namespace plugstack::libslurm
