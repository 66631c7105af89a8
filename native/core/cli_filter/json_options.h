// The JSON the lua and syslog plugins build (Slurm's cli_filter_common.c):
// the set options, and the environment.
#pragma once

#include <string>

#include "cli_filter/option_store.h"

namespace plugstack {

// cli_filter_json_set_options: one member per set option in table order
// (its getter's value, null for NULL), then "spank:<option>" for every
// SPANK option given (its argument, or "set"), then "argv": the command's
// arguments after its options.
std::string jsonSetOptions(const OptionStore& store);

// cli_filter_json_env: the process environment, without names starting
// with SLURM_, SPANK_ or _SLURM_SPANK_OPTION_.
std::string jsonEnvironment();

// A JSON string as Slurm's serializer (json-c) writes it: '/' escaped too.
std::string jsonCString(const std::string& text);

}  // namespace plugstack
