// The stack's option cache: every option a plugin offered, in the order it
// was offered, with the state Slurm keeps for it.
//
// Strings are copied at registration, because real plugins register options
// built on the heap and free them afterwards. Entries live in a deque so
// that the pointers handed to plugins (spank_option_getopt's optarg) stay
// valid while later entries are added.
#pragma once

#include <deque>
#include <optional>
#include <string>

#include <slurm/spank.h>

namespace plugstack {

struct Plugin;

enum class OptionSource {
  StaticTable,  // the plugin's spank_options array, registered at load
  Registered,   // spank_option_register() from slurm_spank_init
  Getopt,       // created by spank_option_getopt() for an uncached option
};

const char* optionSourceName(OptionSource s);

struct CachedOption {
  std::string name;
  std::optional<std::string> arginfo;
  std::optional<std::string> usage;
  int hasArg = 0;
  int val = 0;
  spank_opt_cb_f cb = nullptr;

  Plugin* plugin = nullptr;
  OptionSource source = OptionSource::Registered;
  int optval = 0;  // the getopt_long value Slurm gives it: 0xfff upwards
  bool disabled = false;
  std::string disabledReason;
  bool found = false;  // given by the user (or found in the env by getopt)
  bool set = false;
  bool setByEnv = false;
  std::optional<std::string> optarg;

  const char* optargPointer() const { return optarg ? optarg->c_str() : nullptr; }
};

class OptionCache {
 public:
  // Slurm's registration: a name already cached (from any plugin, the same
  // one included) still gets an entry, but a disabled one; a name longer
  // than SPANK_OPTION_MAXLEN is refused with ESPANK_NOSPACE. Logs what
  // Slurm logs and reports the outcome as an "option" event.
  spank_err_t add(Plugin* plugin, const struct spank_option* opt, OptionSource source);

  // A cache entry for spank_option_getopt's lookup of an option that was
  // never registered. Uses up an optval like any other entry.
  CachedOption& addUnregistered(Plugin* plugin, const struct spank_option* opt);

  CachedOption* findByName(const std::string& name);
  CachedOption* find(const std::string& pluginName, const std::string& name);
  CachedOption* findByOptval(int optval);

  std::deque<CachedOption>& entries() { return entries_; }
  const std::deque<CachedOption>& entries() const { return entries_; }

 private:
  CachedOption copyOf(Plugin* plugin, const struct spank_option* opt, OptionSource source);

  std::deque<CachedOption> entries_;
  int nextOptval_ = 0xfff;
};

// "_SLURM_SPANK_OPTION_<plugin>_<option>", every character that is not a
// letter or digit turned into '_', cut to Slurm's 1023-byte buffer. Remote
// steps receive options under this name; srun reads them from the user's
// environment with a "SLURM_SPANK_" prefix, job scripts with "SPANK_".
std::string optionEnvName(const char* pluginName, const std::string& optionName);

}  // namespace plugstack
