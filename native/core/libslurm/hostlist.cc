#include "libslurm/hostlist.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace plugstack::libslurm {

namespace {

// Slurm's limits: hosts in one range, ranges in one bracket, hosts a
// bracketed prefix may expand to.
constexpr unsigned long kMaxRange = 64 * 1024;
constexpr size_t kMaxRanges = 256 * 1024;
constexpr unsigned long kMaxPrefixCount = 64 * 1024;

std::string numbered(const std::string& prefix, int width, unsigned long n) {
  char digits[32];
  std::snprintf(digits, sizeof digits, "%0*lu", width, n);
  return prefix + digits;
}

// ---- Widths and ordering --------------------------------------------------

// Zeros needed to pad num to width.
int zeroPadded(unsigned long num, int width) {
  int n = 1;
  while (num /= 10) n++;
  return width > n ? width - n : 0;
}

// Two widths are equivalent when either, applied to both numbers, pads
// neither differently; the one that changes nothing is adopted by both.
bool widthEquivalent(unsigned long n, int* wn, unsigned long m, int* wm) {
  if (*wn == *wm) return true;
  int npad = zeroPadded(n, *wn), nmpad = zeroPadded(n, *wm);
  int mpad = zeroPadded(m, *wm), mnpad = zeroPadded(m, *wn);
  if (npad != nmpad && mpad != mnpad) return false;
  if (npad != nmpad)
    *wm = *wn;
  else
    *wn = *wm;
  return true;
}

bool widthCombine(HostRange& a, HostRange& b) { return widthEquivalent(a.lo, &a.width, b.lo, &b.width); }

// Natural order: runs of digits compare as numbers (leading zeros are
// fractional-looking and compare digit by digit), everything else by byte,
// spaces ignored.
int naturalCompare(const char* a, const char* b) {
  for (;;) {
    while (std::isspace(static_cast<unsigned char>(*a))) a++;
    while (std::isspace(static_cast<unsigned char>(*b))) b++;
    unsigned char ca = static_cast<unsigned char>(*a), cb = static_cast<unsigned char>(*b);
    if (std::isdigit(ca) && std::isdigit(cb)) {
      if (ca == '0' || cb == '0') {
        // Left-aligned: the first differing digit decides.
        for (;; a++, b++) {
          bool da = std::isdigit(static_cast<unsigned char>(*a)), db = std::isdigit(static_cast<unsigned char>(*b));
          if (!da && !db) break;
          if (!da) return -1;
          if (!db) return 1;
          if (*a != *b) return *a < *b ? -1 : 1;
        }
      } else {
        // Right-aligned: the longer run is larger, else the first difference.
        int bias = 0;
        for (;; a++, b++) {
          bool da = std::isdigit(static_cast<unsigned char>(*a)), db = std::isdigit(static_cast<unsigned char>(*b));
          if (!da && !db) {
            if (bias) return bias;
            break;
          }
          if (!da) return -1;
          if (!db) return 1;
          if (!bias && *a != *b) bias = *a < *b ? -1 : 1;
        }
      }
      continue;
    }
    if (!ca && !cb) return 0;
    if (ca != cb) return ca < cb ? -1 : 1;
    a++;
    b++;
  }
}

// 0 when the prefixes match and both or neither are single hosts.
int prefixCompare(const HostRange* a, const HostRange* b) {
  if (!a) return 1;
  if (!b) return -1;
  int rc = naturalCompare(a->prefix.c_str(), b->prefix.c_str());
  return rc == 0 ? static_cast<int>(b->single) - static_cast<int>(a->single) : rc;
}

// Slurm's sort order: prefix, then the low number when the widths are
// equivalent, else the width. (The unsigned difference is truncated to int,
// as in Slurm.)
int rangeCompare(HostRange& a, HostRange& b) {
  int rc = prefixCompare(&a, &b);
  if (rc == 0) rc = widthCombine(a, b) ? static_cast<int>(a.lo - b.lo) : a.width - b.width;
  return rc;
}

int rangeCompareQsort(const void* x, const void* y) {
  return rangeCompare(**static_cast<HostRange* const*>(x), **static_cast<HostRange* const*>(y));
}

// Both would be printed inside one bracket.
bool withinRange(const HostRange* a, const HostRange* b) {
  return prefixCompare(a, b) == 0 && !a->single && !b->single;
}

// Joins b into a (a sorts first): the hosts duplicated, or -1 when they do not meet.
long join(HostRange& a, HostRange& b) {
  if (prefixCompare(&a, &b) != 0 || !widthCombine(a, b)) return -1;
  if (a.single && b.single) return 1;
  if (a.hi == b.lo - 1) {
    a.hi = b.hi;
    return 0;
  }
  if (a.hi >= b.lo) {
    if (a.hi < b.hi) {
      long dup = static_cast<long>(a.hi - b.lo + 1);
      a.hi = b.hi;
      return dup;
    }
    return static_cast<long>(b.count());
  }
  return -1;
}

// ---- Host names -----------------------------------------------------------

struct HostName {
  std::string name;
  std::string prefix;
  size_t suffixAt = std::string::npos;  // index in name; npos: no numeric suffix
  unsigned long num = 0;

