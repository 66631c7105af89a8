// Every function of Slurm's public client API (slurm.h, slurmdb.h,
// slurm_errno.h of each emulated release), generated from Slurm's headers
// by scripts/gen-libslurm-api.py into api_table.inc: what it returns on
// failure, which releases declare it, and whether plugstack answers it.
#pragma once

#include <cstddef>
#include <string_view>

namespace plugstack::libslurm {

// What a function that plugstack does not emulate returns.
enum class Failure { Void, Null, MinusOne, Zero };

struct ApiFunction {
  const char* name;
  Failure failure;
  unsigned releases;  // releaseBit() of each release whose headers declare it
  bool implemented;
  const char* header;  // "slurm.h", "slurmdb.h" or "slurm_errno.h"
};

// nullptr for a name no public header declares.
const ApiFunction* findApiFunction(std::string_view name);

}  // namespace plugstack::libslurm
