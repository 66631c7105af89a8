#include "config/plugstack_conf.h"

#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace plugstack {

const char* severityName(Severity s) { return s == Severity::Error ? "error" : "warning"; }

namespace {

// Slurm reads lines with fgets into a PATH_MAX buffer; a longer line is
// consumed in pieces and each piece is parsed (and counted) as a line.
constexpr size_t kLineBuffer = PATH_MAX;

// Slurm splits tokens on these three only: a '\r' from a CRLF file stays
// glued to the last token.
constexpr const char* kSeparators = " \t\n";

// Bytes read from a file at once; a frame of the include stack holds one
// such buffer, so this times kMaxIncludeDepth is the most ever held.
constexpr size_t kReadChunk = 16384;

// An include chain longer than twice this is shown as its first and last
// links only: the middle of a 64-file chain says nothing more.
constexpr size_t kChainEnds = 4;

// Cuts a file into the pieces fgets(buf, kLineBuffer, fp) would return,
// through its own buffer: it knows each piece's real length (a NUL byte
// ends the C string Slurm parses, not the piece) and stops reading at
// kMaxFileBytes whatever the file's size claimed.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd), buf_(kReadChunk) {}
  ~LineReader() { close(fd_); }
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Copies the next piece, NUL-terminated, into out (kLineBuffer bytes)
  // and returns its length: 0 at the end of the file.
  size_t next(char* out) {
    size_t n = 0;
    while (n < kLineBuffer - 1 && available()) {
      const char* start = buf_.data() + pos_;
      size_t take = std::min(end_ - pos_, kLineBuffer - 1 - n);
      const void* newline = std::memchr(start, '\n', take);
      if (newline) take = static_cast<const char*>(newline) - start + 1;
      std::memcpy(out + n, start, take);
      n += take;
      pos_ += take;
      if (newline) break;
    }
    // fgets returns nothing after a read error, not even what it had read.
    if (failed_) n = 0;
    out[n] = '\0';
    return n;
  }

  // Whether another byte follows; reads only when the buffer is empty.
  bool available() {
    if (pos_ < end_) return true;
    if (done_) return false;
    pos_ = end_ = 0;
    size_t room = kMaxFileBytes - read_;
    if (room == 0) {
      // One byte more tells a file of exactly the limit from a larger one.
      char c;
      if (readSome(&c, 1) > 0) tooLarge_ = true;
      done_ = true;
      return false;
    }
    ssize_t got = readSome(buf_.data(), std::min(room, buf_.size()));
    if (got <= 0) {
      done_ = true;
      return false;
    }
    end_ = static_cast<size_t>(got);
    read_ += end_;
    return true;
  }

  bool tooLarge() const { return tooLarge_; }

 private:
  ssize_t readSome(char* p, size_t n) {
    ssize_t got;
    do got = read(fd_, p, n);
    while (got < 0 && errno == EINTR);
    if (got < 0) failed_ = true;
    return got;
  }

  int fd_;
  std::vector<char> buf_;
  size_t pos_ = 0, end_ = 0;
  size_t read_ = 0;  // bytes of the file read so far
  bool done_ = false, failed_ = false, tooLarge_ = false;
};

// A file being read: one level of the include stack.
struct Frame {
  Frame(std::string p, std::string k, int fd) : path(std::move(p)), key(std::move(k)), reader(fd) {}
  std::string path;  // as matched: what plugin lines and diagnostics name
  std::string key;   // canonical, to recognise the same file
  LineReader reader;
  int lineno = 0;  // the line last read
  // The include on line `lineno` while it is being expanded: the pattern
  // as written and with its directory, the matches still to load, and how
  // many beyond kMaxIncludeMatches are not loaded.
  std::string pattern, fullPattern;
  std::vector<std::string> matches;
  size_t nextMatch = 0;
  size_t skipped = 0;
};

// glibc's glob can read directories through functions of ours
// (GLOB_ALTDIRFUNC), which count the entries; without it only the number
// of matches is bounded, not the walk.
#if defined(__GLIBC__) && defined(GLOB_ALTDIRFUNC)
#define PLUGSTACK_BOUNDED_GLOB 1

