#include "client/host_file.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "libslurm/hostlist.h"

namespace plugstack {

namespace {

// A line's text once its comment is cut: "\#" stands for '#', the first
// other '#' ends the line.
std::string withoutComment(const char* line) {
  std::string out;
  for (const char* p = line; *p && *p != '\n'; p++) {
    if (*p != '#') {
      out += *p;
      continue;
    }
    if (!out.empty() && out.back() == '\\') {
      out.back() = '#';
      continue;
    }
    break;
  }
  return out;
}

}  // namespace

HostFile readHostFile(const std::string& path, int limit, bool perHost) {
  HostFile out;
  FILE* fp = std::fopen(path.c_str(), "r");
  if (!fp) {
    out.errors.push_back("slurm_allocate_resources error opening file " + path + ", " + std::strerror(errno));
    return out;
  }
  const bool limited = limit != kReadAllHosts;
  const auto full = [&] { return limited && static_cast<int>(out.hosts.size()) == limit; };
  char buf[65536];
  int lineNumber = 0;
  while (std::fgets(buf, sizeof buf, fp)) {
    std::string line = withoutComment(buf);
    lineNumber++;
    if (line.empty()) continue;
    if (!std::isalpha(static_cast<unsigned char>(line[0])) && !std::isdigit(static_cast<unsigned char>(line[0]))) {
      out.errors.push_back("Invalid hostfile " + path + " contents on line " + std::to_string(lineNumber));
      out.hosts.clear();
      std::fclose(fp);
      return out;
    }
    // strtok_r on ',': empty items are skipped.
    size_t start = 0;
    while (start <= line.size()) {
      size_t comma = line.find(',', start);
      std::string item = line.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      start = comma == std::string::npos ? line.size() + 1 : comma + 1;
      if (item.empty()) continue;
      size_t star = item.find('*');
      int times = star == std::string::npos ? 0 : std::atoi(item.c_str() + star + 1);
      if (times) {
        std::string name = item.substr(0, star);
        if (limited && perHost) times = std::min(times, limit - static_cast<int>(out.hosts.size()));
        for (int i = 0; i < times; i++) out.hosts.push_back(name);
      } else {
        out.hosts.push_back(item);
      }
      if (perHost && full()) break;
    }
    if (full()) break;
  }
  std::fclose(fp);
  if (out.hosts.empty()) out.errors.push_back("Hostlist is empty!");
  else if (limited && static_cast<int>(out.hosts.size()) < limit) out.errors.push_back("Too few NodeNames in Slurm Hostfile");
  if (!out.ok()) out.hosts.clear();
  return out;
}

std::string rangedHosts(const std::vector<std::string>& hosts) {
  libslurm::HostList list;
  for (const auto& h : hosts) list.pushHost(h);
  return list.ranged();
}

}  // namespace plugstack