  explicit HostName(const std::string& n) : name(n) {
    size_t end = name.size();
    size_t i = end;
    while (i > 0 && std::isdigit(static_cast<unsigned char>(name[i - 1]))) i--;
    if (i == end) {
      prefix = name;
      return;
    }
    suffixAt = i;
    num = std::strtoul(name.c_str() + i, nullptr, 10);
    prefix = name.substr(0, i);
  }
  bool hasSuffix() const { return suffixAt != std::string::npos; }
  const char* suffix() const { return name.c_str() + suffixAt; }
};

// Whether the host is in the range. Like Slurm, it may move leading digits
// between the name's prefix and number to match the range's prefix, and it
// keeps that change for the ranges tried after this one.
bool hostWithin(HostRange& hr, HostName& hn) {
  if (hr.single) return hn.name == hr.prefix;
  if (!hn.hasSuffix()) return false;
  if (hr.prefix != hn.prefix) {
    long len1 = static_cast<long>(hr.prefix.size()), len2 = static_cast<long>(hn.prefix.size());
    if (len1 == len2) return false;
    long ldiff = len1 - len2;
    if (ldiff > 0 && static_cast<long>(std::strlen(hn.suffix())) >= ldiff) {
      hn.prefix.append(hn.suffix(), static_cast<size_t>(ldiff));
    } else if (ldiff < 0) {
      hn.prefix.resize(static_cast<size_t>(len2 + ldiff));
    } else {
      return false;
    }
    hn.suffixAt = static_cast<size_t>(static_cast<long>(hn.suffixAt) + ldiff);
    hn.num = std::strtoul(hn.suffix(), nullptr, 10);
    if (hr.prefix != hn.prefix) return false;
  }
  if (hn.num <= hr.hi && hn.num >= hr.lo) {
    int width = static_cast<int>(std::strlen(hn.suffix()));
    return widthEquivalent(hr.lo, &hr.width, static_cast<unsigned long>(static_cast<int>(hn.num)), &width);
  }
  return false;
}

// ---- Parsing --------------------------------------------------------------

// The next token of str: up to a separator, except inside brackets.
// Separators after it are consumed. nullptr at the end.
char* nextToken(const char* sep, char** str) {
  while (**str && std::strchr(sep, **str)) (*str)++;
  if (!**str) return nullptr;
  char* tok = *str;
  char* parse = tok;
  for (;;) {
    while (**str && !std::strchr(sep, **str)) (*str)++;
    bool again = false;
    for (;;) {
      char* open = std::strchr(parse, '[');
      if (!open || open > *str) break;
      char* close = std::strchr(parse, ']');
      if (!close || close < open) break;
      if (close < *str) {
        parse = close + 1;
        continue;
      }
      *str = close;
      again = true;
      break;
    }
    if (!again) break;
  }
  while (**str && std::strchr(sep, **str)) *(*str)++ = '\0';
  return tok;
}

// The error line Slurm logs for a range it refuses, kept for the caller.
bool invalidRange(std::vector<std::string>* log, const char* orig, const char* what = "Invalid range: `") {
  log->push_back(std::string("_parse_single_range: ") + what + orig + "'");
  return false;
}

bool parseSingleRange(char* str, HostRange* range, std::vector<std::string>* log) {
  std::string orig = str;
  if (std::strchr(str, 'x')) return invalidRange(log, orig.c_str());
  char* p = std::strchr(str, '-');
  if (p) {
    *p++ = '\0';
    if (*p == '-') return invalidRange(log, orig.c_str());
  }
  range->width = static_cast<int>(std::strlen(str));
  char* q;
  range->lo = std::strtoul(str, &q, 10);
  if (q == str) return invalidRange(log, orig.c_str());
  range->hi = (p && *p) ? std::strtoul(p, &q, 10) : range->lo;
  if (q == p || *q != '\0') return invalidRange(log, orig.c_str());
  if (range->lo > range->hi) return invalidRange(log, orig.c_str());
  if (range->hi - range->lo + 1 > kMaxRange)
    return invalidRange(log, orig.c_str(), "Too many hosts in range `");
  return true;
}

bool parseRangeList(char* str, std::vector<HostRange>* out, std::vector<std::string>* log) {
  out->clear();
  while (str) {
    if (out->size() == kMaxRanges) return false;
    char* p = std::strchr(str, ',');
    if (p) *p++ = '\0';
    HostRange r;
    if (!parseSingleRange(str, &r, log)) return false;
    out->push_back(r);
    str = p;
  }
  return true;
}

}  // namespace