// glob(3) hands its directory callbacks no context, so the entry budget of
// the glob running on this thread is reached through this pointer, set
// only for the duration of the call.
thread_local size_t* t_globEntriesLeft = nullptr;
thread_local bool t_globOverBudget = false;

void* globOpendir(const char* path) { return opendir(path); }
void globClosedir(void* dir) { closedir(static_cast<DIR*>(dir)); }
int globStat(const char* path, struct stat* st) { return stat(path, st); }
int globLstat(const char* path, struct stat* st) { return lstat(path, st); }

struct dirent* globReaddir(void* dir) {
  struct dirent* entry = readdir(static_cast<DIR*>(dir));
  if (!entry) return nullptr;
  if (*t_globEntriesLeft == 0) {
    // Ends the listing early: glob sees a shorter directory and the caller
    // throws the whole result away.
    t_globOverBudget = true;
    return nullptr;
  }
  --*t_globEntriesLeft;
  return entry;
}
#endif

// glob(pattern, 0) as Slurm calls it (sorted matches), charging every
// directory entry it reads to *entriesLeft; *overBudget says the budget ran
// out and the result is incomplete.
int boundedGlob(const std::string& pattern, glob_t* gl, size_t* entriesLeft, bool* overBudget) {
#ifdef PLUGSTACK_BOUNDED_GLOB
  std::memset(gl, 0, sizeof *gl);
  gl->gl_opendir = globOpendir;
  gl->gl_readdir = globReaddir;
  gl->gl_closedir = globClosedir;
  gl->gl_stat = globStat;
  gl->gl_lstat = globLstat;
  t_globEntriesLeft = entriesLeft;
  t_globOverBudget = false;
  int rc = glob(pattern.c_str(), GLOB_ALTDIRFUNC, nullptr, gl);
  *overBudget = t_globOverBudget;
  t_globEntriesLeft = nullptr;
  return rc;
#else
  // No way to bound the directory walk: only the matches are bounded.
  (void)entriesLeft;
  *overBudget = false;
  return glob(pattern.c_str(), 0, nullptr, gl);
#endif
}

const char* fileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

class ConfParser {
 public:
  ParsedConf run(const std::string& path) {
    char canonical[PATH_MAX];
    std::string key = realpath(path.c_str(), canonical) ? canonical : path;
    int rc = openFile(path, std::move(key), nullptr);
    // One step is one line or one included file: the depth of the include
    // chain costs heap (frames_), never native stack.
    while (rc >= 0 && !frames_.empty()) rc = step();
    frames_.clear();  // closes what an error left open
    result_.ok = rc >= 0;
    return std::move(result_);
  }

 private:
  void diagnose(Severity severity, const char* code, const std::string& file, int line,
                std::string message, std::vector<SlurmLogLine> slurmLog) {
    ConfItem item{ConfItem::Kind::Diagnostic, {}, {}};
    item.diagnostic = {severity, code, std::move(message), file, line, std::move(slurmLog)};
    result_.items.push_back(std::move(item));
  }

  // Loads the next match of the include being expanded in the innermost
  // file, or processes its next line, or closes it. Returns -1 when Slurm
  // would abort the whole stack or plugstack stops at a limit.
  int step() {
    Frame& top = *frames_.back();
    if (top.nextMatch < top.matches.size()) return loadMatch(top, top.matches[top.nextMatch++]);
    if (top.skipped > 0) {
      diagnose(Severity::Error, "CONFIG_INCLUDE_TOO_MANY", top.path, top.lineno,
               "include \"" + top.fullPattern + "\" matches " +
                   std::to_string(top.matches.size() + top.skipped) + " files; plugstack reads " +
                   "the first " + std::to_string(kMaxIncludeMatches) +
                   " in glob order and stops there (Slurm would read them all)",
               {});
      return -1;
    }

    size_t len = top.reader.next(line_);
    if (top.reader.tooLarge()) return fileTooLarge(top.path, top.lineno + 1, top.path);
    if (len == 0) {
      frames_.pop_back();
      return 0;
    }
    top.lineno++;
    totalBytes_ += len;
    if (++totalLines_ > kMaxTotalLines || totalBytes_ > kMaxTotalBytes)
      return totalTooLarge(top.path, top.lineno);
    if (len == kLineBuffer - 1 && line_[len - 1] != '\n' && top.reader.available()) {
      diagnose(Severity::Warning, "CONFIG_LINE_TOO_LONG", top.path, top.lineno,
               "line is longer than " + std::to_string(kLineBuffer - 1) +
                   " bytes; Slurm reads the rest of it as the next line",
               {});
    }
    return processLine(top, line_);
  }

