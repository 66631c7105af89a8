#include "config/conf_syntax.h"

#include <cctype>
#include <cstring>

namespace plugstack::conf {

bool isSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

void stripComment(std::string& line) {
  int backslashes = 0;
  for (size_t i = 0; i < line.size(); i++) {
    if (line[i] == '#' && backslashes % 2 == 0) {
      line.resize(i);
      return;
    }
    backslashes = line[i] == '\\' ? backslashes + 1 : 0;
  }
}

bool stripContinuation(std::string& line) {
  size_t i = line.size();
  int backslashes = 0;
  while (i > 0) {
    char c = line[i - 1];
    if (c == '\\') backslashes++;
    else if (isSpace(c) && backslashes == 0) {
    } else break;
    i--;
  }
  if (backslashes % 2 == 0) return false;
  line.resize(i + static_cast<size_t>(backslashes) - 1);
  return true;
}

void stripEscapes(std::string& line) {
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size(); i++) {
    if (line[i] == '\\') i++;
    if (i < line.size()) out += line[i];
  }
  line.swap(out);
}

bool nextKeyValue(const std::string& line, size_t from, KeyValue* out) {
  size_t i = from;
  while (i < line.size() && isSpace(line[i])) i++;
  size_t keyStart = i;
  while (i < line.size() && (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_' || line[i] == '.')) i++;
  if (i == keyStart) return false;
  out->key = line.substr(keyStart, i - keyStart);
  while (i < line.size() && isSpace(line[i])) i++;
  out->op = 0;
  if (i < line.size() && line[i] != '\0' && std::strchr("-*+/", line[i])) out->op = line[i++];
  if (i >= line.size() || line[i] != '=') return false;
  i++;
  while (i < line.size() && isSpace(line[i])) i++;
  if (i < line.size() && line[i] == '"') {
    size_t close = line.find('"', i + 1);
    if (close != std::string::npos && (close + 1 == line.size() || isSpace(line[close + 1]))) {
      out->value = line.substr(i + 1, close - i - 1);
      out->end = close + 1;
      return true;
    }
  }
  size_t start = i;
  while (i < line.size() && !isSpace(line[i])) i++;
  if (i == start) return false;
  out->value = line.substr(start, i - start);
  out->end = i;
  return true;
}

bool blank(const std::string& s, size_t from) {
  for (size_t i = from; i < s.size(); i++)
    if (!isSpace(s[i])) return false;
  return true;
}

}  // namespace plugstack::conf
