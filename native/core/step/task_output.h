// The tasks' output files, opened as slurmstepd's IO setup opens them, as
// the user, created and truncated (appended to with --open-mode=append).
// plugstack only opens them here, for the failures Slurm has when one
// cannot be made; Node writes what the tasks print into them (a batch
// step's files, srun's per-task -o/-e names).
//
// Without -l, each task's are opened with its input (io.c
// _init_task_stdio_fds): its output's, then its error's unless that is the
// same file; a failure ends that task's setup and the next task's goes on;
// 24.11 makes a missing directory first (mkdirpath). With -l, slurmstepd
// writes the labelled lines itself (mgr.c _setup_normal_io,
// io_create_local_client): once every task's input is set up, the output
// files (each task's, or the one all of the node's tasks name), then the
// error files unless every task's is its output's; the first failure ends
// the setup, and no directory is made.
#pragma once

namespace plugstack {

struct StepSpec;

// Opens spec.outputFiles as the job's user, logging each failure as
// slurmstepd does. makeParents: 24.11's mkdirpath on ENOENT (without -l).
// False when one did not open: the IO setup has failed.
bool openOutputFiles(const StepSpec& spec, bool makeParents);

}  // namespace plugstack
