// The tasks' output files, opened as slurmstepd's IO setup opens them
// (io.c _init_task_stdio_fds): after the input, as the user, task by task,
// its stdout's then its stderr's, created and truncated (appended to with
// --open-mode=append). plugstack only opens them here, for the failure
// Slurm has when one cannot be made; Node writes what the tasks print into
// them (a batch step's files, srun's per-task -o/-e names).
#pragma once

#include <string>

namespace plugstack {

struct StepSpec;

struct OutputFailure {
  // "stdout" or "stderr", the file, and errno.
  std::string stream;
  std::string path;
  int error = 0;
};

// Opens spec.outputFiles as the job's user (a task's stderr that names
// its stdout's file is that file). makeParents: on ENOENT, make the missing
// directories (0755) and try again, as 24.11's mkdirpath does. False with
// *failure set when one does not open.
bool openOutputFiles(const StepSpec& spec, bool makeParents, OutputFailure* failure);

}  // namespace plugstack
