// Calls that ask slurmctld (slurm_load_job and its relatives,
// slurm_get_end_time) go through here first. plugstack answers them from
// the jobs this process was told about (job_table.h); what a real process
// of the emulated release would do before it could ask is played here.
#pragma once

namespace plugstack::libslurm {

// The plugin called slurm_init() in this process.
void noteInit();

// Before a call that would reach slurmctld: in 24.11's job prolog/epilog
// helper, without the plugin's own slurm_init(), Slurm's libslurm dies with
// fatal() (rules: libslurm.jobScriptCallNeedsInit); so does this process,
// with Slurm's line and exit status 1. Otherwise it returns.
void beforeControllerCall();

}  // namespace plugstack::libslurm
