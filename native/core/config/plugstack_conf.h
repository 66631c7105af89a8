// plugstack.conf parsing, with Slurm's rules.
//
// The result is the flat, ordered list of what Slurm would process: plugin
// lines (with includes expanded depth-first in glob order) and the
// diagnostics met on the way, each at its place in the sequence. The loader
// walks this list and, like Slurm, stops at the first required plugin that
// fails; parsing ahead does not change what Slurm sees because include
// expansion never depends on what a plugin does.
//
// The parser runs inside Node (the addon) as well as in host processes, so
// no input may hurt the process that runs it: the walk over includes is a
// loop over an explicit stack (no recursion), only regular files are read,
// and every resource an input could make it spend has a limit below. A
// limit that is reached is an error diagnostic at the place it was reached
// and the parse stops there (ok = false): what Slurm would do beyond it is
// not known. Real plugstack.conf files are a few lines long and include a
// handful of files, so the limits are far above anything a site writes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/diagnostic.h"

namespace plugstack {

// Files open at once: the top-level file plus nested includes
// (CONFIG_INCLUDE_TOO_DEEP). Slurm keeps every file of the chain open and
// recurses once per level, so it gives up only when it runs out of
// descriptors; real configurations nest two or three deep.
inline constexpr size_t kMaxIncludeDepth = 64;

// Bytes of one file (CONFIG_FILE_TOO_LARGE), checked against its size
// before anything is read and again while reading, for files whose size
// says nothing (/proc) or that grow.
inline constexpr size_t kMaxFileBytes = 1 << 20;

// Bytes and lines of all files read, includes counted each time they are
// read (CONFIG_TOTAL_TOO_LARGE). The lines bound the size of the result
// (each line yields at most a plugin line or two diagnostics, each holding
// the file name), the bytes bound the reading.
inline constexpr size_t kMaxTotalBytes = 4 << 20;
inline constexpr size_t kMaxTotalLines = 10000;

// Files loaded from one include (the first ones in glob order), files read
// in all, and directory entries glob(3) may read in all while expanding
// include patterns (CONFIG_INCLUDE_TOO_MANY). The last one bounds the work
// of patterns such as /*/*/*/* or of many includes scanning one huge
// directory.
inline constexpr size_t kMaxIncludeMatches = 1024;
inline constexpr size_t kMaxFilesRead = 4096;
inline constexpr size_t kMaxGlobEntries = 100000;

struct PluginLine {
  std::string file;  // the config file holding the line
  int line = 0;      // its line number there (Slurm's count: one per fgets)
  bool required = false;
  std::string path;  // as written: absolute, or relative to PluginDir
  std::vector<std::string> args;
};

struct ConfItem {
  enum class Kind { Plugin, Diagnostic } kind;
  PluginLine plugin;      // when kind == Plugin
  Diagnostic diagnostic;  // when kind == Diagnostic
};

struct ParsedConf {
  std::vector<ConfItem> items;
  // False when Slurm would fail to create the stack at all (an unreadable
  // file, an include loop, a FIFO or device where a file should be), and
  // when plugstack stopped at one of the limits above. Items up to the
  // failure are still listed, the last one being the error.
  bool ok = true;
  // The top-level file did not exist: Slurm treats that as an empty stack.
  bool missing = false;
};

// Reads only regular files. /dev/null reads as empty, as it does for
// Slurm; a directory reads as empty too (Slurm's fgets fails at once) but
// with a warning (CONFIG_NOT_A_FILE); a FIFO, a device or a socket is an
// error (CONFIG_NOT_A_FILE): Slurm would block on it, read it forever or
// fail to open it.
ParsedConf parsePlugstackConf(const std::string& path);

}  // namespace plugstack
