#include "spank/option_cache.h"

#include "api/spank_api_internal.h"

#include <cctype>
#include <cstring>

#include "common/events.h"
#include "spank/plugin.h"
#include "common/slurm_log.h"
#include "protocol/messages.h"

namespace plugstack {

namespace {

constexpr const char kOptionEnvPrefix[] = "_SLURM_SPANK_OPTION_";
// Slurm builds the name in a char[1024].
constexpr size_t kEnvNameBuffer = 1024;

char canonicalChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
}

}  // namespace

const char* optionSourceName(OptionSource s) {
  switch (s) {
    case OptionSource::StaticTable: return "static";
    case OptionSource::Registered: return "registered";
    case OptionSource::Getopt: return "getopt";
  }
  return "registered";
}

std::string optionEnvName(const char* pluginName, const std::string& optionName) {
  std::string out = kOptionEnvPrefix;
  const size_t limit = kEnvNameBuffer - 1;
  for (const char* p = pluginName ? pluginName : ""; *p && out.size() < limit; p++)
    out += canonicalChar(*p);
  // Slurm writes the separating '_' even when the buffer is already full.
  out += '_';
  for (char c : optionName) {
    if (out.size() >= limit) break;
    out += canonicalChar(c);
  }
  return out;
}

CachedOption OptionCache::copyOf(Plugin* plugin, const struct spank_option* opt,
                                 OptionSource source) {
  CachedOption c;
  c.name = opt->name;
  if (opt->arginfo) c.arginfo = opt->arginfo;
  if (opt->usage) c.usage = opt->usage;
  c.hasArg = opt->has_arg;
  c.val = opt->val;
  c.cb = opt->cb;
  c.plugin = plugin;
  c.source = source;
  c.optval = nextOptval_++;
  return c;
}

spank_err_t OptionCache::add(Plugin* plugin, const struct spank_option* opt,
                             OptionSource source) {
  std::string name = opt->name;
  CachedOption* earlier = findByName(name);
  if (earlier) {
    slurmLog(LogLevel::Info, "spank: option \"" + name + "\" provided by both " +
                                 plugin->basename() + " and " + earlier->plugin->basename());
  }
  if (name.size() > SPANK_OPTION_MAXLEN) {
    slurmLog(LogLevel::Error, "spank: option \"" + name + "\" provided by " +
                                  std::string(plugin->name ? plugin->name : "") +
                                  " too long. Ignoring.");
    emitEvent({{"t", msg::kOption},
               {"ref", plugin->ref},
               {"name", name},
               {"source", optionSourceName(source)},
               {"rejected", true},
               {"rc", static_cast<int>(ESPANK_NOSPACE)},
               {"reason", "name is " + std::to_string(name.size()) + " bytes, longer than " +
                              std::to_string(SPANK_OPTION_MAXLEN)}});
    return ESPANK_NOSPACE;
  }

  CachedOption entry = copyOf(plugin, opt, source);
  if (earlier) {
    // Still cached (the remote side may load plugins in another order), but
    // hidden from getopt and --help, and its callback never runs.
    entry.disabled = true;
    entry.disabledReason = "duplicate of the option of plugin " + earlier->plugin->basename();
  }
  json::Object ev{{"t", msg::kOption},
                  {"ref", plugin->ref},
                  {"name", entry.name},
                  {"arginfo", entry.arginfo ? json::Value(*entry.arginfo) : json::Value()},
                  {"usage", entry.usage ? json::Value(*entry.usage) : json::Value()},
                  {"hasArg", entry.hasArg},
                  {"val", entry.val},
                  {"hasCallback", entry.cb != nullptr},
                  {"optval", entry.optval},
                  {"source", optionSourceName(source)},
                  {"disabled", entry.disabled}};
  if (earlier) {
    ev.emplace_back("reason", entry.disabledReason);
    ev.emplace_back("duplicateOf", earlier->plugin->ref);
  }
  emitEvent(std::move(ev));
  entries_.push_back(std::move(entry));
  return api::kSuccess;
}

CachedOption& OptionCache::addUnregistered(Plugin* plugin, const struct spank_option* opt) {
  entries_.push_back(copyOf(plugin, opt, OptionSource::Getopt));
  return entries_.back();
}

CachedOption* OptionCache::findByName(const std::string& name) {
  for (auto& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

CachedOption* OptionCache::find(const std::string& pluginName, const std::string& name) {
  for (auto& e : entries_)
    if (e.name == name && e.plugin && e.plugin->name && pluginName == e.plugin->name) return &e;
  return nullptr;
}

CachedOption* OptionCache::findByOptval(int optval) {
  for (auto& e : entries_)
    if (e.optval == optval) return &e;
  return nullptr;
}

}  // namespace plugstack
