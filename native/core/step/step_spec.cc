#include "step/step_spec.h"

#include <pwd.h>

#include <cmath>

namespace plugstack {

namespace {

class Reader {
 public:
  Reader(const json::Value& obj, std::string* error) : obj_(obj), error_(error) {}

  bool ok() const { return error_->empty(); }

  uint32_t u32(const char* key, std::optional<uint32_t> fallback = std::nullopt) {
    const json::Value& v = obj_[key];
    if (v.isNull() && fallback) return *fallback;
    double d = v.asNumber();
    if (!v.isNumber() || d < 0 || d > 4294967295.0 || std::floor(d) != d) {
      fail(std::string("step.") + key + " must be an integer from 0 to 4294967295");
      return 0;
    }
    return static_cast<uint32_t>(d);
  }

  std::optional<std::string> optString(const char* key) {
    const json::Value& v = obj_[key];
    if (v.isNull()) return std::nullopt;
    if (!v.isString()) {
      fail(std::string("step.") + key + " must be a string");
      return std::nullopt;
    }
    return v.asString();
  }

  std::vector<std::string> strings(const char* key, bool required) {
    const json::Value& v = obj_[key];
    std::vector<std::string> out;
    if (v.isNull() && !required) return out;
    if (!v.isArray()) {
      fail(std::string("step.") + key + " must be an array of strings");
      return out;
    }
    for (const auto& s : v.asArray()) {
      if (!s.isString()) {
        fail(std::string("step.") + key + " must be an array of strings");
        return out;
      }
      out.push_back(s.asString());
    }
    return out;
  }

  void fail(std::string message) {
    if (error_->empty()) *error_ = std::move(message);
  }

 private:
  const json::Value& obj_;
  std::string* error_;
};

}  // namespace

bool readStepSpec(const json::Value& step, StepSpec* out, std::string* error) {
  error->clear();
  if (!step.isObject()) {
    *error = "request.step must be an object";
    return false;
  }
  Reader r(step, error);
  StepRecord& rec = out->record;
  rec.jobId = r.u32("jobId");
  rec.stepId = r.u32("stepId");
  rec.nnodes = r.u32("nnodes", 1);
  rec.nodeId = r.u32("nodeId", 0);
  rec.ntasks = r.u32("ntasks");
  rec.cpus = static_cast<uint16_t>(r.u32("cpus", 1));
  rec.cpusPerTask = r.u32("cpusPerTask", 1);
  rec.uid = r.u32("uid");
  rec.gid = r.u32("gid");
  rec.arrayJobId = r.u32("arrayJobId", rec.jobId);
  rec.arrayTaskId = r.u32("arrayTaskId", kNoVal);
  rec.jobMem = r.u32("jobMem", 0);
  rec.stepMem = r.u32("stepMem", 0);
  rec.jobAllocCores = r.optString("jobAllocCores");
  rec.stepAllocCores = r.optString("stepAllocCores");
  out->cwd = r.optString("cwd").value_or("/tmp");
  out->nodeName = r.optString("nodeName").value_or("node0");
  out->oomKillStep = step["oomKillStep"].isBool() && step["oomKillStep"].asBool();
  if (step["srunCommPort"].isNumber()) out->srunCommPort = r.u32("srunCommPort");
  out->launchNodeAddress = r.optString("launchNodeAddress");
  out->workingCluster = r.optString("workingCluster");
  out->taskProlog = r.optString("taskProlog").value_or("");
  out->taskEpilog = r.optString("taskEpilog").value_or("");
  out->userTaskProlog = r.optString("userTaskProlog").value_or("");
  out->userTaskEpilog = r.optString("userTaskEpilog").value_or("");
  const json::Value& job = step["job"];
  if (job["start_time"].isNumber()) out->jobStartTime = static_cast<long long>(job["start_time"].asNumber());
  if (job["end_time"].isNumber()) out->jobEndTime = static_cast<long long>(job["end_time"].asNumber());

  std::vector<std::string> argv = r.strings("argv", true);
  if (r.ok() && argv.empty()) r.fail("step.argv must not be empty");
  rec.setArgv(argv);
  rec.env = EnvArray(r.strings("env", false));

  // The user name as the credential carries it; without a passwd entry the
  // number stands in for it.
  std::optional<std::string> user = r.optString("user");
  if (!user) {
    struct passwd* pw = getpwuid(rec.uid);
    user = pw ? std::string(pw->pw_name) : std::to_string(rec.uid);
  }
  out->userName = *user;
  if (step["gids"].isArray()) {
    for (const auto& g : step["gids"].asArray()) rec.gids.push_back(static_cast<gid_t>(g.asNumber()));
  } else {
    rec.gids = groupsOf(getpwuid(rec.uid) ? out->userName : std::string(), rec.gid);
  }

  const json::Value& tasks = step["tasks"];
  if (!tasks.isArray() || tasks.asArray().empty()) r.fail("step.tasks must be a non-empty array");
  int local = 0;
  for (const auto& t : tasks.asArray()) {
    TaskRecord task;
    task.id = local++;
    if (!t["gtid"].isNumber()) {
      r.fail("step.tasks[].gtid must be a number");
      break;
    }
    task.gtid = static_cast<uint32_t>(t["gtid"].asNumber());
    task.setArgv(argv);
    rec.tasks.push_back(std::move(task));
  }

  const json::Value& input = step["stdin"];
  if (input.isArray()) {
    std::vector<std::optional<std::string>> each;
    for (const auto& v : input.asArray()) {
      if (v.isString()) each.emplace_back(v.asString());
      else if (v.isNull()) each.emplace_back(std::nullopt);
      else r.fail("step.stdin[] must be a string or null");
    }
    if (each.size() != rec.tasks.size()) r.fail("step.stdin must have one entry per task of the node");
    out->stdinSpec = std::move(each);
  }

  for (const auto& v : step["output"].asArray()) {
    if (!v.isString()) {
      r.fail("step.output[] must be strings");
      break;
    }
    out->outputFiles.push_back(v.asString());
  }
  if (!out->outputFiles.empty() && out->outputFiles.size() != 2 * rec.tasks.size())
    r.fail("step.output must have two entries per task of the node");
  out->outputAppend = step["outputAppend"].isBool() && step["outputAppend"].asBool();
  out->outputLabelled = step["outputLabelled"].isBool() && step["outputLabelled"].asBool();

  for (const auto& o : step["options"].asArray()) {
    if (!o["plugin"].isString() || !o["name"].isString()) {
      r.fail("step.options[] needs plugin and name strings");
      break;
    }
    LaunchOption opt{o["plugin"].asString(), o["name"].asString(), std::nullopt};
    if (o["value"].isString()) opt.value = o["value"].asString();
    out->options.push_back(std::move(opt));
  }
  return r.ok();
}

}  // namespace plugstack
