#include "libslurm/job_info_layout.h"

#include <slurm/slurm.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "libslurm/job_info_2205.h"

namespace plugstack::libslurm {

namespace {

using K = FieldKind;

// sizeof(slurm_job_info_t) with Slurm 24.11's header on x86-64; the
// shipped header must keep it (test/libslurm-layout.test.ts compares the
// offsets with Slurm's own header when one is at hand).
static_assert(sizeof(slurm_job_info_t) == 960, "24.11 job record layout");

#define SAME(field, kind)                                                   \
  {                                                                         \
    #field, {                                                               \
      {K::kind, offsetof(slurm_job_info_t, field)},                         \
      {K::kind, offsetof(JobInfo2205, field)}                               \
    }                                                                       \
  }

// The fields plugstack's controller fills, in both layouts.
constexpr JobInfoField kFields[] = {
    SAME(accrue_time, Time),
    SAME(account, String),
    SAME(alloc_node, String),
    SAME(alloc_sid, U32),
    SAME(array_job_id, U32),
    SAME(array_max_tasks, U32),
    SAME(array_task_id, U32),
    SAME(batch_flag, U16),
    SAME(batch_host, String),
    SAME(bitflags, U64),
    SAME(cluster, String),
    SAME(command, String),
    SAME(contiguous, U16),
    SAME(cpus_per_task, U16),
    SAME(derived_ec, U32),
    SAME(eligible_time, Time),
    SAME(end_time, Time),
    SAME(exit_code, U32),
    SAME(group_id, U32),
    SAME(job_id, U32),
    SAME(job_state, U32),
    SAME(max_cpus, U32),
    SAME(max_nodes, U32),
    SAME(name, String),
    SAME(nice, U32),
    SAME(node_inx, IndexList),
    SAME(nodes, String),
    SAME(ntasks_per_node, U16),
    SAME(num_cpus, U32),
    SAME(num_nodes, U32),
    SAME(num_tasks, U32),
    SAME(partition, String),
    SAME(pn_min_cpus, U16),
    SAME(pn_min_memory, U64),
    SAME(priority, U32),
    SAME(qos, String),
    SAME(requeue, U16),
    SAME(restart_cnt, U16),
    SAME(shared, U16),
    SAME(start_protocol_ver, U16),
    SAME(start_time, Time),
    // 24.11 widened the reason to 32 bits.
    {"state_reason",
     {{K::U32, offsetof(slurm_job_info_t, state_reason)}, {K::U16, offsetof(JobInfo2205, state_reason)}}},
    SAME(state_desc, String),
    SAME(std_err, String),
    SAME(std_in, String),
    SAME(std_out, String),
    SAME(submit_time, Time),
    SAME(time_limit, U32),
    SAME(time_min, U32),
    SAME(user_id, U32),
    SAME(user_name, String),
    SAME(work_dir, String),
};

#undef SAME

constexpr size_t kSizes[kReleaseCount] = {sizeof(slurm_job_info_t), sizeof(JobInfo2205)};

bool isInteger(const json::Value& v, double lo, double hi) {
  return v.isNumber() && std::floor(v.asNumber()) == v.asNumber() && v.asNumber() >= lo && v.asNumber() <= hi;
}

template <typename T>
void put(void* record, size_t offset, T value) {
  std::memcpy(static_cast<char*>(record) + offset, &value, sizeof value);
}

template <typename T>
T get(const void* record, size_t offset) {
  T value;
  std::memcpy(&value, static_cast<const char*>(record) + offset, sizeof value);
  return value;
}

}  // namespace

const JobInfoField* findJobInfoField(std::string_view name) {
  for (const auto& f : kFields)
    if (name == f.name) return &f;
  return nullptr;
}

size_t jobInfoSize(Release r) { return kSizes[static_cast<int>(r)]; }

bool validJobInfo(const json::Value& job, std::string* error) {
  if (!job.isObject()) {
    *error = "job must be an object";
    return false;
  }
  for (const auto& [key, value] : job.asObject()) {
    const JobInfoField* f = findJobInfoField(key);
    if (!f) {
      *error = "job." + key + " is not a job record field plugstack fills";
      return false;
    }
    // Both releases agree on every kind but the width of state_reason.
    bool ok = value.isNull();
    switch (f->place[0].kind) {
      case K::String: ok = ok || value.isString(); break;
      case K::U16:
      case K::U32:
      case K::U64: ok = ok || isInteger(value, 0, 18446744073709551615.0); break;
      case K::Time: ok = ok || isInteger(value, -9.2e18, 9.2e18); break;
      case K::IndexList:
        ok = value.isArray();
        for (const auto& n : value.isArray() ? value.asArray() : json::Array{})
          ok = ok && isInteger(n, 0, 2147483647.0);
        break;
      case K::Absent: break;
    }
    if (!ok) {
      *error = "job." + key + " has a value of the wrong type";
      return false;
    }
  }
  return true;
}

void writeJobInfo(void* record, Release r, const json::Value& job) {
  for (const auto& [key, value] : job.asObject()) {
    const JobInfoField* f = findJobInfoField(key);
    if (!f || value.isNull()) continue;
    const FieldPlace& at = f->place[static_cast<int>(r)];
    double n = value.isNumber() ? value.asNumber() : 0;
    switch (at.kind) {
      case K::String: put<char*>(record, at.offset, strdup(value.asString().c_str())); break;
      case K::U16: put<uint16_t>(record, at.offset, static_cast<uint16_t>(n)); break;
      case K::U32: put<uint32_t>(record, at.offset, static_cast<uint32_t>(n)); break;
      case K::U64: put<uint64_t>(record, at.offset, static_cast<uint64_t>(n)); break;
      case K::Time: put<time_t>(record, at.offset, static_cast<time_t>(n)); break;
      case K::IndexList: {
        const json::Array& list = value.asArray();
        auto* inx = static_cast<int32_t*>(std::calloc(list.size() + 1, sizeof(int32_t)));
        for (size_t i = 0; i < list.size(); i++) inx[i] = static_cast<int32_t>(list[i].asNumber());
        inx[list.size()] = -1;
        put<int32_t*>(record, at.offset, inx);
        break;
      }
      case K::Absent: break;
    }
  }
}

void freeJobInfo(void* record, Release r) {
  for (const auto& f : kFields) {
    const FieldPlace& at = f.place[static_cast<int>(r)];
    if (at.kind == K::String || at.kind == K::IndexList) std::free(get<void*>(record, at.offset));
  }
}

}  // namespace plugstack::libslurm
