#include "rules/context.h"

namespace plugstack {

namespace {

struct ContextName {
  Context context;
  const char* name;
};

constexpr ContextName kNames[] = {
    {Context::Local, "local"},         {Context::Remote, "remote"},
    {Context::Allocator, "allocator"}, {Context::Slurmd, "slurmd"},
    {Context::JobScript, "job_script"},
};

}  // namespace

const char* contextName(Context c) {
  for (const auto& n : kNames)
    if (n.context == c) return n.name;
  return "error";
}

std::optional<Context> contextByName(std::string_view name) {
  for (const auto& n : kNames)
    if (name == n.name) return n.context;
  return std::nullopt;
}

}  // namespace plugstack
