#include "libslurm/api_table.h"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace plugstack::libslurm {

namespace {

constexpr Failure kV = Failure::Void;
constexpr Failure kP = Failure::Null;
constexpr Failure kI = Failure::MinusOne;
constexpr Failure kU = Failure::Zero;
constexpr const char* kHeaders[] = {"slurm.h", "slurmdb.h", "slurm_errno.h"};

// Sorted by name (the generator writes it so).
constexpr ApiFunction kTable[] = {
#define LIBSLURM_FUNCTION(name, failure, releases, implemented, header) \
  {#name, k##failure, releases, implemented != 0, kHeaders[header]},
#include "libslurm/api_table.inc"
#undef LIBSLURM_FUNCTION
};

}  // namespace

const ApiFunction* findApiFunction(std::string_view name) {
  auto it = std::lower_bound(std::begin(kTable), std::end(kTable), name,
                             [](const ApiFunction& f, std::string_view n) { return f.name < n; });
  if (it == std::end(kTable) || it->name != name) return nullptr;
  return &*it;
}

}  // namespace plugstack::libslurm
