#include "libslurm/job_table.h"

#include "libslurm/job_info_layout.h"

namespace plugstack::libslurm {

namespace {

std::vector<json::Value>& jobs() {
  static std::vector<json::Value> all;
  return all;
}

uint32_t idOf(const json::Value& job) { return static_cast<uint32_t>(job["job_id"].asNumber()); }

}  // namespace

bool rememberJob(const json::Value& job, std::string* error) {
  if (!validJobInfo(job, error)) return false;
  if (!job["job_id"].isNumber()) {
    *error = "job.job_id is required";
    return false;
  }
  for (auto& j : jobs())
    if (idOf(j) == idOf(job)) {
      j = job;
      return true;
    }
  jobs().push_back(job);
  return true;
}

const json::Value* knownJob(uint32_t jobId) {
  for (const auto& j : jobs())
    if (idOf(j) == jobId) return &j;
  return nullptr;
}

std::vector<const json::Value*> knownJobs() {
  std::vector<const json::Value*> out;
  for (const auto& j : jobs()) out.push_back(&j);
  return out;
}

}  // namespace plugstack::libslurm
