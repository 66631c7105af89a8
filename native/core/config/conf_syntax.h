// The line syntax of Slurm's configuration parser (parse_config.c), shared
// by the slurm.conf reader and the s_p_* tables plugins use (mpi.conf): how
// physical lines become logical ones (comments, continuations, escapes)
// and how one key=value is found at the start of what is left of a line.
#pragma once

#include <string>

namespace plugstack::conf {

bool isSpace(char c);

// A '#' preceded by an even number of backslashes ends the line.
void stripComment(std::string& line);

// An odd run of backslashes at the end (trailing spaces allowed before any
// backslash is met) continues the line; the last backslash is dropped.
// Returns whether the line continues.
bool stripContinuation(std::string& line);

// "\x" is "x" ("\\" is "\").
void stripEscapes(std::string& line);

struct KeyValue {
  std::string key;
  std::string value;
  char op = 0;     // '+', '-', '*', '/' before '=', else 0
  size_t end = 0;  // just past the value (the space after it is left)
};

// The key=value pattern of Slurm's parser, from `from` on: spaces, a key of
// letters, digits, '_' and '.', an optional operator, '=', a value quoted
// with '"' (spaces allowed) or a run without spaces, then a space or the
// end. A quote that is not closed, or closed with something glued after
// it, is part of an unquoted value, as the pattern's second branch takes it.
bool nextKeyValue(const std::string& line, size_t from, KeyValue* out);

// Nothing but spaces from `from` on.
bool blank(const std::string& s, size_t from);

// The logical lines of a file's text, each with the number of its first
// physical line: comments stripped, continuations joined, escapes
// removed; empty ones left out.
struct LogicalLine {
  int line;
  std::string text;
};
template <typename F>
void forEachLogicalLine(const std::string& text, F&& f) {
  size_t pos = 0;
  int lineno = 1;
  while (pos < text.size()) {
    std::string logical;
    int first = lineno;
    for (;;) {
      size_t nl = text.find('\n', pos);
      std::string physical = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
      pos = nl == std::string::npos ? text.size() : nl + 1;
      lineno++;
      stripComment(physical);
      bool more = stripContinuation(physical);
      logical += physical;
      if (!more || pos >= text.size()) break;
    }
    stripEscapes(logical);
    if (logical.empty()) continue;
    f(LogicalLine{first, logical});
  }
}

}  // namespace plugstack::conf