const HostlistRules& hostlistRules(Release r) { return releases::kHostlist[static_cast<int>(r)]; }

std::string HostRange::host(unsigned long depth) const {
  return single ? prefix : numbered(prefix, width, lo + depth);
}

int HostList::pushRange(const HostRange& range) {
  HostRange hr = range;
  if (hr.count() > limit_ - nhosts_) {
    // Past the limit: the hosts that fit, then no more.
    overLimit_ = true;
    if (hr.single || limit_ == nhosts_) return static_cast<int>(nhosts_);
    hr.hi = hr.lo + (limit_ - nhosts_) - 1;
  }
  if (!ranges_.empty()) {
    HostRange& tail = ranges_.back();
    // The width comparison may adjust both widths, the new range's too.
    HostRange copy = hr;
    if (tail.hi == copy.lo - 1 && prefixCompare(&tail, &copy) == 0 && widthCombine(tail, copy)) {
      tail.hi = copy.hi;
      nhosts_ += hr.count();
      return static_cast<int>(nhosts_);
    }
    ranges_.push_back(copy);
    nhosts_ += hr.count();
    return static_cast<int>(nhosts_);
  }
  ranges_.push_back(hr);
  nhosts_ += hr.count();
  return static_cast<int>(nhosts_);
}

void HostList::pushNumbered(const std::string& prefix, const char* suffix, const HostRange& r) {
  if (!suffix) {
    HostRange hr;
    hr.prefix = prefix;
    hr.lo = r.lo;
    hr.hi = r.hi;
    hr.width = r.width;
    pushRange(hr);
    return;
  }
  // A suffix makes every host a name of its own.
  for (unsigned long i = r.lo; i <= r.hi && !overLimit_; i++) {
    HostRange hr;
    hr.prefix = numbered(prefix, r.width, i) + suffix;
    hr.single = true;
    pushRange(hr);
    if (i == static_cast<unsigned long>(-1)) break;
  }
}

// A prefix may hold one more bracket ("rack[1-2]n"): each of its numbers
// makes a prefix of its own, recursively.
bool HostList::pushRangeList(std::string prefix, const char* suffix, const std::vector<HostRange>& ranges) {
  size_t open = prefix.rfind('[');
  size_t close = prefix.rfind(']');
  if (open != std::string::npos && close != std::string::npos && close > open) {
    std::string head = prefix.substr(0, open);
    std::string inner = prefix.substr(open + 1, close - open - 1);
    std::string tail = prefix.substr(close + 1);
    bool recurse = head.find('[') != std::string::npos;
    std::vector<HostRange> outer;
    if (!parseRangeList(inner.data(), &outer, &parseLog_)) return false;
    unsigned long total = 0;
    bool ok = true;
    for (const auto& r : outer) {
      total += r.hi - r.lo + 1;
      if (total > kMaxPrefixCount) return false;
      for (unsigned long j = r.lo; j <= r.hi; j++) {
        std::string p = numbered(head, r.width, j) + tail;
        if (recurse)
          ok = pushRangeList(p, suffix, ranges) && ok;
        else
          for (const auto& range : ranges) pushNumbered(p, suffix, range);
        // Past the limit nothing more is added; the outer brackets (the
        // same for every number here) have been read once, which is all a
        // refusal needs.
        if (overLimit_) break;
      }
    }
    return ok;
  }
  for (const auto& range : ranges) pushNumbered(prefix, suffix, range);
  return true;
}

