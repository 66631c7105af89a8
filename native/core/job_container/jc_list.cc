#include "job_container/jc_list.h"

#include "common/slurm_log.h"
#include "mpi/mpi_plugin.h"

namespace plugstack {

bool readJcSettings(const json::Value& v, JcSettings* out, std::string* error) {
  if (v.isNull()) return true;
  if (!v.isObject() || !v["types"].isArray()) {
    *error = "jobContainer must be an object with types";
    return false;
  }
  out->present = true;
  for (const auto& t : v["types"].asArray()) out->types.push_back(t.asString());
  if (v["file"].isString()) out->file = v["file"].asString();
  if (v["line"].isNumber()) out->line = static_cast<int>(v["line"].asNumber());
  if (v["prologFlags"].isArray())
    for (const auto& f : v["prologFlags"].asArray()) out->flags.push_back(f.asString());
  out->containSpank = v["containSpank"].isBool() && v["containSpank"].asBool();
  if (v["spoolDir"].isString()) out->spoolDir = v["spoolDir"].asString();
  if (v["slurmConf"].isString()) out->slurmConf = v["slurmConf"].asString();
  if (v["stepdData"].isString()) {
    const std::string& hex = v["stepdData"].asString();
    for (size_t i = 0; i + 1 < hex.size(); i += 2) out->stepdData.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  out->stepdSendFailed = v["stepdSendFailed"].isBool() && v["stepdSendFailed"].asBool();
  return true;
}

JcList::JcList(JcSettings settings, std::vector<std::string> pluginDirs, const SlurmVersion& version)
    : settings_(std::move(settings)), pluginDirs_(std::move(pluginDirs)), version_(version),
      release_(&jcRelease(version)) {}

JcList::~JcList() = default;

JcList::Init JcList::init() {
  setJcSlurmConf(settings_.slurmConf);
  // plugstack's own plugins claim the release emulated (mpi_plugin.h).
  setMpiEmulatedVersion(version_);
  int ref = kJcRefBase;
  for (const auto& type : settings_.types) {
    JcLoadRequest load;
    load.type = type;
    load.pluginDirs = pluginDirs_;
    load.version = version_;
    load.ref = ref++;
    load.file = settings_.file;
    load.line = settings_.line;
    auto plugin = std::make_unique<JcPlugin>();
    JcPlugin::Outcome outcome = plugin->load(load);
    if (outcome == JcPlugin::Outcome::Fatal) {
      // plugin_load_and_link's fatal(): the process ends, nothing unloaded.
      (void)plugin.release();
      for (auto& p : plugins_) (void)p.release();
      plugins_.clear();
      return Init::Fatal;
    }
    if (outcome != JcPlugin::Outcome::Loaded) {
      // job_container_init calls job_container_fini on what it loaded.
      fini();
      return Init::Failed;
    }
    plugins_.push_back(std::move(plugin));
  }
  return Init::Ok;
}

int JcList::call(JcHook hook, const JcCall& args) {
  int rc = 0;
  for (auto& p : plugins_) {
    rc = p->call(hook, args);
    if (rc != 0) break;
  }
  return rc;
}

void JcList::drop() {
  for (auto& p : plugins_) p->drop();
  plugins_.clear();
}

void JcList::fini() {
  for (auto& p : plugins_) p->unload();
  plugins_.clear();
}

}  // namespace plugstack