  int processLine(Frame& frame, char* buf) {
    const std::string& file = frame.path;
    const int lineno = frame.lineno;
    if (char* hash = std::strchr(buf, '#')) *hash = '\0';

    std::vector<std::string> tokens;
    char* save = nullptr;
    for (char* tok = strtok_r(buf, kSeparators, &save); tok;
         tok = strtok_r(nullptr, kSeparators, &save))
      tokens.emplace_back(tok);
    if (tokens.empty()) return 0;

    const std::string invalidLine =
        "spank: " + file + ":" + std::to_string(lineno) + ": Invalid line. Ignoring.";
    const std::string& keyword = tokens[0];
    if (keyword != "required" && keyword != "optional" && keyword != "include") {
      diagnose(Severity::Warning, "CONFIG_INVALID_LINE", file, lineno,
               "\"" + keyword +
                   "\" is not a keyword (required, optional or include, case-sensitive); "
                   "Slurm ignores the line",
               {{"error", "spank: Invalid option \"" + keyword +
                              "\". Must be required, optional or include"},
                {"error", invalidLine}});
      return 0;
    }
    if (tokens.size() < 2) {
      diagnose(Severity::Warning, "CONFIG_INVALID_LINE", file, lineno,
               "\"" + keyword + "\" without a path; Slurm ignores the line",
               {{"error", invalidLine}});
      return 0;
    }
    if (tokens.back().find('\r') != std::string::npos) {
      diagnose(Severity::Warning, "CONFIG_CARRIAGE_RETURN", file, lineno,
               "line ends with a carriage return (a CRLF file?); Slurm keeps it as part of "
               "the last word",
               {});
    }

    if (keyword == "include") return expandInclude(frame, tokens[1]);

    ConfItem item{ConfItem::Kind::Plugin, {}, {}};
    item.plugin.file = file;
    item.plugin.line = lineno;
    item.plugin.required = keyword == "required";
    item.plugin.path = tokens[1];
    item.plugin.args.assign(tokens.begin() + 2, tokens.end());
    result_.items.push_back(std::move(item));
    return 0;
  }

  // Globs the pattern and leaves the matches on the frame; step() loads
  // them one by one before the frame's next line.
  int expandInclude(Frame& frame, const std::string& pattern) {
    const std::string& file = frame.path;
    const int lineno = frame.lineno;
    std::string full = pattern;
    if (pattern[0] != '/') {
      // Relative to the directory of the including file, not PluginDir.
      std::string dir = file;
      size_t slash = dir.rfind('/');
      dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : dir.substr(0, slash));
      full = dir + "/" + pattern;
    }

