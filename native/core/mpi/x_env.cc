#include "mpi/x_env.h"

#include <cstdint>
#include <cstring>
#include <map>

#include "api/xmalloc_internal.h"

extern "C" {
void slurm_xfree(void** item);
void env_array_free(char** env);
}

namespace plugstack {

namespace {

constexpr size_t kMagic = 0x42;

// The two words xmalloc keeps in front of a block: magic, size.
bool xmallocBlock(const void* p, size_t* size) {
  if (!p || reinterpret_cast<uintptr_t>(p) % alignof(size_t) != 0) return false;
  const size_t* base = static_cast<const size_t*>(p) - 2;
  if (base[0] != kMagic) return false;
  *size = base[1];
  return true;
}

std::map<std::string, std::string> byName(const std::vector<std::string>& entries) {
  std::map<std::string, std::string> out;
  for (const auto& e : entries) {
    size_t eq = e.find('=');
    // getenvp finds the first of a name.
    out.emplace(e.substr(0, eq), eq == std::string::npos ? "" : e.substr(eq + 1));
  }
  return out;
}

}  // namespace

XEnv::XEnv() { env_ = static_cast<char**>(api::xcalloc(1, sizeof(char*), true)); }

XEnv::XEnv(const EnvArray& env) {
  const auto& entries = env.entries();
  env_ = static_cast<char**>(api::xcalloc(entries.size() + 1, sizeof(char*), true));
  for (size_t i = 0; i < entries.size(); i++) env_[i] = api::xstrdup(entries[i].c_str());
}

XEnv::~XEnv() {
  bool fatal = true;
  check(&fatal);
  if (env_ && !fatal) env_array_free(env_);
}

std::string XEnv::check(bool* fatal) const {
  bool dummy;
  bool& stop = fatal ? *fatal : dummy;
  stop = true;
  size_t bytes = 0;
  if (!env_) return "the array is NULL";
  if (!xmallocBlock(env_, &bytes))
    return "the array is no longer an xmalloc block (replaced by memory of the plugin's own, or freed)";
  size_t slots = bytes / sizeof(char*);
  std::string noEquals;
  for (size_t i = 0; i < slots; i++) {
    if (!env_[i]) {
      stop = false;
      return noEquals;
    }
    size_t len = 0;
    if (!xmallocBlock(env_[i], &len))
      return "entry " + std::to_string(i) + " is not an xmalloc string (Slurm's env code xfrees it)";
    if (!std::memchr(env_[i], '\0', len)) return "entry " + std::to_string(i) + " is not terminated within its block";
    if (noEquals.empty() && !std::strchr(env_[i], '='))
      noEquals = "entry " + std::to_string(i) + " (\"" + std::string(env_[i]).substr(0, 64) +
                 "\") has no '=' (Slurm's env code skips it, or execs a task with it)";
  }
  return "no NULL terminator within the array's " + std::to_string(slots) + " slots";
}

std::vector<std::string> XEnv::entries() const {
  std::vector<std::string> out;
  for (char** p = env_; p && *p; p++)
    if (std::strchr(*p, '=')) out.emplace_back(*p);
  return out;
}

bool XEnv::holds(const std::vector<std::string>& entries) const {
  size_t i = 0;
  for (char** p = env_; p && *p; p++, i++)
    if (i == entries.size() || entries[i] != *p) return false;
  return i == entries.size();
}

std::vector<EnvChange> envChanges(const std::vector<std::string>& before, const std::vector<std::string>& after) {
  auto was = byName(before);
  auto now = byName(after);
  std::vector<EnvChange> out;
  for (const auto& [name, value] : now) {
    auto it = was.find(name);
    if (it == was.end() || it->second != value) out.push_back({"set", name, value});
  }
  for (const auto& [name, value] : was)
    if (!now.count(name)) out.push_back({"unset", name, ""});
  return out;
}

}  // namespace plugstack
