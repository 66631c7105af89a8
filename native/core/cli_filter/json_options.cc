#include "cli_filter/json_options.h"

#include <cstdio>
#include <cstring>

#include "spank/stack.h"

extern char** environ;

namespace plugstack {

std::string jsonCString(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '/': out += "\\/"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string jsonSetOptions(const OptionStore& store) {
  std::string out = "{";
  auto member = [&](const std::string& name, const std::string& value) {
    if (out.size() > 1) out += ",";
    out += jsonCString(name) + ":" + value;
  };
  for (const auto& [name, value] : store.setOptions()) member(name, value ? jsonCString(*value) : "null");
  if (store.spank) {
    for (const auto& opt : store.spank->options().entries()) {
      if (!opt.set) continue;
      member("spank:" + opt.name, jsonCString(opt.optarg ? *opt.optarg : "set"));
    }
  }
  std::string argv = "[";
  for (size_t i = 0; i < store.argv.size(); i++) argv += (i ? "," : "") + jsonCString(store.argv[i]);
  member("argv", argv + "]");
  return out + "}";
}

std::string jsonEnvironment() {
  std::string out = "{";
  for (char** e = environ; e && *e; e++) {
    const char* entry = *e;
    if (!std::strncmp(entry, "SLURM_", 6) || !std::strncmp(entry, "SPANK_", 6) ||
        !std::strncmp(entry, "_SLURM_SPANK_OPTION_", 20))
      continue;
    const char* eq = std::strchr(entry, '=');
    if (!eq) continue;
    if (out.size() > 1) out += ",";
    out += jsonCString(std::string(entry, static_cast<size_t>(eq - entry))) + ":" + jsonCString(eq + 1);
  }
  return out + "}";
}

}  // namespace plugstack
