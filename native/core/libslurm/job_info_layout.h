// Where each field of a job record lives in each release's layout: the
// data behind slurm_load_job. The emulated controller (Node) sends a job
// as a JSON object keyed by Slurm's own field names; this table places
// each value at its offset, with its width, in the struct of the release
// the host emulates (24.11: include/slurm/slurm.h; 22.05:
// job_info_2205.h). Fields the table does not name stay 0 or NULL, as
// they are in Slurm when slurmctld sends nothing for them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/json.h"
#include "libslurm/release.h"

namespace plugstack::libslurm {

enum class FieldKind : uint8_t {
  Absent,     // not in this release
  String,     // char *, malloc()ed
  U16,
  U32,
  U64,
  Time,       // time_t
  IndexList,  // int32_t *: index pairs (first, last) ended by -1, malloc()ed
};

struct FieldPlace {
  FieldKind kind;
  size_t offset;
};

struct JobInfoField {
  const char* name;
  FieldPlace place[kReleaseCount];  // by Release
};

const JobInfoField* findJobInfoField(std::string_view name);

// sizeof(slurm_job_info_t) in the release.
size_t jobInfoSize(Release r);

// Checks that every key names a field of the table with a value of its kind.
bool validJobInfo(const json::Value& job, std::string* error);

// Fills a zeroed record of jobInfoSize(r) bytes from a valid job.
void writeJobInfo(void* record, Release r, const json::Value& job);

// Frees what writeJobInfo allocated in the record.
void freeJobInfo(void* record, Release r);

}  // namespace plugstack::libslurm
