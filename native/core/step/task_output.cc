#include "step/task_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "step/privileges.h"
#include "step/step_spec.h"

namespace plugstack {

namespace {

// mkdirpath(path, 0755, is_dir=false): every missing directory above the file.
void makeParentDirectories(const std::string& file) {
  for (size_t slash = file.find('/', 1); slash != std::string::npos; slash = file.find('/', slash + 1))
    mkdir(file.substr(0, slash).c_str(), 0755);  // an existing one answers EEXIST, which is fine
}

// open() as slurmstepd retries it: on EINTR, and once after making the
// directories when the first try says ENOENT.
int openOutput(const std::string& path, bool append, bool makeParents) {
  // io_get_file_flags: O_APPEND always, O_TRUNC unless appending.
  const int flags = O_WRONLY | O_CREAT | O_APPEND | (append ? 0 : O_TRUNC) | O_CLOEXEC;
  int fd;
  int tries = 0;
  do {
    fd = open(path.c_str(), flags, 0666);
    if (fd < 0 && tries == 0 && errno == ENOENT && makeParents) {
      makeParentDirectories(path);
      errno = EINTR;
    }
  } while (fd < 0 && errno == EINTR && ++tries < 10);
  return fd;
}

}  // namespace

bool openOutputFiles(const StepSpec& spec, bool makeParents, OutputFailure* failure) {
  if (spec.outputFiles.empty()) return true;
  // As the user: slurmstepd has dropped its privileges for the IO setup.
  PrivState saved;
  bool dropped = dropPrivileges(spec.identity(), true, &saved);
  bool ok = true;
  for (size_t i = 0; i < spec.outputFiles.size() && ok; i++) {
    const std::string& path = spec.outputFiles[i];
    const bool isStderr = i % 2 == 1;
    if (path.empty()) continue;                                  // to srun, or /dev/null
    if (isStderr && path == spec.outputFiles[i - 1]) continue;  // stderr into stdout's file
    int fd = openOutput(path, spec.outputAppend, makeParents);
    if (fd < 0) {
      *failure = {isStderr ? "stderr" : "stdout", path, errno};
      ok = false;
    } else {
      close(fd);
    }
  }
  if (dropped) reclaimPrivileges(saved);
  return ok;
}

}  // namespace plugstack
