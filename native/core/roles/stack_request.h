// Reading the stack settings shared by every role's request:
// { conf, pluginDirs: [...], slurmVersion: "24.11", context: "local" }.
#pragma once

#include <string>

#include "common/json.h"
#include "spank/stack.h"

namespace plugstack {

// False with *error set when a field is missing or invalid.
bool readStackSettings(const json::Value& request, StackSettings* out, std::string* error);

// The stack part of a role's request, whose context must be `expected`:
// false with *error set (naming `role`) when it is not acceptable.
bool readRoleStack(const json::Value& request, Context expected, const char* role,
                   StackSettings* out, std::string* error);

// Reads the request's plugstack.conf (Slurm re-reads it for every
// process) and reports it as a "conf" event.
ParsedConf readRequestConf(const json::Value& request);

}  // namespace plugstack
