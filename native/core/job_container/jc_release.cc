#include "job_container/jc_release.h"

#include <cstring>

#include "rules/releases.h"

namespace plugstack {

namespace {

// The interface's hooks, in the order of Slurm's ops tables (each release's
// is this order, less the hooks it has not): releases.json's jobContainer
// table says which a release has.
struct JcHookDef {
  JcHook hook;
  const char* symbol;
  enum { Always, SlurmdJob, StepdTransfer } since;
};
constexpr JcHookDef kHooks[] = {
    {JcHook::Create, "container_p_create", JcHookDef::SlurmdJob},
    {JcHook::AddCont, "container_p_add_cont", JcHookDef::SlurmdJob},
    {JcHook::Join, "container_p_join", JcHookDef::Always},
    {JcHook::JoinExternal, "container_p_join_external", JcHookDef::Always},
    {JcHook::Delete, "container_p_delete", JcHookDef::SlurmdJob},
    {JcHook::Restore, "container_p_restore", JcHookDef::Always},
    {JcHook::Reconfig, "container_p_reconfig", JcHookDef::SlurmdJob},
    {JcHook::StepdCreate, "container_p_stepd_create", JcHookDef::Always},
    {JcHook::StepdDelete, "container_p_stepd_delete", JcHookDef::Always},
    {JcHook::SendStepd, "container_p_send_stepd", JcHookDef::StepdTransfer},
    {JcHook::RecvStepd, "container_p_recv_stepd", JcHookDef::StepdTransfer},
};
constexpr size_t kHookCount = sizeof kHooks / sizeof kHooks[0];

// The interface's history: the hooks of API 101 (14.03) and of 22.05 that
// later releases dropped, in plugstack's words. A release that still has a
// hook does not list it.
struct JcHistory {
  const char* symbol;
  const char* fate;
};
constexpr JcHistory kHistory[] = {
    {"container_p_create", "removed in 24.05: the extern step's container_p_stepd_create makes the job's container"},
    {"container_p_add_cont", "removed in 24.05: processes enter the container through container_p_join"},
    {"container_p_add_pid", "replaced by container_p_join in 20.02"},
    {"container_p_delete", "removed in 24.05: the extern step's container_p_stepd_delete removes the job's container"},
    {"container_p_reconfig", "removed in 24.05"},
};

// One built release per emulated release, and one for a micro release
// before joinStepCreateFromMicro (24.11.0).
struct Built {
  JcSymbol symbols[kHookCount];
  JcObsolete obsolete[sizeof kHistory / sizeof kHistory[0]];
  JcRelease release;
};

void build(Built& b, int index, bool beforeJoinRework) {
  const releases::JobContainer& t = releases::kJobContainer[index];
  const releases::Release& r = releases::kReleases[index];
  size_t n = 0;
  for (const auto& h : kHooks) {
    bool has = h.since == JcHookDef::Always || (h.since == JcHookDef::SlurmdJob && t.slurmdJobHooks) ||
               (h.since == JcHookDef::StepdTransfer && t.stepdTransfer);
    if (has) b.symbols[n++] = {h.hook, h.symbol};
  }
  size_t m = 0;
  for (const auto& old : kHistory) {
    bool kept = false;
    for (size_t i = 0; i < n; i++) kept = kept || std::strcmp(b.symbols[i].symbol, old.symbol) == 0;
    if (!kept) b.obsolete[m++] = {old.symbol, old.fate};
  }
  bool rework = !beforeJoinRework && t.joinStepCreateFromMicro != 0xffff;
  b.release = JcRelease{r.major * 100 + r.minor, r.name, b.symbols, n, rework, t.stepdCreateTakesStep, rework,
                        t.joinInJobScript, t.containSpank, b.obsolete, m};
}

}  // namespace

const JcRelease& jcRelease(const SlurmVersion& version) {
  static Built built[releases::kCount][2] = {};
  static bool ready = false;
  if (!ready) {
    for (int i = 0; i < releases::kCount; i++) {
      build(built[i][0], i, false);
      build(built[i][1], i, true);
    }
    ready = true;
  }
  int index = releaseIndex(version);
  const releases::JobContainer& t = releases::kJobContainer[index];
  bool before = t.joinStepCreateFromMicro != 0xffff && version.micro < t.joinStepCreateFromMicro;
  return built[index][before ? 1 : 0].release;
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
  *out = release.obsolete;
  return release.obsoleteCount;
}

}  // namespace plugstack
