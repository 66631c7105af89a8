// Comma-separated lists as Slurm reads them with strtok(3) on ",": the
// items in order, an empty one (",," or a leading or trailing comma)
// skipped.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace plugstack {

inline std::vector<std::string> commaItems(std::string_view list) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    if (comma > start) items.emplace_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

}  // namespace plugstack
