#include "step/task_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "common/slurm_log.h"
#include "step/privileges.h"
#include "step/step_spec.h"

namespace plugstack {

namespace {

// io_get_file_flags: O_APPEND always, O_TRUNC unless appending.
int fileFlags(bool append) { return O_WRONLY | O_CREAT | O_APPEND | (append ? 0 : O_TRUNC) | O_CLOEXEC; }

// mkdirpath(path, 0755, is_dir=false): every missing directory above the file.
void makeParentDirectories(const std::string& file) {
  for (size_t slash = file.find('/', 1); slash != std::string::npos; slash = file.find('/', slash + 1))
    mkdir(file.substr(0, slash).c_str(), 0755);  // an existing one answers EEXIST, which is fine
}

// Opens and closes one file; false (errno set) when it does not open.
bool tryOpen(const std::string& path, int flags) {
  int fd = open(path.c_str(), flags, 0666);
  if (fd < 0) return false;
  close(fd);
  return true;
}

// _init_task_stdio_fds: open() retried on EINTR, and once after making the
// directories when the first try says ENOENT.
bool openTaskFile(const std::string& path, bool append, bool makeParents) {
  int tries = 0;
  for (;;) {
    if (tryOpen(path, fileFlags(append))) return true;
    if (tries == 0 && errno == ENOENT && makeParents) {
      makeParentDirectories(path);
      errno = EINTR;
    }
    if (errno != EINTR || ++tries >= 10) return false;
  }
}

bool openEachTask(const StepSpec& spec, bool makeParents) {
  const std::vector<std::string>& files = spec.outputFiles;
  bool ok = true;
  for (size_t task = 0; 2 * task + 1 < files.size(); task++) {
    const std::string& out = files[2 * task];
    const std::string& err = files[2 * task + 1];
    if (!out.empty() && !openTaskFile(out, spec.outputAppend, makeParents)) {
      slurmLog(LogLevel::Error, "Could not open stdout file " + out + ": " + std::strerror(errno));
      ok = false;
      continue;  // this task's setup ends; the next one's goes on
    }
    if (!err.empty() && err != out && !openTaskFile(err, spec.outputAppend, makeParents)) {
      slurmLog(LogLevel::Error, "Could not open stderr file " + err + ": " + std::strerror(errno));
      ok = false;
    }
  }
  return ok;
}

// io_find_filename_pattern over one stream's names: the one name every task
// has, every task's own (all different), or nothing slurmstepd writes.
std::vector<std::string> labelledFiles(const std::vector<std::string>& names) {
  if (names.empty()) return {};
  for (const auto& n : names)
    if (n.empty()) return {};
  bool same = true, unique = true;
  for (size_t i = 0; i < names.size(); i++)
    for (size_t j = i + 1; j < names.size(); j++) (names[i] == names[j] ? unique : same) = false;
  if (same) return {names[0]};
  return unique ? names : std::vector<std::string>{};
}

bool openLabelled(const StepSpec& spec) {
  std::vector<std::string> outs, errs;
  bool same = true;
  for (size_t i = 0; i + 1 < spec.outputFiles.size(); i += 2) {
    outs.push_back(spec.outputFiles[i]);
    errs.push_back(spec.outputFiles[i + 1]);
    same = same && spec.outputFiles[i] == spec.outputFiles[i + 1];
  }
  const int flags = fileFlags(spec.outputAppend);
  for (const auto& file : labelledFiles(outs)) {
    if (!tryOpen(file, flags)) {
      slurmLog(LogLevel::Error, "Could not open output file " + file + ": " + std::strerror(errno));
      return false;
    }
  }
  if (same) return true;
  for (const auto& file : labelledFiles(errs)) {
    if (!tryOpen(file, flags)) {
      slurmLog(LogLevel::Error, "Could not open error file " + file + ": " + std::strerror(errno));
      return false;
    }
  }
  return true;
}

}  // namespace

bool openOutputFiles(const StepSpec& spec, bool makeParents) {
  if (spec.outputFiles.empty()) return true;
  // As the user: slurmstepd has dropped its privileges for the IO setup.
  PrivState saved;
  bool dropped = dropPrivileges(spec.identity(), true, &saved);
  bool ok = spec.outputLabelled ? openLabelled(spec) : openEachTask(spec, makeParents);
  if (dropped) reclaimPrivileges(saved);
  return ok;
}

}  // namespace plugstack
