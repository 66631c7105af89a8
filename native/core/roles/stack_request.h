// Reading the stack settings shared by every role's request:
// { conf, pluginDirs: [...], slurmVersion: "24.11", context: "local" }.
#pragma once

#include <string>

#include "common/json.h"
#include "spank/stack.h"

namespace plugstack {

// False with *error set when a field is missing or invalid.
bool readStackSettings(const json::Value& request, StackSettings* out, std::string* error);

}  // namespace plugstack
