#include "cli_filter/option_store.h"

#include <cstdlib>
#include <cstring>
#include <strings.h>

#include "common/slurm_log.h"
#include "rules/releases.h"

namespace plugstack {

namespace {
constexpr int kSuccess = 0;
constexpr int kError = -1;
}  // namespace

OptionStore::OptionStore(Command command, const SlurmVersion& version) : command_(command), version_(version) {
  forEachReleaseOption(version_, [&](const BuiltinOption& o) { options_.push_back(&o); });
  state_.resize(options_.size());
}

size_t OptionStore::index(const BuiltinOption& option) const {
  for (size_t i = 0; i < options_.size(); i++)
    if (options_[i] == &option) return i;
  return options_.size();
}

OptionValue OptionStore::get(const BuiltinOption& option) const {
  // argv's getter joins the command's arguments, each after a space.
  if (std::strcmp(option.field, "argv") == 0) {
    if (argvCrashes()) return std::nullopt;
    std::string joined;
    for (const auto& a : argv) joined += " " + a;
    return joined.empty() ? std::nullopt : OptionValue(joined);
  }
  auto it = values_.find(option.field);
  if (it != values_.end()) return it->second;
  return unsetOptionValue(option, command_, version_);
}

bool OptionStore::argvCrashes() const { return releases::cliFilter(version_).argvGetterReadsSbatch && command_ != Command::Sbatch; }

bool OptionStore::isSet(const BuiltinOption& option) const {
  size_t i = index(option);
  return i < state_.size() && state_[i].set;
}

bool OptionStore::setByEnvironment(const BuiltinOption& option) const {
  size_t i = index(option);
  return i < state_.size() && state_[i].set && state_[i].byEnvironment;
}

bool OptionStore::setAfter(const BuiltinOption& later, const BuiltinOption& earlier) const {
  size_t a = index(later), b = index(earlier);
  if (a >= state_.size() || !state_[a].set) return false;
  return b >= state_.size() || !state_[b].set || state_[a].serial > state_[b].serial;
}

bool OptionStore::apply(const BuiltinOption& option, const char* value, bool quiet) {
  OptionSetOutcome out = setOptionValue(option, command_, version_, value, get(option), site);
  if (out.error && !quiet) {
    logRefusal(*out.error);
    if (out.error->status && onExit) onExit(out.error->status);
  }
  if (!out.ok) return false;
  values_[option.field] = out.shown;
  if (const char* cleared = fieldClearedBySetter(option, command_)) values_.erase(cleared);
  return true;
}

int OptionStore::set(const BuiltinOption& option, const char* value, bool early) {
  // An option of the early pass was taken in that pass; later sets of it
  // are ignored, successfully.
  if ((option.earlyFor & commandBit(command_)) && !early) return kSuccess;
  if (!apply(option, value)) return kError;
  size_t i = index(option);
  if (i < state_.size()) {
    state_[i].set = true;
    state_[i].serial = ++serial_;
  }
  if (onChange) onChange(option, value, false);
  return kSuccess;
}

void OptionStore::reset(const BuiltinOption& option) {
  values_.erase(option.field);
  size_t i = index(option);
  if (i < state_.size()) state_[i].set = false;
  if (onChange) onChange(option, nullptr, true);
}

const BuiltinOption* OptionStore::nextSet(size_t* cursor) const {
  for (size_t i = *cursor; i < options_.size(); i++)
    if (state_[i].set) {
      *cursor = i + 1;
      return options_[i];
    }
  *cursor = options_.size();
  return nullptr;
}

void OptionStore::given(const BuiltinOption& option, const char* value, bool byEnvironment, bool quiet) {
  // The command's own row (srun's --wait, not sbatch's), when the release has it.
  const BuiltinOption* own = index(option) < options_.size() ? &option : find(option.name);
  if (!own) return;
  if (!apply(*own, value, quiet)) return;
  size_t i = index(*own);
  if (i < state_.size()) state_[i] = {true, byEnvironment, ++serial_};
}

bool OptionStore::assign(const BuiltinOption& option, const char* value) {
  const BuiltinOption* own = index(option) < options_.size() ? &option : find(option.name);
  return own && apply(*own, value, /*quiet=*/true);
}

std::optional<BuiltinValueError> OptionStore::take(const BuiltinOption& option, const char* value, bool byEnvironment) {
  const BuiltinOption* own = index(option) < options_.size() ? &option : find(option.name);
  if (!own) return std::nullopt;
  if (byEnvironment && value) {
    // slurm_process_option's reading of a variable (an empty optional value
    // came as none: processedOptionArg): a flag is set by "", "yes" or a
    // non-zero number, and anything else resets it.
    if (own->hasArg == 0) {
      char* end = nullptr;
      long n = std::strtol(value, &end, 10);
      if (!(!*value || !strcasecmp(value, "yes") || (n && *end == '\0'))) {
        values_.erase(own->field);
        size_t i = index(*own);
        if (i < state_.size()) state_[i] = {};
        return std::nullopt;
      }
    }
  }
  OptionSetOutcome out = setOptionValue(*own, command_, version_, value, get(*own), site);
  if (out.error) return out.error;
  if (!out.ok) return std::nullopt;
  values_[own->field] = out.shown;
  if (const char* cleared = fieldClearedBySetter(*own, command_)) values_.erase(cleared);
  size_t i = index(*own);
  if (i < state_.size()) state_[i] = {true, byEnvironment, ++serial_};
  return std::nullopt;
}

void OptionStore::startPass() {
  for (size_t i = 0; i < options_.size(); i++) {
    if (!options_[i]->resetEachPass) continue;
    bool wasSet = state_[i].set || values_.count(options_[i]->field);
    values_.erase(options_[i]->field);
    state_[i] = {};
    if (wasSet && onChange) onChange(*options_[i], nullptr, true);
  }
}

std::vector<std::pair<std::string, OptionValue>> OptionStore::setOptions() const {
  std::vector<std::pair<std::string, OptionValue>> out;
  for (size_t i = 0; i < options_.size(); i++)
    if (state_[i].set) out.emplace_back(options_[i]->name, get(*options_[i]));
  return out;
}

void logRefusal(const BuiltinValueError& e) {
  if (!e.before.empty()) slurmLog(LogLevel::Error, e.before);
  slurmLog(LogLevel::Error, e.message);
}

}  // namespace plugstack