bool HostList::parse(const char* expression, const HostlistRules& rules) {
  parseLog_.clear();
  overLimit_ = false;
  if (!expression) return true;
  std::string copy = expression;
  char* str = copy.data();
  std::vector<HostRange> ranges;
  while (char* tok = nextToken(rules.separators, &str)) {
    char* p = std::strrchr(tok, '[');
    if (!p) {
      pushHost(tok);
      continue;
    }
    *p++ = '\0';
    std::string prefix = tok;
    char* q = std::strchr(p, ']');
    if (!q) {
      if (rules.unclosedBracketIsError) {
        errno = EINVAL;
        return false;
      }
      // 22.05 takes it for a host name: the prefix with a ']' added.
      pushHost(prefix.empty() ? std::string(p) : prefix + "]");
      continue;
    }
    const char* suffix = nullptr;
    if (q[1] != ',' && q[1] != '\0') {
      if (!rules.suffixAfterBracket) {
        errno = EINVAL;
        return false;
      }
      suffix = q + 1;
    }
    std::string after = suffix ? suffix : "";
    *q = '\0';
    if (!parseRangeList(p, &ranges, &parseLog_) || !pushRangeList(prefix, suffix ? after.c_str() : nullptr, ranges)) {
      errno = EINVAL;
      return false;
    }
  }
  return true;
}

int HostList::pushHost(const std::string& name) {
  HostName hn(name);
  HostRange hr;
  if (hn.hasSuffix()) {
    hr.prefix = hn.prefix;
    hr.lo = hr.hi = hn.num;
    hr.width = static_cast<int>(std::strlen(hn.suffix()));
  } else {
    hr.prefix = name;
    hr.single = true;
  }
  pushRange(hr);
  return 1;
}

int HostList::pushList(const HostList& other) {
  int n = 0;
  for (const auto& r : other.ranges_) n += pushRange(r);
  return n;
}

int HostList::find(const std::string& name) {
  HostName hn(name);
  unsigned long count = 0;
  for (auto& r : ranges_) {
    if (hostWithin(r, hn)) return static_cast<int>(hn.hasSuffix() ? count + hn.num - r.lo : count);
    count += r.count();
  }
  return -1;
}

void HostList::deleteRange(size_t i) {
  ranges_.erase(ranges_.begin() + static_cast<long>(i));
  for (Cursor* c : cursors_) {
    if (c->idx >= static_cast<int>(i)) {
      if (--c->idx < 0) c->reset();
    }
  }
}

bool HostList::shift(std::string* host) {
  if (nhosts_ == 0 || ranges_.empty()) return false;
  HostRange& hr = ranges_.front();
  if (hr.single) {
    *host = hr.prefix;
    hr.lo++;
  } else {
    *host = numbered(hr.prefix, hr.width, hr.lo++);
  }
  nhosts_--;
  if (hr.empty()) {
    deleteRange(0);
  } else {
    for (Cursor* c : cursors_)
      if (c->idx == 0 && c->depth >= 0) c->depth = c->depth > -1 ? c->depth - 1 : -1;
  }
  return true;
}

bool HostList::pop(std::string* host) {
  if (nhosts_ == 0 || ranges_.empty()) return false;
  HostRange& hr = ranges_.back();
  if (hr.single) {
    *host = hr.prefix;
    hr.lo++;
  } else {
    *host = numbered(hr.prefix, hr.width, hr.hi--);
  }
  nhosts_--;
  if (hr.empty()) ranges_.pop_back();
  return true;
}

bool HostList::nth(int n, std::string* host) const {
  if (n < 0) return false;
  unsigned long count = 0;
  for (const auto& r : ranges_) {
    if (static_cast<unsigned long>(n) <= r.count() - 1 + count) {
      *host = r.host(static_cast<unsigned long>(n) - count);
      return true;
    }
    count += r.count();
  }
  return false;
}

int HostList::deleteNth(int n) {
  if (n < 0 || static_cast<unsigned long>(n) >= nhosts_) return 0;
  unsigned long count = 0;
  for (size_t i = 0; i < ranges_.size(); i++) {
    HostRange& hr = ranges_[i];
    unsigned long inRange = hr.count();
    if (static_cast<unsigned long>(n) <= inRange - 1 + count) {
      unsigned long num = hr.lo + static_cast<unsigned long>(n) - count;
      if (hr.single) {
        deleteRange(i);
      } else if (num == hr.lo) {
        hr.lo++;
        if (hr.empty()) deleteRange(i);
      } else if (num == hr.hi) {
        hr.hi--;
        if (hr.empty()) deleteRange(i);
      } else {
        HostRange upper = hr;
        hr.hi = num - 1;
        upper.lo = num + 1;
        ranges_.insert(ranges_.begin() + static_cast<long>(i) + 1, upper);
        for (Cursor* c : cursors_)
          if (c->idx >= static_cast<int>(i) + 1) c->idx++;
      }
      break;
    }
    count += inRange;
  }
  nhosts_--;
  return 1;
}

