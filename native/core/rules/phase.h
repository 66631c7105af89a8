// The twelve SPANK callbacks, in the order Slurm looks them up.
//
// The order matters twice: it is the order of the symbol lookup (a plugin
// with none of these symbols is refused), and it is the order in which
// check reports list a plugin's callbacks.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace plugstack {

enum class Phase {
  Init,
  JobProlog,
  InitPostOpt,
  LocalUserInit,
  UserInit,
  TaskInitPrivileged,
  TaskInit,
  TaskPostFork,
  TaskExit,
  JobEpilog,
  SlurmdExit,
  Exit,
};

constexpr size_t kPhaseCount = 12;

struct PhaseInfo {
  Phase phase;
  const char* symbol;  // slurm_spank_init
  const char* name;    // init: the name Slurm's log messages use
};

const std::array<PhaseInfo, kPhaseCount>& allPhases();
const PhaseInfo& phaseInfo(Phase phase);
std::optional<Phase> phaseByName(std::string_view name);

}  // namespace plugstack
