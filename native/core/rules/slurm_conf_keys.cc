#include "rules/slurm_conf_keys.h"

#include <strings.h>

#include "rules/builtin_options.h"

namespace plugstack {

namespace {

constexpr SlurmConfKey kKeys[] = {
#include "rules/slurm_conf_keys.inc"
};

bool sameName(std::string_view a, const char* b) {
  return a.size() == std::char_traits<char>::length(b) && strncasecmp(a.data(), b, a.size()) == 0;
}

}  // namespace

const SlurmConfKey* findSlurmConfKey(std::string_view scope, std::string_view name,
                                     const SlurmVersion& version) {
  const unsigned bit = releaseBit(version);
  for (const auto& k : kKeys)
    if ((k.releases & bit) && sameName(scope, k.scope) && sameName(name, k.name)) return &k;
  return nullptr;
}

}  // namespace plugstack
