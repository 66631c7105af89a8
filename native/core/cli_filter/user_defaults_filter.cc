// cli_filter/user_defaults: in setup_defaults, the user's own defaults from
// ~/.slurm/defaults (the home directory of the passwd entry of the real
// uid, as Slurm finds it), one "key = value" per line, '#' lines ignored.
// A key is [command:][cluster:]option: the command is srun, sbatch,
// salloc or *, the cluster ClusterName or *. Each line goes through
// slurm_option_set with the pass's early flag; a line that does not apply
// or does not set is skipped silently, and every hook succeeds.
#include <pwd.h>
#include <strings.h>
#include <unistd.h>

#include <cctype>
#include <fstream>
#include <vector>

#include "cli_filter/builtin_filters.h"
#include "common/slurm_log.h"

namespace plugstack {

namespace {

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) b++;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) e--;
  return s.substr(b, e - b);
}

// strtok_r(":"): empty fields vanish; at most three are taken.
std::vector<std::string> keyParts(const std::string& key) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (i <= key.size() && parts.size() < 3) {
    size_t colon = key.find(':', i);
    std::string part = key.substr(i, colon == std::string::npos ? std::string::npos : colon - i);
    if (!part.empty()) parts.push_back(part);
    if (colon == std::string::npos) break;
    i = colon + 1;
  }
  return parts;
}

class UserDefaultsFilter : public CliFilter {
 public:
  UserDefaultsFilter(std::string file, std::string clusterName, Command command)
      : file_(std::move(file)), clusterName_(std::move(clusterName)), command_(command) {}

  int setupDefaults(slurm_opt* opt, bool early) override {
    std::ifstream in(file_);
    if (!in) return 0;  // no defaults: Slurm's own
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line)) {
      lineNo++;
      std::string trimmed = trim(line);
      if (!trimmed.empty() && trimmed[0] == '#') continue;
      size_t eq = trimmed.find('=');
      if (eq == std::string::npos) continue;
      apply(opt, early, trim(trimmed.substr(0, eq)), trim(trimmed.substr(eq + 1)), lineNo);
    }
    return 0;
  }
  int preSubmit(slurm_opt*, int) override { return 0; }
  void postSubmit(int, uint32_t, uint32_t) override {}

 private:
  void apply(slurm_opt* opt, bool early, const std::string& key, const std::string& value, int lineNo) {
    std::vector<std::string> parts = keyParts(key);
    if (parts.empty()) return;
    size_t used = 0;
    std::string command, cluster;
    if (parts.size() > 2) command = trim(parts[used++]);
    if (parts.size() > 1) cluster = trim(parts[used++]);
    std::string component = trim(parts[used]);
    if (!command.empty() || parts.size() > 2) {
      if (!strcasecmp(command.c_str(), "salloc") || !strcasecmp(command.c_str(), "sbatch") ||
          !strcasecmp(command.c_str(), "srun")) {
        if (strcasecmp(command.c_str(), commandName(command_)) != 0) return;
      } else if (command != "*") {
        slurmLog(LogLevel::Error, "Unknown command \"" + command + "\" in ~/.slurm/defaults, line " +
                                      std::to_string(lineNo));
        return;
      }
    }
    if (!cluster.empty() && cluster[0] != '*' && cluster != clusterName_) return;
    const BuiltinOption* o = opt->store.find(component);
    if (o) opt->store.set(*o, value.c_str(), early);
  }

  std::string file_;
  std::string clusterName_;
  Command command_;
};

}  // namespace

// Where the defaults are read: the passwd entry's home, as Slurm does, or
// the file the caller names (plugstack's own setting, for tests).
std::string userDefaultsFile(const std::string& overridePath) {
  if (!overridePath.empty()) return overridePath;
  struct passwd pwd, *result = nullptr;
  std::vector<char> buf(16384);
  if (getpwuid_r(getuid(), &pwd, buf.data(), buf.size(), &result) != 0 || !result) {
    slurmLog(LogLevel::Error, "Failed to lookup user homedir to load slurm defaults.");
    return {};
  }
  return std::string(result->pw_dir) + "/.slurm/defaults";
}

std::unique_ptr<CliFilter> makeUserDefaultsFilter(const std::string& file, const std::string& clusterName,
                                                  Command command) {
  return std::make_unique<UserDefaultsFilter>(file, clusterName, command);
}

}  // namespace plugstack
