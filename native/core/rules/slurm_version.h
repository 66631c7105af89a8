// The Slurm release a host emulates.
//
// Plugins are checked against it at load time (plugin_loader.cc), the
// S_SLURM_VERSION* items report it, and behaviour that changed between
// releases (which return codes count as failure, how often remote option
// callbacks fire, ...) is data: rules/releases.h (generated from
// rules/releases.json) has one table per concern, indexed by releaseIndex().
#pragma once

#include <cstdint>
#include <string>

namespace plugstack {

struct SlurmVersion {
  unsigned major;
  unsigned minor;
  unsigned micro;

  // The SLURM_VERSION_NUMBER encoding: one byte each, major highest.
  uint32_t number() const { return (major << 16) | (minor << 8) | micro; }
  // "24.11.5" / "22.05.8": the minor keeps its leading zero, as Slurm's
  // configure-generated strings do.
  std::string text() const;
  std::string majorText() const;
  std::string minorText() const;
  std::string microText() const;

};

// The release's row in the tables of rules/releases.h (0 for the newest).
int releaseIndex(const SlurmVersion& version);

// The releases plugstack emulates (rules/releases.json): "24.11" (the
// default, 24.11.5) and "22.05" (22.05.8). A full "M.m.u" picks that micro
// release. Returns false when unsupported.
bool parseSlurmVersion(const std::string& text, SlurmVersion* out);

// "24.11.5" style rendering of any version number, as Slurm prints it in
// "Incompatible Slurm plugin ... version (24.11.5)".
std::string formatVersionNumber(uint32_t number);

}  // namespace plugstack
