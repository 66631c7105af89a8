#include "roles/stack_request.h"

#include "common/events.h"
#include "protocol/messages.h"

namespace plugstack {

bool readStackSettings(const json::Value& request, StackSettings* out, std::string* error) {
  const json::Value& context = request["context"];
  auto ctx = context.isString() ? contextByName(context.asString()) : std::nullopt;
  if (!ctx) {
    *error = "request.context must be one of local, remote, allocator, slurmd, job_script";
    return false;
  }
  out->context = *ctx;

  const json::Value& version = request["slurmVersion"];
  if (!version.isNull()) {
    if (!version.isString() || !parseSlurmVersion(version.asString(), &out->version)) {
      *error = "request.slurmVersion is not a supported Slurm release";
      return false;
    }
  }

  out->pluginDirs.clear();
  for (const auto& dir : request["pluginDirs"].asArray()) {
    if (!dir.isString()) {
      *error = "request.pluginDirs must be strings";
      return false;
    }
    out->pluginDirs.push_back(dir.asString());
  }
  return true;
}

bool readRoleStack(const json::Value& request, Context expected, const char* role,
                   StackSettings* out, std::string* error) {
  if (!request["conf"].isString()) {
    *error = "request.conf must be a path";
    return false;
  }
  if (!readStackSettings(request, out, error)) return false;
  if (out->context != expected) {
    *error = std::string("the ") + role + " role runs the " + contextName(expected) + " context";
    return false;
  }
  return true;
}

ParsedConf readRequestConf(const json::Value& request) {
  const std::string& path = request["conf"].asString();
  ParsedConf parsed = parsePlugstackConf(path);
  emitEvent({{"t", msg::kConf}, {"path", path}, {"missing", parsed.missing}});
  return parsed;
}

}  // namespace plugstack
