// A job step as slurmd hands it to slurmstepd: the launch request of the
// stepd role, read from JSON into the records the SPANK API serves.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "lifecycle/slurm_limits.h"
#include "spank/job_records.h"
#include "step/privileges.h"

namespace plugstack {

// One OPT_TYPE_SPANK entry of the launch request: "<option>:<plugin>" and
// its argument (NULL for a flag).
struct LaunchOption {
  std::string plugin;
  std::string name;
  std::optional<std::string> value;
};

struct StepSpec {
  StepRecord record;  // ids, counts, argv, env, tasks: what items report
  std::string userName;
  std::string cwd = "/tmp";
  std::string nodeName;
  std::vector<LaunchOption> options;
  // What srun put in the launch message; each sets a variable when known.
  std::optional<unsigned> srunCommPort;
  std::optional<std::string> launchNodeAddress;
  // SLURM_WORKING_CLUSTER, which 22.05's setup_env writes for every task.
  std::optional<std::string> workingCluster;
  bool oomKillStep = false;
  // Slurm's rlimits, those the node's configuration propagates to its
  // tasks flagged (PropagateResourceLimits[Except]; Slurm's default: all).
  std::vector<slurm_limits::TaskLimit> taskLimits;
  // The job's start and end time as its credential carries them (the job
  // record's start_time and end_time), when the request has the job.
  std::optional<long long> jobStartTime;
  std::optional<long long> jobEndTime;
  // Each local task's standard input (task_stdin.h): absent, /dev/null for
  // every task; else per task nullopt for a pipe fed with srun's input, or
  // the file it reads.
  std::optional<std::vector<std::optional<std::string>>> stdinSpec;
  // The files the IO setup opens for the tasks' output (task_output.h):
  // two per local task, its stdout's then its stderr's, "" for a stream
  // that goes to srun or to /dev/null; empty when none does. Appended to,
  // not truncated, with outputAppend (--open-mode=append, JobFileAppend).
  std::vector<std::string> outputFiles;
  bool outputAppend = false;
  // srun's -l: slurmstepd writes the labelled lines into those files itself.
  bool outputLabelled = false;
  // slurm.conf's TaskProlog/TaskEpilog and srun's --task-prolog/
  // --task-epilog (step/task_scripts.h); empty for none.
  std::string taskProlog, taskEpilog, userTaskProlog, userTaskEpilog;

  JobIdentity identity() const { return {record.uid, record.gid, record.gids}; }
  bool batch() const { return record.stepId == kBatchScriptStep; }
};

// Reads request.step. False with *error set on a missing or invalid field.
bool readStepSpec(const json::Value& step, StepSpec* out, std::string* error);

}  // namespace plugstack
