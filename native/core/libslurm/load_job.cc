// slurm_load_job and its relatives, answered from the jobs this process
// knows (job_table.h) in the layout of the emulated release. As in Slurm,
// a failed load leaves *resp NULL and returns the error itself (not -1)
// with errno set to it: ESLURM_INVALID_JOB_ID for a job the controller
// does not have. A process knows only its own job, so slurm_load_jobs and
// slurm_load_job_user see that one job.
#include <slurm/slurm.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "common/visibility.h"
#include "libslurm/controller.h"
#include "libslurm/job_info_layout.h"
#include "libslurm/job_table.h"
#include "libslurm/release.h"

namespace {

using namespace plugstack;
using namespace plugstack::libslurm;

// The response slurmctld would send: these records, laid out for the
// emulated release (job_info_msg_t itself is the same in both).
job_info_msg_t* message(const std::vector<const json::Value*>& jobs) {
  Release r = currentRelease();
  size_t size = jobInfoSize(r);
  auto* msg = static_cast<job_info_msg_t*>(std::calloc(1, sizeof(job_info_msg_t)));
  msg->last_update = std::time(nullptr);
  msg->record_count = static_cast<uint32_t>(jobs.size());
  char* records = static_cast<char*>(std::calloc(jobs.size() ? jobs.size() : 1, size));
  for (size_t i = 0; i < jobs.size(); i++) writeJobInfo(records + i * size, r, *jobs[i]);
  msg->job_array = reinterpret_cast<slurm_job_info_t*>(records);
  return msg;
}

int fail(job_info_msg_t** resp, int rc) {
  *resp = nullptr;
  errno = rc;
  return rc;
}

// The newest time in a record: what "changed since" compares with.
time_t lastChange(const json::Value& job) {
  time_t t = 0;
  for (const char* k : {"submit_time", "start_time"})
    if (job[k].isNumber() && static_cast<time_t>(job[k].asNumber()) > t) t = static_cast<time_t>(job[k].asNumber());
  return t;
}

}  // namespace

extern "C" {

PLUGSTACK_EXPORT int slurm_load_job(job_info_msg_t** resp, uint32_t job_id, uint16_t show_flags) {
  beforeControllerCall();
  (void)show_flags;
  if (!resp) {
    errno = EINVAL;
    return SLURM_ERROR;
  }
  const json::Value* job = knownJob(job_id);
  if (!job) return fail(resp, ESLURM_INVALID_JOB_ID);
  *resp = message({job});
  return SLURM_SUCCESS;
}

PLUGSTACK_EXPORT int slurm_load_job_user(job_info_msg_t** resp, uint32_t user_id, uint16_t show_flags) {
  beforeControllerCall();
  (void)show_flags;
  if (!resp) {
    errno = EINVAL;
    return SLURM_ERROR;
  }
  std::vector<const json::Value*> mine;
  for (const json::Value* j : knownJobs())
    if ((*j)["user_id"].isNumber() && static_cast<uint32_t>((*j)["user_id"].asNumber()) == user_id) mine.push_back(j);
  *resp = message(mine);
  return SLURM_SUCCESS;
}

PLUGSTACK_EXPORT int slurm_load_jobs(time_t update_time, job_info_msg_t** resp, uint16_t show_flags) {
  beforeControllerCall();
  (void)show_flags;
  if (!resp) {
    errno = EINVAL;
    return SLURM_ERROR;
  }
  std::vector<const json::Value*> all = knownJobs();
  time_t newest = 0;
  for (const json::Value* j : all)
    if (lastChange(*j) > newest) newest = lastChange(*j);
  if (update_time != 0 && update_time >= newest) return fail(resp, SLURM_NO_CHANGE_IN_DATA);
  *resp = message(all);
  return SLURM_SUCCESS;
}

PLUGSTACK_EXPORT void slurm_free_job_info_msg(job_info_msg_t* msg) {
  if (!msg) return;
  Release r = currentRelease();
  size_t size = jobInfoSize(r);
  char* records = reinterpret_cast<char*>(msg->job_array);
  for (uint32_t i = 0; records && i < msg->record_count; i++) freeJobInfo(records + i * size, r);
  std::free(records);
  std::free(msg);
}

// A job id of 0 means the job of SLURM_JOB_ID, as in Slurm.
PLUGSTACK_EXPORT int slurm_get_end_time(uint32_t jobid, time_t* end_time_ptr) {
  if (!end_time_ptr) {
    errno = EINVAL;
    return SLURM_ERROR;
  }
  if (jobid == 0) {
    const char* env = std::getenv("SLURM_JOB_ID");
    if (env) jobid = static_cast<uint32_t>(std::atol(env));
    if (jobid == 0) {
      errno = ESLURM_INVALID_JOB_ID;
      return SLURM_ERROR;
    }
  }
  // Only now is slurmctld asked.
  beforeControllerCall();
  const json::Value* job = knownJob(jobid);
  if (!job) {
    errno = ESLURM_INVALID_JOB_ID;
    return SLURM_ERROR;
  }
  *end_time_ptr = static_cast<time_t>((*job)["end_time"].asNumber());
  return SLURM_SUCCESS;
}

PLUGSTACK_EXPORT long slurm_get_rem_time(uint32_t jobid) {
  time_t end = 0;
  if (slurm_get_end_time(jobid, &end) != SLURM_SUCCESS) return -1L;
  long rc = static_cast<long>(std::difftime(end, std::time(nullptr)));
  return rc < 0 ? 0L : rc;
}

}  // extern "C"
