#include "spank/help_format.h"

#include <stdarg.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace plugstack {

namespace {

constexpr int kLeftPad = 6;
constexpr int kUsageColumn = 30;
// Slurm formats the left part into a char[81] and copies the usage into a
// char[4096].
constexpr size_t kInfoBuffer = 81;
constexpr size_t kUsageBuffer = 4096;

bool space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// Walks a usage string the way Slurm's segmenting does: a segment ends at
// the last word boundary within `width` characters; a single word longer
// than that is cut and hyphenated. The quirks (leftover spaces at the start
// of the next line, the hyphen eating a character) are kept, since the
// output must match byte for byte.
class UsageSegments {
 public:
  UsageSegments(std::string text, int width) : buf_(std::move(text)), width_(width) {}

  // The next segment, or false at the end.
  bool next(std::string* out) {
    if (pos_ >= buf_.size() || buf_[pos_] == '\0') return false;
    size_t seg = pos_;
    size_t len = std::strlen(buf_.c_str() + seg);
    if (len <= static_cast<size_t>(width_)) {
      pos_ = seg + len;
      *out = buf_.substr(seg, len);
      return true;
    }
    // Back up from the character at `width` to the previous whitespace,
    // then over the whitespace to the end of the previous word.
    size_t p = seg + static_cast<size_t>(width_);
    while (p != seg && !space(buf_[p])) --p;
    size_t after = p + 1;
    while (p != seg && space(buf_[p])) --p;
    if (p == seg) {
      // No boundary: cut the word, with a '-' in place of its last
      // character, and continue from that character.
      *out = buf_.substr(seg, static_cast<size_t>(width_) - 1) + "-";
      pos_ = seg + static_cast<size_t>(width_) - 1;
      return true;
    }
    buf_[p + 1] = '\0';
    *out = buf_.substr(seg, p + 1 - seg);
    pos_ = after;
    return true;
  }

 private:
  std::string buf_;
  int width_;
  size_t pos_ = 0;
};

void appendf(std::string& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void appendf(std::string& out, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char* s = nullptr;
  int n = vasprintf(&s, fmt, ap);
  va_end(ap);
  if (n >= 0) out.append(s, static_cast<size_t>(n));
  std::free(s);
}

void renderOption(std::string& out, const HelpOption& opt, int columns) {
  const int usageWidth = columns - kUsageColumn;

  char info[kInfoBuffer];
  int n = std::snprintf(info, sizeof info, "%*s--%s%s%s", kLeftPad, "", opt.name.c_str(),
                        opt.arginfo ? "=" : "", opt.arginfo ? opt.arginfo->c_str() : "");
  if (n < 0 || n > columns) {
    // Too wide for the terminal: cut it and mark the cut with '+'.
    size_t at = static_cast<size_t>(columns) - 2;
    if (at < sizeof info - 1) {
      info[at] = '+';
      info[at + 1] = '\0';
    }
  }

  std::string usage = opt.usage ? opt.usage->substr(0, kUsageBuffer - 1) : std::string();
  UsageSegments segments(usage, usageWidth);
  std::string seg;
  // An empty usage reaches printf's "%s" as NULL, which glibc prints as
  // "(null)".
  std::string first = segments.next(&seg) ? seg : "(null)";
  if (n < kUsageColumn)
    appendf(out, "%-*s%s\n", kUsageColumn, info, first.c_str());
  else
    appendf(out, "\n%s\n%*s%s\n", info, kUsageColumn, "", first.c_str());
  while (segments.next(&seg)) appendf(out, "%*s%s\n", kUsageColumn, "", seg.c_str());
}

}  // namespace

int helpColumns(const char* columnsEnv) {
  int cols = 80;
  if (columnsEnv) {
    char* end;
    long v = std::strtol(columnsEnv, &end, 10);
    if (*end == '\0') cols = static_cast<int>(v);
  }
  return cols;
}

std::string formatPluginHelp(const std::vector<HelpOption>& options, int columns) {
  if (options.empty()) return "";
  if (columns <= kUsageColumn) columns = 80;
  std::string out = "\nOptions provided by plugins:\n";
  for (const auto& o : options)
    if (o.shown) renderOption(out, o, columns);
  return out;
}

}  // namespace plugstack
