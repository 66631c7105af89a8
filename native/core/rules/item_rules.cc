#include "rules/item_rules.h"

namespace plugstack {

namespace {

constexpr ItemGate P = ItemGate::Pass;
constexpr ItemGate J = ItemGate::NeedsJob;
constexpr ItemGate A = ItemGate::NotAvail;
constexpr ItemGate R = ItemGate::NotRemote;
constexpr ItemGate B = ItemGate::BadArg;

struct ItemRow {
  const char* name;
  // Columns: local (srun), remote (slurmstepd), allocator (sbatch/salloc),
  // slurmd, job_script (prolog/epilog).
  ItemGate gate[5];
};

// The rules, read off Slurm 24.11's _check_spank_item_validity (22.05 is
// identical):
//  - the four version items pass everywhere;
//  - slurmd allows nothing else;
//  - job_script allows UID, GID and JOB_ID;
//  - local allows UID, GID, ID, STEPID, ARGV, ENV, TOTAL_TASK_COUNT and
//    NNODES, and only when the handle has a job (local_user_init);
//    anything else is NOT_REMOTE;
//  - allocator allows UID and GID only with a job (never, in practice),
//    answers BAD_ARG for the rest of the local set and NOT_REMOTE otherwise;
//  - remote lets everything through to the item's own checks.
constexpr ItemRow kRows[kItemCount] = {
    //                                 local remote alloc slurmd script
    {"S_JOB_UID",                     {J, P, J, A, P}},
    {"S_JOB_GID",                     {J, P, J, A, P}},
    {"S_JOB_ID",                      {J, P, B, A, P}},
    {"S_JOB_STEPID",                  {J, P, B, A, A}},
    {"S_JOB_NNODES",                  {J, P, B, A, A}},
    {"S_JOB_NODEID",                  {R, P, R, A, A}},
    {"S_JOB_LOCAL_TASK_COUNT",        {R, P, R, A, A}},
    {"S_JOB_TOTAL_TASK_COUNT",        {J, P, B, A, A}},
    {"S_JOB_NCPUS",                   {R, P, R, A, A}},
    {"S_JOB_ARGV",                    {J, P, B, A, A}},
    {"S_JOB_ENV",                     {J, P, B, A, A}},
    {"S_TASK_ID",                     {R, P, R, A, A}},
    {"S_TASK_GLOBAL_ID",              {R, P, R, A, A}},
    {"S_TASK_EXIT_STATUS",            {R, P, R, A, A}},
    {"S_TASK_PID",                    {R, P, R, A, A}},
    {"S_JOB_PID_TO_GLOBAL_ID",        {R, P, R, A, A}},
    {"S_JOB_PID_TO_LOCAL_ID",         {R, P, R, A, A}},
    {"S_JOB_LOCAL_TO_GLOBAL_ID",      {R, P, R, A, A}},
    {"S_JOB_GLOBAL_TO_LOCAL_ID",      {R, P, R, A, A}},
    {"S_JOB_SUPPLEMENTARY_GIDS",      {R, P, R, A, A}},
    {"S_SLURM_VERSION",               {P, P, P, P, P}},
    {"S_SLURM_VERSION_MAJOR",         {P, P, P, P, P}},
    {"S_SLURM_VERSION_MINOR",         {P, P, P, P, P}},
    {"S_SLURM_VERSION_MICRO",         {P, P, P, P, P}},
    {"S_STEP_CPUS_PER_TASK",          {R, P, R, A, A}},
    {"S_JOB_ALLOC_CORES",             {R, P, R, A, A}},
    {"S_JOB_ALLOC_MEM",               {R, P, R, A, A}},
    {"S_STEP_ALLOC_CORES",            {R, P, R, A, A}},
    {"S_STEP_ALLOC_MEM",              {R, P, R, A, A}},
    {"S_SLURM_RESTART_COUNT",         {R, P, R, A, A}},
    {"S_JOB_ARRAY_ID",                {R, P, R, A, A}},
    {"S_JOB_ARRAY_TASK_ID",           {R, P, R, A, A}},
};

// A number outside the enum: not in the local or allocator sets
// (NOT_REMOTE), the remote switch's default case (BAD_ARG), and not one of
// the few job_script items (NOT_AVAIL).
constexpr ItemGate kUnknownItem[5] = {R, B, R, A, A};

int column(Context c) {
  switch (c) {
    case Context::Local: return 0;
    case Context::Remote: return 1;
    case Context::Allocator: return 2;
    case Context::Slurmd: return 3;
    case Context::JobScript: return 4;
  }
  return 0;
}

}  // namespace

ItemGate itemGate(Context context, int item) {
  if (item < 0 || item >= kItemCount) return kUnknownItem[column(context)];
  return kRows[item].gate[column(context)];
}

const char* itemName(int item) {
  if (item < 0 || item >= kItemCount) return nullptr;
  return kRows[item].name;
}

}  // namespace plugstack
