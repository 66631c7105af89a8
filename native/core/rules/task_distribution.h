// -m/--distribution as Slurm's verify_dist_type reads it (src/common/
// proc_args.c, the same in 22.05 and 24.11): the task distribution value
// (task_dist_states_t), its plane size, and the text set_distribution
// writes into SLURM_DISTRIBUTION. The option's setter, the cli_filter
// getter and the step's layout (lib/step/distribution.ts, through the
// addon) all read it from here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace plugstack {

// task_dist_states_t values that plugstack uses by name (slurm.h).
constexpr uint32_t kDistCyclic = 0x0001;
constexpr uint32_t kDistBlock = 0x0002;
constexpr uint32_t kDistArbitrary = 0x0003;
constexpr uint32_t kDistPlane = 0x0004;
constexpr uint32_t kDistUnknown = 0x2000;
constexpr uint32_t kDistStateBase = 0x00FFFF;
constexpr uint32_t kDistPackNodes = 0x800000;
constexpr uint32_t kDistNoPackNodes = 0x400000;

struct TaskDistribution {
  uint32_t value = kDistUnknown;  // base (node:socket:core levels) | pack flags
  uint32_t planeSize = 0;         // plane only
  // set_distribution's text ("block:cyclic", "cyclic,nopack", "pack",
  // "plane"); empty when it writes none.
  std::string text;
  // The option's getter: the text, "=N" after a plane.
  std::string shown() const;
};

// Why a value is refused: the lines the setter logs, in order (a plane
// without a size logs its own line first).
struct TaskDistributionError {
  std::optional<std::string> planeLine;
};

// The distribution a value asks for. planeSizeEnv is SLURM_DIST_PLANESIZE of
// the command's environment (a plane without "=N" takes its size from it).
std::optional<TaskDistribution> parseTaskDistribution(const char* arg, const char* planeSizeEnv,
                                                      TaskDistributionError* why = nullptr);

// Whether a value (as -m takes it, or its getter prints it) lays tasks out
// from a host list: Slurm's (dist & SLURM_DIST_STATE_BASE) == ARBITRARY.
bool isArbitraryDistribution(const std::string& value);

}  // namespace plugstack
