#include "config/slurm_conf.h"

#include <strings.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "config/conf_syntax.h"
#include "config/safe_read.h"
#include "rules/releases.h"
#include "rules/slurm_conf_keys.h"

namespace plugstack {

namespace {

// slurm.conf files are small; these bound what a broken or hostile one can
// make the reader do (plugstack parses it inside Node too): without the
// loop check and the budgets, three lines "Include slurm.conf" read the
// file 3^16 times and the diagnostics filled Node's memory.
constexpr size_t kMaxFileBytes = 4u << 20;
constexpr int kMaxIncludeDepth = 16;
// Every file read counts, a file included twice twice.
constexpr size_t kMaxFilesRead = 1024;
constexpr size_t kMaxTotalBytes = 16u << 20;
// Problems past this many are summed up in one last diagnostic.
constexpr size_t kMaxDiagnostics = 1000;

// "[...]" of a line in a message: long lines are cut.
std::string shown(const std::string& s) { return s.size() > 200 ? s.substr(0, 200) + "..." : s; }

using conf::blank;
using conf::isSpace;
using conf::KeyValue;
using conf::nextKeyValue;

class SlurmConfParser {
 public:
  SlurmConfParser(const SlurmVersion& version, ParsedSlurmConf& out) : version_(version), out_(out) {}

  void parseFile(const std::string& path, const std::string& site, int siteLine, int depth) {
    SafeRead r = readConfigFile(path, kMaxFileBytes);
    const std::string& where = site.empty() ? path : site;
    switch (r.status) {
      case SafeRead::Status::Ok:
        break;
      case SafeRead::Status::Missing:
        if (depth == 0) {
          out_.missing = true;
          return;
        }
        // Slurm retries the stat for a minute before it gives up; plugstack
        // does not wait.
        error("SLURM_CONF_OPEN_FAILED", where, siteLine, "cannot read " + path + ": " + r.detail,
              {{"error", "s_p_parse_file: cannot stat file " + path + ": " + r.detail +
                             ", retrying in 1sec up to 60sec"}});
        return;
      case SafeRead::Status::Failed:
        error("SLURM_CONF_OPEN_FAILED", where, siteLine, "cannot read " + path + ": " + r.detail,
              {{"error", "s_p_parse_file: unable to read \"" + path + "\": " + r.detail}});
        return;
      case SafeRead::Status::NotAFile:
        error("SLURM_CONF_NOT_A_FILE", where, siteLine, path + " is " + r.detail + ", not a file", {});
        return;
      case SafeRead::Status::TooLarge:
        error("SLURM_CONF_TOO_LARGE", where, siteLine,
              path + " is larger than " + std::to_string(kMaxFileBytes >> 20) + " MiB", {});
        return;
    }
    if (r.text.empty()) return;  // Slurm logs that the file is empty and carries on
    filesRead_++;
    totalBytes_ += r.text.size();
    if (totalBytes_ > kMaxTotalBytes) {
      error("SLURM_CONF_TOO_LARGE", where, siteLine,
            path + " is not read: the files included so far hold more than " +
                std::to_string(kMaxTotalBytes >> 20) + " MiB in all",
            {});
      return;
    }

    // The file is being read until its last line: an include of it until
    // then is a loop.
    char canonical[PATH_MAX];
    reading_.push_back(realpath(path.c_str(), canonical) ? std::string(canonical) : path);
    // Physical lines, joined where a line continues.
    conf::forEachLogicalLine(r.text, [&](const conf::LogicalLine& l) { parseLine(path, l.line, l.text, depth); });
    reading_.pop_back();
  }

 private:
  void error(const char* code, const std::string& file, int line, std::string message,
             std::vector<SlurmLogLine> slurmLog) {
    out_.ok = false;
    if (out_.diagnostics.size() > kMaxDiagnostics) return;
    if (out_.diagnostics.size() == kMaxDiagnostics) {
      code = "SLURM_CONF_TOO_MANY_PROBLEMS";
      message = "more than " + std::to_string(kMaxDiagnostics) + " problems: the rest are not listed";
      slurmLog.clear();
    }
    Diagnostic d;
    d.severity = Severity::Error;
    d.code = code;
    d.message = std::move(message);
    d.file = file;
    d.line = line;
    d.slurmLog = std::move(slurmLog);
    out_.diagnostics.push_back(std::move(d));
    out_.ok = false;
  }

