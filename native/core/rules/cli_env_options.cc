#include "rules/cli_env_options.h"

namespace plugstack {

namespace {
constexpr EnvOption kTable[] = {
#include "rules/cli_env_table.inc"
};
}  // namespace

const EnvOption* envOptionTable(size_t* count) {
  *count = sizeof kTable / sizeof kTable[0];
  return kTable;
}

}  // namespace plugstack
