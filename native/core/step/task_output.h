// A batch step's output files, opened as slurmstepd's IO setup opens them
// (io.c _init_task_stdio_fds): after the input, as the user, created or
// truncated. plugstack only opens them here, for the failure Slurm has
// when one cannot be made; Node writes what the script prints into them.
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

// Opens spec.outputFiles (stdout's, then stderr's when it differs) as the
// job's user. makeParents: on ENOENT, make the missing directories (0755)
// and try again, as 24.11's mkdirpath does. False with *failure set when
// one does not open.
bool openOutputFiles(const StepSpec& spec, bool makeParents, OutputFailure* failure);

}  // namespace plugstack
