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
int openOutput(const std::string& path, bool makeParents) {
  int fd;
  int tries = 0;
  do {
    fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
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
    if (i > 0 && path == spec.outputFiles[0]) continue;  // stderr into stdout's file
    int fd = openOutput(path, makeParents);
    if (fd < 0) {
      *failure = {i == 0 ? "stdout" : "stderr", path, errno};
      ok = false;
    } else {
      close(fd);
    }
  }
  if (dropped) reclaimPrivileges(saved);
  return ok;
}

}  // namespace plugstack