    glob_t gl;
    bool overBudget = false;
    int rc = boundedGlob(full, &gl, &globEntriesLeft_, &overBudget);
    if (overBudget) {
      globfree(&gl);
      diagnose(Severity::Error, "CONFIG_INCLUDE_TOO_MANY", file, lineno,
               "include \"" + full + "\": expanding the includes reads more than " +
                   std::to_string(kMaxGlobEntries) +
                   " directory entries in all; plugstack stops there",
               {});
      return -1;
    }
    if (rc == GLOB_NOMATCH) {
      diagnose(Severity::Warning, "CONFIG_INCLUDE_NO_MATCH", file, lineno,
               "include \"" + full + "\" matches no file; Slurm ignores it silently", {});
    } else if (rc == GLOB_ABORTED) {
      diagnose(Severity::Warning, "CONFIG_INCLUDE_UNREADABLE", file, lineno,
               "include \"" + full + "\": cannot read the directory; Slurm ignores it",
               {{"verbose", file + ":" + std::to_string(lineno) + ": cannot read dir " + full}});
    }
    if (rc == 0) {
      size_t kept = std::min(static_cast<size_t>(gl.gl_pathc), kMaxIncludeMatches);
      frame.matches.assign(gl.gl_pathv, gl.gl_pathv + kept);
      frame.nextMatch = 0;
      frame.skipped = gl.gl_pathc - kept;
      frame.pattern = pattern;
      frame.fullPattern = full;
    }
    globfree(&gl);
    return 0;
  }

  int loadMatch(const Frame& from, const std::string& match) {
    if (filesRead_ >= kMaxFilesRead) {
      diagnose(Severity::Error, "CONFIG_INCLUDE_TOO_MANY", from.path, from.lineno,
               "include \"" + from.fullPattern + "\": plugstack stops after reading " +
                   std::to_string(kMaxFilesRead) +
                   " files in all (a file included several times counts each time)",
               {});
      return -1;
    }
    char canonical[PATH_MAX];
    std::string key = realpath(match.c_str(), canonical) ? canonical : match;
    for (const auto& f : frames_) {
      if (f->key != key) continue;
      // Slurm has no guard: it recurses until it runs out of file
      // descriptors or stack, and the stack fails. Say why instead.
      diagnose(Severity::Error, "CONFIG_INCLUDE_LOOP", from.path, from.lineno,
               "include \"" + from.pattern + "\" loads " + key +
                   " again while it is still being read (an include loop); Slurm "
                   "recurses until it fails",
               {});
      return -1;
    }
    if (frames_.size() >= kMaxIncludeDepth) {
      diagnose(Severity::Error, "CONFIG_INCLUDE_TOO_DEEP", from.path, from.lineno,
               "include \"" + from.pattern + "\" goes past " +
                   std::to_string(kMaxIncludeDepth) + " nested files: " + includeChain(match) +
                   "; plugstack stops there (Slurm goes on, one open file per level)",
               {});
      return -1;
    }
    return openFile(match, std::move(key), &from);
  }

  // "file:line -> file:line -> ... -> target", the include lines on the way
  // to target, shortened in the middle when long.
  std::string includeChain(const std::string& target) const {
    std::vector<std::string> links;
    for (const auto& f : frames_) links.push_back(f->path + ":" + std::to_string(f->lineno));
    links.push_back(target);
    const size_t n = links.size();
    const bool shorten = n > 2 * kChainEnds + 1;
    std::string chain;
    for (size_t i = 0; i < n; i++) {
      if (shorten && i == kChainEnds) {
        chain += " -> ... " + std::to_string(n - 2 * kChainEnds) + " more ...";
        i = n - kChainEnds - 1;
        continue;
      }
      if (i > 0) chain += " -> ";
      chain += links[i];
    }
    return chain;
  }

  // Opens a file and pushes it on the include stack. Problems with the file
  // itself sit at the include line that named it (from), or at the file
  // when it is the top-level one, except CONFIG_OPEN_FAILED, which has
  // always named the file.
  int openFile(const std::string& path, std::string key, const Frame* from) {
    // Looked at before opening: opening a device can do something (a tape
    // rewinds, a watchdog arms) and opening a FIFO waits for a writer.
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return notAFile(path, st, from);

    // O_NONBLOCK: should the path have become a FIFO since stat, opening it
    // returns at once, and fstat below refuses it.
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0 || fstat(fd, &st) != 0) {
      int err = errno;
      if (fd >= 0) close(fd);
      if (err == ENOENT) {
        if (!from) result_.missing = true;
        return 0;
      }
      diagnose(Severity::Error, "CONFIG_OPEN_FAILED", path, 0,
               "cannot open " + path + ": " + std::strerror(err) +
                   "; Slurm fails to create the plugin stack",
               {{"error", "spank: Failed to open " + path + ": " + std::strerror(err)}});
      return -1;
    }
    if (!S_ISREG(st.st_mode)) {
      close(fd);
      return notAFile(path, st, from);
    }

    const std::string& site = from ? from->path : path;
    const int siteLine = from ? from->lineno : 0;
    const size_t size = static_cast<size_t>(st.st_size);
    if (size > kMaxFileBytes) {
      close(fd);
      return fileTooLarge(site, siteLine, path);
    }
    if (totalBytes_ + size > kMaxTotalBytes) {
      close(fd);
      return totalTooLarge(site, siteLine);
    }
    filesRead_++;
    frames_.push_back(std::make_unique<Frame>(path, std::move(key), fd));
    return 0;
  }

  // A path that is not a regular file: Slurm would open it and read it
  // with fgets, which for anything but /dev/null or a directory means
  // blocking or reading without end.
  int notAFile(const std::string& path, const struct stat& st, const Frame* from) {
    if (S_ISCHR(st.st_mode) && isNullDevice(st)) return 0;  // reads as empty, for Slurm too
    const std::string& site = from ? from->path : path;
    const int siteLine = from ? from->lineno : 0;
    const std::string what =
        (from ? "include \"" + from->pattern + "\": " : std::string()) + path + " is " +
        fileKind(st.st_mode) + ", not a regular file; ";
    if (S_ISDIR(st.st_mode)) {
      diagnose(Severity::Warning, "CONFIG_NOT_A_FILE", site, siteLine,
               what + "Slurm reads it as an empty file", {});
      return 0;
    }
    if (S_ISSOCK(st.st_mode)) {
      // Opening a socket fails with ENXIO: Slurm's usual open failure.
      diagnose(Severity::Error, "CONFIG_NOT_A_FILE", site, siteLine,
               what + "Slurm fails to open it and to create the plugin stack",
               {{"error", "spank: Failed to open " + path + ": " + std::strerror(ENXIO)}});
      return -1;
    }
    const char* slurm = S_ISFIFO(st.st_mode)
                            ? "Slurm would block on it, waiting for a writer or for data"
                            : "Slurm would read the device, without end for one such as "
                              "/dev/zero or /dev/urandom";
    diagnose(Severity::Error, "CONFIG_NOT_A_FILE", site, siteLine,
             what + slurm + "; plugstack does not read it", {});
    return -1;
  }

  bool isNullDevice(const struct stat& st) {
    struct stat devNull;
    return stat("/dev/null", &devNull) == 0 && S_ISCHR(devNull.st_mode) &&
           devNull.st_rdev == st.st_rdev;
  }

  int fileTooLarge(const std::string& site, int siteLine, const std::string& path) {
    diagnose(Severity::Error, "CONFIG_FILE_TOO_LARGE", site, siteLine,
             path + " is larger than " + std::to_string(kMaxFileBytes) +
                 " bytes, far more than any plugstack.conf; plugstack does not read it "
                 "further",
             {});
    return -1;
  }

  int totalTooLarge(const std::string& site, int siteLine) {
    diagnose(Severity::Error, "CONFIG_TOTAL_TOO_LARGE", site, siteLine,
             "the configuration with its includes is larger than " +
                 std::to_string(kMaxTotalLines) + " lines or " + std::to_string(kMaxTotalBytes) +
                 " bytes in all (a file included several times counts each time); plugstack "
                 "stops there",
             {});
    return -1;
  }

  ParsedConf result_;
  // Files being read, outermost first. Pointers keep a frame in place
  // while the files it includes are pushed after it.
  std::vector<std::unique_ptr<Frame>> frames_;
  char line_[kLineBuffer];  // the piece being parsed
  size_t totalBytes_ = 0, totalLines_ = 0, filesRead_ = 0;
  size_t globEntriesLeft_ = kMaxGlobEntries;
};

}  // namespace

ParsedConf parsePlugstackConf(const std::string& path) { return ConfParser().run(path); }

}  // namespace plugstack
