// Reading a configuration file without letting it hurt the reader: only a
// regular file is read (a FIFO would block, a device never end), opened
// without blocking and checked on the opened descriptor, and only up to a
// size. The parsers run inside Node too.
#pragma once

#include <string>

namespace plugstack {

struct SafeRead {
  enum class Status { Ok, Missing, NotAFile, TooLarge, Failed } status = Status::Failed;
  std::string text;
  // NotAFile: what it is ("a FIFO", "a directory", ...); Failed: strerror.
  std::string detail;
};

SafeRead readConfigFile(const std::string& path, size_t maxBytes);

}  // namespace plugstack