  void parseLine(const std::string& file, int line, const std::string& text, int depth) {
    // "Include FILE", any case, then a space.
    if (text.size() > 7 && strncasecmp(text.c_str(), "include", 7) == 0 && isSpace(text[7])) {
      size_t i = 7;
      while (i < text.size() && isSpace(text[i])) i++;
      size_t start = i;
      while (i < text.size() && !isSpace(text[i])) i++;
      include(file, line, text.substr(start, i - start), depth);
      if (!blank(text, i)) parseError(file, line, text.substr(i));
      return;
    }
    KeyValue kv;
    if (!nextKeyValue(text, 0, &kv)) {
      if (!blank(text, 0)) parseError(file, line, text);
      return;
    }
    const SlurmConfKey* key = findSlurmConfKey("", kv.key, version_);
    if (!key) {
      error("SLURM_CONF_UNKNOWN_KEY", file, line,
            "\"" + kv.key + "\" is not a slurm.conf key of Slurm " + version_.text() +
                "; srun, sbatch and salloc stop on it",
            {{"error", "_parse_next_key: Parsing error at unrecognized key: " + kv.key}});
      return;
    }
    if (key->type == SlurmConfType::Line) {
      SlurmConfRecord rec{key->name, kv.value, {}, file, line};
      size_t at = kv.end;
      KeyValue sub;
      while (nextKeyValue(text, at, &sub)) {
        const SlurmConfKey* field = findSlurmConfKey(key->name, sub.key, version_);
        if (!field) {
          error("SLURM_CONF_UNKNOWN_KEY", file, line,
                "\"" + sub.key + "\" is not a key of a " + key->name + " line in Slurm " + version_.text(),
                {{"error", "Parsing error at unrecognized key: " + sub.key},
                 {"error", "Parse error in file " + file + " line " + std::to_string(line) + ": \"" +
                               shown(text.substr(at)) + "\""}});
          return;
        }
        if (!checkValue(*field, sub.value, file, line)) return;
        rec.fields.push_back({field->name, sub.value, file, line});
        at = sub.end;
      }
      if (!blank(text, at)) {
        parseError(file, line, text.substr(at));
        return;
      }
      if (!checkNodeLine(rec)) return;
      out_.records.push_back(std::move(rec));
      return;
    }
    if (!checkValue(*key, kv.value, file, line)) return;
    if (!blank(text, kv.end)) {
      parseError(file, line, text.substr(kv.end));
      return;
    }
    out_.keys.push_back({key->name, kv.value, file, line});
  }

  // The conversions of parse_value.c, with their messages.
  // read_config.c's NodeName handler (_parse_nodename): a DEFAULT line
  // sets nothing that names one node; ALL is reserved (fatal() there: the
  // command stops at this line).
  bool checkNodeLine(const SlurmConfRecord& rec) {
    if (rec.kind != "NodeName") return true;
    if (!strcasecmp(rec.name.c_str(), "DEFAULT")) {
      for (const char* named : {"NodeHostname", "BcastAddr", "NodeAddr"}) {
        for (const auto& f : rec.fields) {
          if (f.key != named) continue;
          error("SLURM_CONF_BAD_NODE_LINE", rec.file, rec.line,
                std::string(named) + " is not allowed on a NodeName=DEFAULT line",
                {{"error", std::string(named) + " not allowed with NodeName=DEFAULT"}});
          return false;
        }
      }
    } else if (!strcasecmp(rec.name.c_str(), "ALL")) {
      error("SLURM_CONF_BAD_NODE_LINE", rec.file, rec.line, "NodeName=" + rec.name + ": ALL is a reserved word",
            {{"fatal", "'" + rec.name + "' is a reserved word disallowed for use with NodeName"}});
      return false;
    }
    return true;
  }

