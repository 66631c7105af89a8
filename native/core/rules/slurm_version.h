// The Slurm release a host emulates.
//
// Plugins are checked against it at load time (plugin_loader.cc), the
// S_SLURM_VERSION* items report it, and behaviour that changed between
// releases (which return codes count as failure, how often remote option
// callbacks fire, ...) is looked up here rather than tested inline.
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

  // Release line, for behaviour switches: 2211 for 22.11, 2405 for 24.05.
  unsigned line() const { return major * 100 + minor; }
};

// The releases plugstack emulates: "24.11" (the default, 24.11.5) and
// "22.05" (22.05.8, what Debian ships and the conformance oracle runs).
// A full "M.m.u" picks that micro release. Returns false when unsupported.
bool parseSlurmVersion(const std::string& text, SlurmVersion* out);

// "24.11.5" style rendering of any version number, as Slurm prints it in
// "Incompatible Slurm plugin ... version (24.11.5)".
std::string formatVersionNumber(uint32_t number);

}  // namespace plugstack
