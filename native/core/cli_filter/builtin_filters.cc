#include "cli_filter/builtin_filters.h"

namespace plugstack {

// Defined beside each plugin.
BuiltinFilterLoad loadLuaFilter(const CliFilterSettings& settings, const SlurmVersion& version, Command command);
std::unique_ptr<CliFilter> makeSyslogFilter(int ref);
std::unique_ptr<CliFilter> makeUserDefaultsFilter(const std::string& file, const std::string& clusterName,
                                                  Command command);
std::string userDefaultsFile(const std::string& overridePath);

bool isBuiltinFilter(const std::string& name) {
  return name == "lua" || name == "syslog" || name == "user_defaults";
}

BuiltinFilterLoad loadBuiltinFilter(const std::string& name, const CliFilterSettings& settings,
                                    const SlurmVersion& version, Command command, int ref) {
  if (name == "lua") return loadLuaFilter(settings, version, command);
  BuiltinFilterLoad out;
  if (name == "syslog") {
    out.path = "plugstack:cli_filter/syslog";
    out.filter = makeSyslogFilter(ref);
  } else {
    out.path = userDefaultsFile(settings.userDefaults);
    out.filter = makeUserDefaultsFilter(out.path, settings.clusterName, command);
  }
  return out;
}

}  // namespace plugstack
