#include "rules/slurm_version.h"

#include <cstdio>
#include <cstdlib>

#include "rules/releases.h"

namespace plugstack {

int releaseIndex(const SlurmVersion& version) {
  for (int i = 0; i < releases::kCount; i++)
    if (releases::kReleases[i].major == version.major && releases::kReleases[i].minor == version.minor) return i;
  return 0;
}

std::string SlurmVersion::text() const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%u.%02u.%u", major, minor, micro);
  return buf;
}

std::string SlurmVersion::majorText() const { return std::to_string(major); }

std::string SlurmVersion::minorText() const {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02u", minor);
  return buf;
}

std::string SlurmVersion::microText() const { return std::to_string(micro); }

bool parseSlurmVersion(const std::string& text, SlurmVersion* out) {
  unsigned parts[3] = {0, 0, 0};
  int n = 0;
  const char* p = text.c_str();
  for (;;) {
    if (n == 3 || *p < '0' || *p > '9') return false;
    char* end;
    unsigned long v = std::strtoul(p, &end, 10);
    if (v > 255) return false;
    parts[n++] = static_cast<unsigned>(v);
    if (*end == '\0') break;
    if (*end != '.') return false;
    p = end + 1;
  }
  if (n < 2) return false;
  for (const auto& r : releases::kReleases) {
    if (r.major == parts[0] && r.minor == parts[1]) {
      *out = {r.major, r.minor, n == 3 ? parts[2] : r.micro};
      return true;
    }
  }
  return false;
}

std::string formatVersionNumber(uint32_t number) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%u.%02u.%u", (number >> 16) & 0xff, (number >> 8) & 0xff,
                number & 0xff);
  return buf;
}

}  // namespace plugstack
