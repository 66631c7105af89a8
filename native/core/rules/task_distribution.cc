#include "rules/task_distribution.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <strings.h>
#include <vector>

namespace plugstack {

namespace {

// A level's name and its digit in task_dist_states_t (node level in the
// lowest nibble, then socket, then core): block and cyclic at every level,
// fcyclic below the node level.
struct LevelName {
  const char* name;
  uint32_t digit;
  bool nodeLevel;
};
constexpr LevelName kLevels[] = {{"cyclic", 1, true}, {"block", 2, true}, {"fcyclic", 3, false}};

std::optional<uint32_t> levelDigit(const std::string& token, int level) {
  for (const auto& l : kLevels)
    if (strcasecmp(token.c_str(), l.name) == 0 && (level > 0 || l.nodeLevel)) return l.digit;
  return std::nullopt;
}

const char* levelName(uint32_t digit) {
  for (const auto& l : kLevels)
    if (l.digit == digit) return l.name;
  return nullptr;
}

// _parse_dist_flag: "pack" or "nopack" alone, in any case.
std::optional<uint32_t> packFlag(const std::string& s) {
  if (strcasecmp(s.c_str(), "nopack") == 0) return kDistNoPackNodes;
  if (strcasecmp(s.c_str(), "pack") == 0) return kDistPackNodes;
  return std::nullopt;
}

// strtok_r's tokens: runs of non-separator characters.
std::vector<std::string> tokens(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == sep) i++;
    size_t j = i;
    while (j < s.size() && s[j] != sep) j++;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// _parse_plane_dist: the size after '=', else SLURM_DIST_PLANESIZE; a whole
// number from 1 to INT_MAX.
std::optional<TaskDistribution> plane(const char* arg, const char* planeSizeEnv) {
  const char* eq = std::strchr(arg, '=');
  const char* size = eq ? eq + 1 : planeSizeEnv;
  if (!size || !*size) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  long n = std::strtol(size, &end, 10);
  if (end == size || *end != '\0' || n <= 0 || n > INT_MAX || errno == ERANGE) return std::nullopt;
  TaskDistribution d;
  d.value = kDistPlane;
  d.planeSize = static_cast<uint32_t>(n);
  d.text = "plane";
  return d;
}

// _parse_dist_base: up to three ':' levels ("*" is block at the node
// level, cyclic at the socket level, the socket's at the core level), or
// "arbitrary"/"hostfile", or a pack flag alone; then ",pack" or ",nopack".
std::optional<TaskDistribution> base(const char* arg) {
  if (!*arg || *arg == ',') return std::nullopt;
  std::string all(arg);
  size_t comma = all.find(',');
  std::string dist = all.substr(0, comma);
  std::string flag = comma == std::string::npos ? "" : all.substr(comma + 1);
  std::vector<std::string> levels = tokens(dist, ':');
  if (levels.size() > 3) return std::nullopt;
  std::string sockLevel;
  for (size_t i = 0; i < levels.size(); i++) {
    if (levels[i] == "*") levels[i] = i == 0 ? "block" : i == 1 ? "cyclic" : sockLevel;
    if (i == 1) sockLevel = levels[i];
  }
  TaskDistribution d;
  uint32_t value = 0;
  bool named = true;
  if (levels.size() == 1 && (strcasecmp(levels[0].c_str(), "arbitrary") == 0 || strcasecmp(levels[0].c_str(), "hostfile") == 0)) {
    value = kDistArbitrary;
  } else {
    for (size_t i = 0; i < levels.size() && named; i++) {
      auto digit = levelDigit(levels[i], static_cast<int>(i));
      if (digit) value |= *digit << (4 * i);
      else named = false;
    }
    named = named && !levels.empty();
  }
  if (named) {
    d.value = value;
  } else if (levels.size() == 1 && packFlag(dist)) {
    // A pack flag alone: the default distribution, packed or not.
    d.value = kDistUnknown | *packFlag(dist);
  } else {
    return std::nullopt;
  }
  if (!flag.empty()) {
    auto f = packFlag(flag);
    if (!f) return std::nullopt;
    d.value |= *f;
  }
  // set_distribution: the levels' names, then the flag.
  uint32_t b = d.value & kDistStateBase;
  if (b == kDistArbitrary) {
    d.text = "arbitrary";
  } else if (b != kDistUnknown) {
    for (int i = 0; i < 3; i++) {
      uint32_t digit = (b >> (4 * i)) & 0xF;
      if (!digit) break;
      d.text += (i ? ":" : "") + std::string(levelName(digit));
    }
  }
  // Both flags ("pack,nopack") are no flag it knows: it writes none.
  uint32_t flags = d.value & (kDistPackNodes | kDistNoPackNodes);
  const char* flagText = flags == kDistPackNodes ? "pack" : flags == kDistNoPackNodes ? "nopack" : nullptr;
  if (flagText) d.text += (d.text.empty() ? "" : ",") + std::string(flagText);
  return d;
}

}  // namespace

std::string TaskDistribution::shown() const {
  return (value & kDistStateBase) == kDistPlane ? text + "=" + std::to_string(planeSize) : text;
}

std::optional<TaskDistribution> parseTaskDistribution(const char* arg, const char* planeSizeEnv, TaskDistributionError* why) {
  if (!arg) return std::nullopt;
  if (strncasecmp(arg, "plane", 5) == 0) {
    auto d = plane(arg, planeSizeEnv);
    if (!d && why) why->planeLine = "Invalid plane size or size not specified";
    return d;
  }
  return base(arg);
}

bool isArbitraryDistribution(const std::string& value) {
  std::optional<TaskDistribution> d = parseTaskDistribution(value.c_str(), nullptr);
  return d && (d->value & kDistStateBase) == kDistArbitrary;
}

}  // namespace plugstack
