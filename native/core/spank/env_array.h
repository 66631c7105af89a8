// An environment as Slurm keeps it: a NULL-terminated array of "NAME=value"
// strings, with its count.
//
// The array handed to plugins (S_JOB_ENV) and to execve is always valid:
// every change rewrites the pointer array in place, and a name index makes
// lookups O(1). Strings are owned here; a plugin that keeps a pointer from
// S_JOB_ENV across a spank_setenv sees what Slurm's plugins see: the
// array may have been reallocated.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace plugstack {

class EnvArray {
 public:
  EnvArray();
  explicit EnvArray(const std::vector<std::string>& entries);
  EnvArray(const EnvArray& other);
  EnvArray& operator=(const EnvArray& other);
  // Moving keeps every string where it is, so the pointers stay good.
  EnvArray(EnvArray&& other) noexcept = default;
  EnvArray& operator=(EnvArray&& other) noexcept = default;

  // Value of name, or nullptr. Slurm's getenvp matches the first entry.
  const char* get(std::string_view name) const;
  // Sets or replaces name. Empty names and names containing '=' are refused.
  bool set(std::string_view name, std::string_view value);
  // Removes every entry called name; true if one existed.
  bool unset(std::string_view name);

  size_t size() const { return entries_.size(); }
  char** data() { return pointers_.data(); }
  char* const* data() const { return pointers_.data(); }
  const std::vector<std::string>& entries() const { return entries_; }

  // True when the NULL-terminated array a plugin was given still matches
  // our bookkeeping (same length, every pointer ours, terminator present).
  bool intact() const;
  // After plugin code that had the raw array (S_JOB_ENV): empty when it is
  // intact; otherwise what the plugin did to it, and the array now holds
  // what the plugin left, as Slurm's would (entries it wrote in place of
  // ours, up to the first NULL within the array; entries without '='
  // dropped).
  std::string adoptRawChanges();

 private:
  static std::string_view nameOf(const std::string& entry);
  void rebuildPointers();

  std::vector<std::string> entries_;
  std::vector<char*> pointers_;  // entries_[i].data() ..., nullptr
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace plugstack
