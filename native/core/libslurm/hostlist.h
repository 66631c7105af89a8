// Slurm's hostlist: host names held as ranges of numbered names
// ("node[0-3,7]"), with Slurm's rules for parsing, matching, ordering and
// printing them on a one-dimensional cluster. Written for plugstack after
// the behaviour of Slurm's hostlist.c, quirks included where a plugin can
// see them: widths are made "equivalent" while comparing (n01 and n1 are
// different hosts, n1 and n001... are not), a name whose prefix swallowed
// some leading digits ("nid0000[2-7]") still finds "nid00002", and uniq
// joins ranges only after sorting.
//
// The rules that changed between releases are data (HostlistRules, from
// rules/releases.json): 24.11
// also splits on newlines, accepts a suffix after a bracket
// ("n[1-2]-ib" is n1-ib,n2-ib) and refuses a '[' without ']', which 22.05
// turns into a host name.
#pragma once

#include <string>
#include <vector>

#include "libslurm/release.h"

namespace plugstack::libslurm {

// The hostlist table of rules/releases.json.
using HostlistRules = releases::Hostlist;

const HostlistRules& hostlistRules(Release r);

// One range: prefix + numbers lo..hi printed with width digits, or a
// single host whose name is prefix (no numeric suffix).
struct HostRange {
  std::string prefix;
  unsigned long lo = 0;
  unsigned long hi = 0;
  int width = 0;
  bool single = false;

  unsigned long count() const { return single ? 1 : hi - lo + 1; }
  bool empty() const { return hi < lo || hi == static_cast<unsigned long>(-1); }
  // The host at depth (0 = lo).
  std::string host(unsigned long depth) const;
};

class HostList {
 public:
  // False (errno EINVAL) when the expression is invalid. The error lines
  // Slurm's parser would log are kept in parseLog(), not logged: this
  // parser also runs inside Node (the slurm.conf reader), where there is
  // no host to log to; parseAndLog (hostlist_log.h) logs them in a host.
  bool parse(const char* expression, const HostlistRules& rules);
  const std::vector<std::string>& parseLog() const { return parseLog_; }

  int count() const { return static_cast<int>(nhosts_); }
  unsigned long total() const { return nhosts_; }
  // At most max hosts: what would go past it is not added, and overLimit()
  // says so (the list is then incomplete). A list read inside Node is
  // bounded this way: "r[0-65535]n[0-65535]-ib" is four billion hosts.
  void limitHosts(unsigned long max) { limit_ = max; }
  bool overLimit() const { return overLimit_; }
  int pushHost(const std::string& name);
  // Appends another list's ranges; returns the host total after each, summed (Slurm's value).
  int pushList(const HostList& other);
  // Index of the first host matching name, or -1.
  int find(const std::string& name);
  bool shift(std::string* host);
  bool pop(std::string* host);
  bool nth(int n, std::string* host) const;
  int deleteNth(int n);
  void uniq();
  // Slurm's compact form into buf (at most n bytes with the NUL): its
  // length, or -1 when truncated.
  long ranged(size_t n, char* buf) const;
  std::string ranged() const;

  const std::vector<HostRange>& ranges() const { return ranges_; }

  // Iterators follow the list's edits (hostlist.c's shift_iterators) and
  // go with it: destroying a list frees its iterators, as in Slurm.
  struct Cursor {
    HostList* owner = nullptr;
    int idx = 0;
    long depth = -1;
    void reset() {
      idx = 0;
      depth = -1;
    }
  };
  Cursor* newCursor();
  void dropCursor(Cursor* c);
  bool next(Cursor* c, std::string* host) const;

  HostList() = default;
  // A copy has the ranges, not the iterators.
  HostList(const HostList& other) : ranges_(other.ranges_), nhosts_(other.nhosts_) {}
  HostList& operator=(const HostList&) = delete;
  ~HostList();

 private:
  int pushRange(const HostRange& range);
  bool pushRangeList(std::string prefix, const char* suffix, const std::vector<HostRange>& ranges);
  void pushNumbered(const std::string& prefix, const char* suffix, const HostRange& r);
  void deleteRange(size_t i);

  std::vector<HostRange> ranges_;
  unsigned long nhosts_ = 0;
  std::vector<Cursor*> cursors_;
  std::vector<std::string> parseLog_;
  unsigned long limit_ = static_cast<unsigned long>(-1);
  bool overLimit_ = false;
};

}  // namespace plugstack::libslurm
