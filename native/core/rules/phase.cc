#include "rules/phase.h"

namespace plugstack {

namespace {

constexpr std::array<PhaseInfo, kPhaseCount> kPhases = {{
    {Phase::Init, "slurm_spank_init", "init"},
    {Phase::JobProlog, "slurm_spank_job_prolog", "job_prolog"},
    {Phase::InitPostOpt, "slurm_spank_init_post_opt", "init_post_opt"},
    {Phase::LocalUserInit, "slurm_spank_local_user_init", "local_user_init"},
    {Phase::UserInit, "slurm_spank_user_init", "user_init"},
    {Phase::TaskInitPrivileged, "slurm_spank_task_init_privileged", "task_init_privileged"},
    {Phase::TaskInit, "slurm_spank_task_init", "task_init"},
    {Phase::TaskPostFork, "slurm_spank_task_post_fork", "task_post_fork"},
    {Phase::TaskExit, "slurm_spank_task_exit", "task_exit"},
    {Phase::JobEpilog, "slurm_spank_job_epilog", "job_epilog"},
    {Phase::SlurmdExit, "slurm_spank_slurmd_exit", "slurmd_exit"},
    {Phase::Exit, "slurm_spank_exit", "exit"},
}};

}  // namespace

const std::array<PhaseInfo, kPhaseCount>& allPhases() { return kPhases; }

const PhaseInfo& phaseInfo(Phase phase) { return kPhases[static_cast<size_t>(phase)]; }

std::optional<Phase> phaseByName(std::string_view name) {
  for (const auto& p : kPhases)
    if (name == p.name || name == p.symbol) return p.phase;
  return std::nullopt;
}

}  // namespace plugstack
