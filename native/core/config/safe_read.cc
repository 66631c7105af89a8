#include "config/safe_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace plugstack {

namespace {

const char* kindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

SafeRead readConfigFile(const std::string& path, size_t maxBytes) {
  SafeRead r;
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    r.status = errno == ENOENT ? SafeRead::Status::Missing : SafeRead::Status::Failed;
    r.detail = std::strerror(errno);
    return r;
  }
  struct stat st;
  if (fstat(fd, &st) < 0) {
    r.detail = std::strerror(errno);
    close(fd);
    return r;
  }
  if (!S_ISREG(st.st_mode)) {
    r.status = SafeRead::Status::NotAFile;
    r.detail = kindOf(st.st_mode);
    close(fd);
    return r;
  }
  if (static_cast<size_t>(st.st_size) > maxBytes) {
    r.status = SafeRead::Status::TooLarge;
    close(fd);
    return r;
  }
  char buf[16384];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      r.detail = std::strerror(errno);
      close(fd);
      return r;
    }
    if (n == 0) break;
    r.text.append(buf, static_cast<size_t>(n));
    // A file that grows while we read it is held to the same bound.
    if (r.text.size() > maxBytes) {
      r.status = SafeRead::Status::TooLarge;
      r.text.clear();
      close(fd);
      return r;
    }
  }
  close(fd);
  r.status = SafeRead::Status::Ok;
  return r;
}

}  // namespace plugstack