  bool checkValue(const SlurmConfKey& key, const std::string& value, const std::string& file, int line) {
    auto bad = [&](const std::string& log) {
      error("SLURM_CONF_BAD_VALUE", file, line, key.name + std::string(" = \"") + value + "\": " + log,
            {{"error", log}});
      return false;
    };
    switch (key.type) {
      case SlurmConfType::Uint16:
      case SlurmConfType::Uint32:
      case SlurmConfType::Uint64:
      case SlurmConfType::Long: {
        if (!strcasecmp(value.c_str(), "UNLIMITED") || !strcasecmp(value.c_str(), "INFINITE")) return true;
        char* end;
        errno = 0;
        unsigned long long n = std::strtoull(value.c_str(), &end, 10);
        // parse_value.c quotes a 16-bit value and brackets the others.
        const bool quoted = key.type == SlurmConfType::Uint16;
        const std::string shownValue = quoted ? "\"" + value + "\"" : "(" + value + ")";
        if (value.empty() || *end != '\0' || value[0] == '-')
          return bad(std::string(key.name) + " value " + shownValue + " is not a valid number");
        unsigned long long max = key.type == SlurmConfType::Uint16   ? 0xffffULL
                                 : key.type == SlurmConfType::Uint32 ? 0xffffffffULL
                                                                     : ULLONG_MAX;
        if (errno == ERANGE || n > max) return bad(std::string(key.name) + " value (" + value + ") is out of range");
        return true;
      }
      case SlurmConfType::Boolean: {
        static const char* const kWords[] = {"yes", "up", "true", "1", "no", "down", "false", "0"};
        for (const char* w : kWords)
          if (!strcasecmp(value.c_str(), w)) return true;
        return bad("\"" + value + "\" is not a valid option for \"" + key.name + "\"");
      }
      default:
        return true;
    }
  }

  void parseError(const std::string& file, int line, const std::string& rest) {
    std::string left = rest;
    while (!left.empty() && (left.back() == '\r' || left.back() == '\n')) left.pop_back();
    error("SLURM_CONF_PARSE_ERROR", file, line, "cannot parse \"" + shown(left) + "\"",
          {{"error", "Parse error in file " + file + " line " + std::to_string(line) + ": \"" + shown(left) + "\""}});
  }

  void include(const std::string& file, int line, const std::string& name, int depth) {
    auto failed = [&](const char* code, std::string message) {
      error(code, file, line, std::move(message),
            {{"error", "\"Include\" failed in file " + file + " line " + std::to_string(line)}});
    };
    // 24.11 refuses a glob outright; 22.05 looks for a file of that name.
    if (name.find('*') != std::string::npos && releases::slurmConf(version_).includeRefusesGlob) {
      failed("SLURM_CONF_INCLUDE_FAILED",
             "Include " + name + ": Slurm does not expand globs in slurm.conf; the line is skipped and the file fails");
      return;
    }
    if (filesRead_ >= kMaxFilesRead) {
      failed("SLURM_CONF_INCLUDE_TOO_MANY",
             "Include " + name + ": plugstack stops after reading " + std::to_string(kMaxFilesRead) +
                 " files in all (a file included several times counts each time)");
      return;
    }
    if (depth + 1 > kMaxIncludeDepth) {
      failed("SLURM_CONF_INCLUDE_TOO_DEEP",
             "Include " + name + ": more than " + std::to_string(kMaxIncludeDepth) + " nested files (an include loop?)");
      return;
    }
    // get_extra_conf_path: absolute as it is, else beside slurm.conf.
    std::string path = name;
    if (name.empty() || name[0] != '/') {
      size_t slash = root_.rfind('/');
      path = (slash == std::string::npos ? std::string(".") : root_.substr(0, slash)) + "/" + name;
    }
    char canonical[PATH_MAX];
    std::string key = realpath(path.c_str(), canonical) ? std::string(canonical) : path;
    for (const std::string& open : reading_) {
      if (open != key) continue;
      // Slurm has no guard: it recurses until it runs out of descriptors or
      // stack. Say why instead.
      failed("SLURM_CONF_INCLUDE_LOOP", "Include " + name + " reads " + key +
                                            " again while it is still being read (an include loop); Slurm "
                                            "recurses until it fails");
      return;
    }
    size_t before = out_.diagnostics.size();
    parseFile(path, file, line, depth + 1);
    if (out_.diagnostics.size() > before && path != file) {
      // The included file's own problems say where; Slurm adds this line.
      out_.diagnostics.back().slurmLog.push_back(
          {"error", "\"Include\" failed in file " + file + " line " + std::to_string(line)});
    }
  }

 public:
  std::string root_;

 private:
  const SlurmVersion& version_;
  ParsedSlurmConf& out_;
  // The files being read, outermost first (canonical paths).
  std::vector<std::string> reading_;
  size_t filesRead_ = 0;
  size_t totalBytes_ = 0;
};

}  // namespace

ParsedSlurmConf parseSlurmConf(const std::string& path, const SlurmVersion& version) {
  ParsedSlurmConf out;
  SlurmConfParser parser(version, out);
  parser.root_ = path;
  parser.parseFile(path, "", 0, 0);
  return out;
}

}  // namespace plugstack
