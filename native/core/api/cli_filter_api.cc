// The option calls cli_filter plugins make (plugstack/cli_filter.h), with
// Slurm's semantics: unknown names are NULL, false or SLURM_ERROR; a NULL
// options pointer is refused the same way, where Slurm would crash.
#include <plugstack/cli_filter.h>

#include <cstring>
#include <string>

#include "api/spank_api_internal.h"
#include "api/xmalloc_internal.h"
#include "cli_filter/option_store.h"
#include "common/visibility.h"

using plugstack::BuiltinOption;

namespace {

const BuiltinOption* lookup(slurm_opt_t* opt, const char* name) {
  return opt && name ? opt->store.find(name) : nullptr;
}

char* copy(const plugstack::OptionValue& v) { return v ? plugstack::api::xstrdup(v->c_str()) : nullptr; }

}  // namespace

extern "C" {

PLUGSTACK_EXPORT char* slurm_option_get(slurm_opt_t* opt, const char* name) {
  const BuiltinOption* o = lookup(opt, name);
  if (!o) return nullptr;
  if (std::strcmp(o->field, "argv") == 0 && opt->store.argvCrashes())
    plugstack::api::warnPlugin("OPTION_GET_CRASHES",
                               std::string("slurm_option_get(opt, \"argv\") in ") +
                                   plugstack::commandName(opt->store.command()) +
                                   " crashes Slurm 22.05's command (its getter reads sbatch's options, NULL "
                                   "here); plugstack returns NULL");
  return copy(opt->store.get(*o));
}

PLUGSTACK_EXPORT bool slurm_option_isset(slurm_opt_t* opt, const char* name) {
  const BuiltinOption* o = lookup(opt, name);
  return o && opt->store.isSet(*o);
}

PLUGSTACK_EXPORT int slurm_option_set(slurm_opt_t* opt, const char* name, const char* value, bool early) {
  const BuiltinOption* o = lookup(opt, name);
  return o ? opt->store.set(*o, value, early) : SLURM_ERROR;
}

PLUGSTACK_EXPORT bool slurm_option_reset(slurm_opt_t* opt, const char* name) {
  const BuiltinOption* o = lookup(opt, name);
  if (!o) return false;
  opt->store.reset(*o);
  return true;
}

PLUGSTACK_EXPORT bool slurm_option_get_next_set(slurm_opt_t* opt, char** name, char** value, size_t* state) {
  if (!opt || !name || !value || !state) return false;
  const BuiltinOption* o = opt->store.nextSet(state);
  if (!o) return false;
  *name = plugstack::api::xstrdup(o->name);
  *value = copy(opt->store.get(*o));
  return true;
}

}  // extern "C"
