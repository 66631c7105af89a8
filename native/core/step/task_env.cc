#include "step/task_env.h"

#include <limits.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/slurm_log.h"
#include "rules/releases.h"

namespace plugstack {

namespace {

// setenvf() with a number.
void setNumber(EnvArray& env, const char* name, long long value) {
  env.set(name, std::to_string(value));
}

// The part of setup_env() both paths share: SLURM_CONF and the ids that the
// env record carries in both.
void setConf(EnvArray& env) {
  // slurmstepd copies its own SLURM_CONF; plugstack's host has one only if
  // the caller gave it one.
  if (const char* conf = std::getenv("SLURM_CONF")) env.set("SLURM_CONF", conf);
  env.unset("SLURM_CONF_SERVER");
}

void setFromLaunchRequest(EnvArray& env, const StepSpec& spec) {
  if (spec.srunCommPort) setNumber(env, "SLURM_SRUN_COMM_PORT", *spec.srunCommPort);
  if (spec.launchNodeAddress) env.set("SLURM_LAUNCH_NODE_IPADDR", *spec.launchNodeAddress);
}

// setup_env writes it last (22.05), after the user: where the job's
// environment has none yet (a batch step), it is appended there.
void setWorkingCluster(EnvArray& env, const StepSpec& spec) {
  if (spec.workingCluster) env.set("SLURM_WORKING_CLUSTER", *spec.workingCluster);
}

void setUser(EnvArray& env, const StepSpec& spec, gid_t gid, bool setGid) {
  setNumber(env, "SLURM_JOB_UID", spec.record.uid);
  env.set("SLURM_JOB_USER", spec.userName);
  if (setGid) setNumber(env, "SLURM_JOB_GID", gid);
}

// The field is an int in Slurm and is written only when not negative: the
// special step ids (batch, extern, interactive) are negative as ints.
bool setsStepId(uint32_t stepId) { return static_cast<int32_t>(stepId) >= 0; }

}  // namespace

void applyTaskEnv(EnvArray& env, const StepSpec& spec, const TaskRecord& task,
                  const SlurmVersion& version) {
  const StepRecord& step = spec.record;
  setConf(env);
  if (step.cpus) setNumber(env, "SLURM_CPUS_ON_NODE", step.cpus);
  if (releases::taskEnv(version).oomKillStep) setNumber(env, "SLURM_OOM_KILL_STEP", spec.oomKillStep ? 1 : 0);
  // 24.11: the job's end and start time from the credential, in setup_env's
  // order around the job id.
  const bool jobTimes = releases::taskEnv(version).jobTimes;
  if (jobTimes && spec.jobEndTime) setNumber(env, "SLURM_JOB_END_TIME", *spec.jobEndTime);
  setNumber(env, "SLURM_JOB_ID", step.jobId);
  setNumber(env, "SLURM_JOBID", step.jobId);
  if (jobTimes && spec.jobStartTime) setNumber(env, "SLURM_JOB_START_TIME", *spec.jobStartTime);
  setNumber(env, "SLURM_TASK_PID", getpid());
  setNumber(env, "SLURM_NODEID", step.nodeId);
  setNumber(env, "SLURM_PROCID", task.gtid);
  setNumber(env, "SLURM_LOCALID", task.id);
  if (setsStepId(step.stepId)) {
    setNumber(env, "SLURM_STEP_ID", step.stepId);
    setNumber(env, "SLURM_STEPID", step.stepId);
  }
  setFromLaunchRequest(env, spec);
  std::string gtids;
  for (const auto& t : step.tasks) gtids += (gtids.empty() ? "" : ",") + std::to_string(t.gtid);
  env.set("SLURM_GTIDS", gtids);
  // setup_env writes SLURM_JOB_GID in 24.11 (from a field exec_task never
  // fills); exec_task then writes the real one right after.
  setUser(env, spec, 0, releases::taskEnv(version).setupEnvJobGid);
  setWorkingCluster(env, spec);
  setNumber(env, "SLURM_JOB_GID", step.gid);
  env.set("SLURMD_NODENAME", spec.nodeName);
}

void applyEpilogTaskEnv(EnvArray& env, const StepSpec& spec, const TaskRecord& task,
                        const SlurmVersion& version) {
  setConf(env);
  if (releases::taskEnv(version).oomKillStep) setNumber(env, "SLURM_OOM_KILL_STEP", spec.oomKillStep ? 1 : 0);
  setNumber(env, "SLURM_NODEID", spec.record.nodeId);
  setNumber(env, "SLURM_PROCID", task.gtid);
  setNumber(env, "SLURM_LOCALID", task.id);
  setFromLaunchRequest(env, spec);
  setUser(env, spec, 0, releases::taskEnv(version).setupEnvJobGid);
  setWorkingCluster(env, spec);
  env.set("SLURM_SCRIPT_CONTEXT", "epilog_task");
  env.set("SLURMD_NODENAME", spec.nodeName);
}

void applyStepUmask(StepSpec& spec) {
  const char* value = spec.record.env.get("SLURM_UMASK");
  if (!value) return;
  mode_t mask = static_cast<mode_t>(std::strtol(value, nullptr, 8));
  // Only the steps that stand for the job itself drop it from the job's
  // environment; an srun step keeps it for the sruns its tasks start.
  uint32_t id = spec.record.stepId;
  if (id == kBatchScriptStep || id == kExternStep || id == kInteractiveStep) spec.record.env.unset("SLURM_UMASK");
  umask(mask);
}

void makeTmpdir(EnvArray& env) {
  const char* tmpdir = env.get("TMPDIR");
  if (!tmpdir) {
    env.set("TMPDIR", "/tmp");
    return;
  }
  std::string dir = tmpdir;
  if (mkdir(dir.c_str(), 0700) == 0) return;
  int mkdirErrno = errno;
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) {
    slurmLog(LogLevel::Error,
             "Unable to create TMPDIR [" + dir + "]: " + std::strerror(mkdirErrno));
  } else if (!S_ISDIR(st.st_mode)) {
    slurmLog(LogLevel::Error, "TMPDIR [" + dir + "] is not a directory");
  } else if (faccessat(AT_FDCWD, dir.c_str(), X_OK | W_OK, AT_EACCESS) != 0) {
    slurmLog(LogLevel::Error, "TMPDIR [" + dir + "] is not writeable");
  } else {
    return;
  }
  slurmLog(LogLevel::Error, "Setting TMPDIR to /tmp");
  env.set("TMPDIR", "/tmp");
}

std::string resolveCommand(const std::string& argv0, const EnvArray& env) {
  if (argv0.empty() || argv0[0] == '/') return argv0;
  if (argv0[0] == '.') {
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) cwd[0] = '\0';
    return std::string(cwd) + "/" + argv0;
  }
  const char* path = env.get("PATH");
  if (!path) return argv0;
  std::string list = path;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(':', start);
    if (end == std::string::npos) end = list.size();
    // strtok_r skips empty fields, so "::" never means the cwd.
    if (end > start) {
      std::string candidate = list.substr(start, end - start) + "/" + argv0;
      struct stat st;
      if (stat(candidate.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) return candidate;
    }
    start = end + 1;
  }
  return argv0;
}

}  // namespace plugstack
