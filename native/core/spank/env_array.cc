#include "spank/env_array.h"

namespace plugstack {

EnvArray::EnvArray() { rebuildPointers(); }

EnvArray::EnvArray(const std::vector<std::string>& entries) {
  for (const auto& e : entries) {
    std::string_view name = nameOf(e);
    if (name.empty() || index_.count(std::string(name))) continue;
    index_.emplace(std::string(name), entries_.size());
    entries_.push_back(e);
  }
  rebuildPointers();
}

EnvArray::EnvArray(const EnvArray& other) : entries_(other.entries_), index_(other.index_) {
  rebuildPointers();
}

EnvArray& EnvArray::operator=(const EnvArray& other) {
  if (this != &other) {
    entries_ = other.entries_;
    index_ = other.index_;
    rebuildPointers();
  }
  return *this;
}

std::string_view EnvArray::nameOf(const std::string& entry) {
  size_t eq = entry.find('=');
  return std::string_view(entry).substr(0, eq == std::string::npos ? 0 : eq);
}

void EnvArray::rebuildPointers() {
  pointers_.clear();
  pointers_.reserve(entries_.size() + 1);
  for (auto& e : entries_) pointers_.push_back(e.data());
  pointers_.push_back(nullptr);
}

const char* EnvArray::get(std::string_view name) const {
  auto it = index_.find(std::string(name));
  if (it == index_.end()) return nullptr;
  return entries_[it->second].c_str() + name.size() + 1;
}

bool EnvArray::set(std::string_view name, std::string_view value) {
  if (name.empty() || name.find('=') != std::string_view::npos) return false;
  std::string entry;
  entry.reserve(name.size() + 1 + value.size());
  entry.append(name).append("=").append(value);
  auto it = index_.find(std::string(name));
  if (it != index_.end()) {
    entries_[it->second] = std::move(entry);
    pointers_[it->second] = entries_[it->second].data();
    return true;
  }
  index_.emplace(std::string(name), entries_.size());
  entries_.push_back(std::move(entry));
  rebuildPointers();
  return true;
}

bool EnvArray::unset(std::string_view name) {
  auto it = index_.find(std::string(name));
  if (it == index_.end()) return false;
  size_t pos = it->second;
  entries_.erase(entries_.begin() + static_cast<long>(pos));
  index_.erase(it);
  for (auto& [k, i] : index_)
    if (i > pos) i--;
  rebuildPointers();
  return true;
}

std::string EnvArray::adoptRawChanges() {
  if (intact()) return {};
  std::string what;
  std::vector<std::string> seen;
  size_t slots = pointers_.size();
  size_t i = 0;
  for (; i < slots && pointers_[i]; i++) {
    const char* p = pointers_[i];
    if (i < entries_.size() && p == entries_[i].data()) {
      seen.push_back(entries_[i]);
      continue;
    }
    std::string entry(p);
    if (what.empty()) what = "entry " + std::to_string(i) + " was replaced in place";
    if (entry.find('=') == std::string::npos) {
      what = "entry " + std::to_string(i) + " (\"" + entry.substr(0, 64) + "\") has no '='";
      continue;
    }
    seen.push_back(std::move(entry));
  }
  if (i == slots) what = "the NULL terminator was overwritten: the array's end is past its allocation";
  else if (i < entries_.size()) what += std::string(what.empty() ? "" : "; ") + "a NULL written at entry " + std::to_string(i) + " cuts the array short";
  *this = EnvArray(seen);
  return what;
}

bool EnvArray::intact() const {
  if (pointers_.size() != entries_.size() + 1 || pointers_.back() != nullptr) return false;
  for (size_t i = 0; i < entries_.size(); i++)
    if (pointers_[i] != entries_[i].data()) return false;
  return true;
}

}  // namespace plugstack
