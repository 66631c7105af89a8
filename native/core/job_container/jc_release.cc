#include "job_container/jc_release.h"

#include <cstring>

namespace plugstack {

namespace {

constexpr JcSymbol k2205[] = {
    {JcHook::Create, "container_p_create"},
    {JcHook::AddCont, "container_p_add_cont"},
    {JcHook::Join, "container_p_join"},
    {JcHook::JoinExternal, "container_p_join_external"},
    {JcHook::Delete, "container_p_delete"},
    {JcHook::Restore, "container_p_restore"},
    {JcHook::Reconfig, "container_p_reconfig"},
    {JcHook::StepdCreate, "container_p_stepd_create"},
    {JcHook::StepdDelete, "container_p_stepd_delete"},
};

constexpr JcSymbol k2411[] = {
    {JcHook::Join, "container_p_join"},
    {JcHook::JoinExternal, "container_p_join_external"},
    {JcHook::Restore, "container_p_restore"},
    {JcHook::StepdCreate, "container_p_stepd_create"},
    {JcHook::StepdDelete, "container_p_stepd_delete"},
    {JcHook::SendStepd, "container_p_send_stepd"},
    {JcHook::RecvStepd, "container_p_recv_stepd"},
};

constexpr JcRelease k2411Release{2411, k2411, sizeof k2411 / sizeof k2411[0], true, true, true, false, true};
constexpr JcRelease k2411_0Release{2411, k2411, sizeof k2411 / sizeof k2411[0], false, true, false, false, true};
constexpr JcRelease k2205Release{2205, k2205, sizeof k2205 / sizeof k2205[0], false, false, false, true, false};

// API 101 (14.03) and what each later release did with its hooks.
constexpr JcObsolete kObsolete2411[] = {
    {"container_p_create", "removed in 24.05: the extern step's container_p_stepd_create makes the job's container"},
    {"container_p_add_cont", "removed in 24.05: processes enter the container through container_p_join"},
    {"container_p_add_pid", "replaced by container_p_join in 20.02"},
    {"container_p_delete", "removed in 24.05: the extern step's container_p_stepd_delete removes the job's container"},
    {"container_p_reconfig", "removed in 24.05"},
};
constexpr JcObsolete kObsolete2205[] = {
    {"container_p_add_pid", "replaced by container_p_join in 20.02"},
};

}  // namespace

const JcRelease& jcRelease(const SlurmVersion& version) {
  // 24.05 dropped 22.05's hooks; plugstack emulates 22.05 and 24.11.
  if (version.number() >= 0x180500) return version.number() == 0x180b00 ? k2411_0Release : k2411Release;
  return k2205Release;
}

const char* jcSymbol(const JcRelease& release, JcHook hook) {
  for (size_t i = 0; i < release.count; i++)
    if (release.symbols[i].hook == hook) return release.symbols[i].symbol;
  return nullptr;
}

const char* jcHookName(JcHook hook) {
  switch (hook) {
    case JcHook::Create: return "create";
    case JcHook::AddCont: return "add_cont";
    case JcHook::Join: return "join";
    case JcHook::JoinExternal: return "join_external";
    case JcHook::Delete: return "delete";
    case JcHook::Restore: return "restore";
    case JcHook::Reconfig: return "reconfig";
    case JcHook::StepdCreate: return "stepd_create";
    case JcHook::StepdDelete: return "stepd_delete";
    case JcHook::SendStepd: return "send_stepd";
    case JcHook::RecvStepd: return "recv_stepd";
  }
  return "?";
}

size_t jcObsoleteHooks(const JcRelease& release, const JcObsolete** out) {
  if (release.line >= 2411) {
    *out = kObsolete2411;
    return sizeof kObsolete2411 / sizeof kObsolete2411[0];
  }
  *out = kObsolete2205;
  return sizeof kObsolete2205 / sizeof kObsolete2205[0];
}

}  // namespace plugstack
