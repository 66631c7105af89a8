#include "config/plugstack_conf.h"

#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace plugstack {

const char* severityName(Severity s) { return s == Severity::Error ? "error" : "warning"; }

namespace {

// Slurm reads lines with fgets into a PATH_MAX buffer; a longer line is
// consumed in pieces and each piece is parsed (and counted) as a line.
constexpr size_t kLineBuffer = PATH_MAX;

// Slurm splits tokens on these three only: a '\r' from a CRLF file stays
// glued to the last token.
constexpr const char* kSeparators = " \t\n";

class ConfParser {
 public:
  ParsedConf run(const std::string& path) {
    int rc = loadFile(path, /*topLevel=*/true);
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

  // Returns -1 when Slurm would abort the whole stack.
  int loadFile(const std::string& path, bool topLevel) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    FILE* fp = fd >= 0 ? fdopen(fd, "r") : nullptr;
    if (!fp) {
      int err = errno;
      if (fd >= 0) close(fd);
      if (err == ENOENT) {
        if (topLevel) result_.missing = true;
        return 0;
      }
      diagnose(Severity::Error, "CONFIG_OPEN_FAILED", path, 0,
               "cannot open " + path + ": " + std::strerror(err) +
                   "; Slurm fails to create the plugin stack",
               {{"error", "spank: Failed to open " + path + ": " + std::strerror(err)}});
      return -1;
    }

    char canonical[PATH_MAX];
    std::string key = realpath(path.c_str(), canonical) ? canonical : path;
    open_.push_back(key);

    int rc = 0;
    int lineno = 1;
    char buf[kLineBuffer];
    while (std::fgets(buf, sizeof buf, fp)) {
      size_t len = std::strlen(buf);
      if (len == sizeof buf - 1 && buf[len - 1] != '\n' && !std::feof(fp)) {
        diagnose(Severity::Warning, "CONFIG_LINE_TOO_LONG", path, lineno,
                 "line is longer than " + std::to_string(sizeof buf - 1) +
                     " bytes; Slurm reads the rest of it as the next line",
                 {});
      }
      rc = processLine(path, lineno, buf);
      if (rc < 0) break;
      lineno++;
    }
    std::fclose(fp);
    open_.pop_back();
    return rc;
  }

  int processLine(const std::string& file, int lineno, char* buf) {
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

    if (keyword == "include") return include(file, lineno, tokens[1]);

    ConfItem item{ConfItem::Kind::Plugin, {}, {}};
    item.plugin.file = file;
    item.plugin.line = lineno;
    item.plugin.required = keyword == "required";
    item.plugin.path = tokens[1];
    item.plugin.args.assign(tokens.begin() + 2, tokens.end());
    result_.items.push_back(std::move(item));
    return 0;
  }

  int include(const std::string& file, int lineno, const std::string& pattern) {
    std::string full = pattern;
    if (pattern[0] != '/') {
      // Relative to the directory of the including file, not PluginDir.
      std::string dir = file;
      size_t slash = dir.rfind('/');
      dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : dir.substr(0, slash));
      full = dir + "/" + pattern;
    }

    glob_t gl;
    int rc = glob(full.c_str(), 0, nullptr, &gl);
    if (rc == GLOB_NOMATCH) {
      diagnose(Severity::Warning, "CONFIG_INCLUDE_NO_MATCH", file, lineno,
               "include \"" + full + "\" matches no file; Slurm ignores it silently", {});
    } else if (rc == GLOB_ABORTED) {
      diagnose(Severity::Warning, "CONFIG_INCLUDE_UNREADABLE", file, lineno,
               "include \"" + full + "\": cannot read the directory; Slurm ignores it",
               {{"verbose", file + ":" + std::to_string(lineno) + ": cannot read dir " + full}});
    }
    int result = 0;
    if (rc == 0) {
      for (size_t i = 0; i < gl.gl_pathc; i++) {
        const char* match = gl.gl_pathv[i];
        char canonical[PATH_MAX];
        std::string key = realpath(match, canonical) ? canonical : match;
        bool loop = false;
        for (const auto& f : open_) loop = loop || f == key;
        if (loop) {
          // Slurm has no guard: it recurses until it runs out of file
          // descriptors or stack, and the stack fails. Say why instead.
          diagnose(Severity::Error, "CONFIG_INCLUDE_LOOP", file, lineno,
                   "include \"" + pattern + "\" loads " + key +
                       " again while it is still being read (an include loop); Slurm "
                       "recurses until it fails",
                   {});
          result = -1;
          break;
        }
        if (loadFile(match, /*topLevel=*/false) < 0) {
          result = -1;
          break;
        }
      }
    }
    globfree(&gl);
    return result;
  }

  ParsedConf result_;
  std::vector<std::string> open_;  // files being read, outermost first
};

}  // namespace

ParsedConf parsePlugstackConf(const std::string& path) { return ConfParser().run(path); }

}  // namespace plugstack