void HostList::uniq() {
  if (ranges_.size() <= 1) return;
  // qsort, as Slurm: its comparison adjusts widths as it goes.
  std::vector<HostRange*> order;
  for (auto& r : ranges_) order.push_back(&r);
  std::qsort(order.data(), order.size(), sizeof(HostRange*), rangeCompareQsort);
  std::vector<HostRange> sorted;
  for (HostRange* r : order) sorted.push_back(*r);
  ranges_ = std::move(sorted);
  size_t i = 1;
  while (i < ranges_.size()) {
    long dup = join(ranges_[i - 1], ranges_[i]);
    if (dup < 0) {
      i++;
      continue;
    }
    ranges_.erase(ranges_.begin() + static_cast<long>(i));
    nhosts_ -= static_cast<unsigned long>(dup);
  }
  for (Cursor* c : cursors_) c->reset();
}

namespace {

// "lo" or "lo-hi" with the range's width into buf (n bytes with the NUL):
// its length, or -1 when it does not fit.
long numberText(const HostRange& hr, size_t n, char* buf) {
  if (hr.single || n == 0) return 0;
  if (n <= 1) return -1;
  int len = std::snprintf(buf, n, "%0*lu", hr.width, hr.lo);
  if (len < 0 || static_cast<size_t>(len) >= n) return -1;
  if (hr.lo < hr.hi) {
    if (n < static_cast<size_t>(len) + 3) return -1;
    int len2 = std::snprintf(buf + len, n - static_cast<size_t>(len), "-%0*lu", hr.width, hr.hi);
    if (len2 < 0 || static_cast<size_t>(len += len2) >= n) return -1;
  }
  return len;
}

}  // namespace

long HostList::ranged(size_t n, char* buf) const {
  const auto& hr = ranges_;
  size_t len = 0;
  size_t i = 0;
  while (i < hr.size() && len < n) {
    if (i) buf[len++] = ',';
    // One bracketed group: a prefix and every following range with the same one.
    size_t room = n - len;
    char* out = buf + len;
    const HostRange* next = i + 1 < hr.size() ? &hr[i + 1] : nullptr;
    bool bracket = hr[i].count() > 1 || withinRange(&hr[i], next);
    int plen = std::snprintf(out, room, "%s", hr[i].prefix.c_str());
    if (plen < 0 || static_cast<size_t>(plen) + 4 >= room) {
      len += room;
      break;
    }
    size_t glen = static_cast<size_t>(plen);
    if (bracket) out[glen++] = '[';
    size_t start = i;
    bool truncated = false;
    do {
      if (i > start) out[glen++] = ',';
      long m = numberText(hr[i], room - glen, out + glen);
      if (m < 0 || (glen += static_cast<size_t>(m)) >= room - 1) {
        truncated = true;
        break;
      }
    } while (++i < hr.size() && withinRange(&hr[i], &hr[i - 1]));
    if (truncated) {
      len += room;
      break;
    }
    if (bracket) out[glen++] = ']';
    out[glen] = '\0';
    len += glen;
  }
  if (len >= n) {
    if (n > 0) buf[n - 1] = '\0';
    return -1;
  }
  buf[len] = '\0';
  return static_cast<long>(len);
}

std::string HostList::ranged() const {
  // Slurm grows its buffer from 8 KiB, doubling.
  std::vector<char> buf(8192);
  while (ranged(buf.size(), buf.data()) < 0) buf.resize(buf.size() * 2);
  return buf.data();
}

HostList::~HostList() {
  for (Cursor* c : cursors_) delete c;
}

HostList::Cursor* HostList::newCursor() {
  cursors_.push_back(new Cursor);
  cursors_.back()->owner = this;
  return cursors_.back();
}

void HostList::dropCursor(Cursor* c) {
  for (auto it = cursors_.begin(); it != cursors_.end(); ++it)
    if (*it == c) {
      cursors_.erase(it);
      break;
    }
  delete c;
}

bool HostList::next(Cursor* c, std::string* host) const {
  if (c->idx > static_cast<int>(ranges_.size()) - 1) return false;
  const HostRange& hr = ranges_[static_cast<size_t>(c->idx)];
  if (++c->depth > static_cast<long>(hr.hi - hr.lo) || (hr.single && c->depth > 0)) {
    c->idx++;
    c->depth = 0;
  }
  if (c->idx > static_cast<int>(ranges_.size()) - 1) return false;
  *host = ranges_[static_cast<size_t>(c->idx)].host(static_cast<unsigned long>(c->depth));
  return true;
}

}  // namespace plugstack::libslurm
