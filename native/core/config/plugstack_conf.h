// plugstack.conf parsing, with Slurm's rules.
//
// The result is the flat, ordered list of what Slurm would process: plugin
// lines (with includes expanded depth-first in glob order) and the
// diagnostics met on the way, each at its place in the sequence. The loader
// walks this list and, like Slurm, stops at the first required plugin that
// fails; parsing ahead does not change what Slurm sees because include
// expansion never depends on what a plugin does.
#pragma once

#include <string>
#include <vector>

#include "common/diagnostic.h"

namespace plugstack {

struct PluginLine {
  std::string file;  // the config file holding the line
  int line = 0;      // its line number there (Slurm's count: one per fgets)
  bool required = false;
  std::string path;  // as written: absolute, or relative to PluginDir
  std::vector<std::string> args;
};

struct ConfItem {
  enum class Kind { Plugin, Diagnostic } kind;
  PluginLine plugin;      // when kind == Plugin
  Diagnostic diagnostic;  // when kind == Diagnostic
};

struct ParsedConf {
  std::vector<ConfItem> items;
  // False when Slurm would fail to create the stack at all (an unreadable
  // file, an include loop). Items up to the failure are still listed.
  bool ok = true;
  // The top-level file did not exist: Slurm treats that as an empty stack.
  bool missing = false;
};

ParsedConf parsePlugstackConf(const std::string& path);

}  // namespace plugstack
