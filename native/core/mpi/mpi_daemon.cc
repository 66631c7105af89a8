#include "mpi/mpi_daemon.h"

#include <sys/stat.h>

#include <map>

#include "common/events.h"
#include "common/problem.h"
#include "config/sp_table.h"
#include "protocol/messages.h"
#include "common/slurm_log.h"
#include "mpi/plugin_list.h"

extern "C" {
void slurm_xfree(void** item);
void* slurm_xrecalloc(void** item, size_t count, size_t size, bool clear, bool tryOnly, const char*, int,
                      const char*);
}

namespace plugstack {

bool MpiDaemon::init() {
  // error_in_daemon(): slurmd is one.
  sp::setInDaemon(true);
  slurmLog(LogLevel::Debug, "MPI: Loading all types");
  int ref = kMpiRefBase;
  for (const auto& type : mpiTypesInDirs(pluginDirs_, version_)) {
    MpiLoadRequest load;
    load.type = type;
    load.pluginDirs = pluginDirs_;
    load.version = version_;
    load.ref = ref++;
    load.file = "PluginDir";
    load.passedOver = true;
    auto plugin = std::make_unique<MpiPlugin>();
    MpiPlugin::Outcome outcome = plugin->load(load);
    if (outcome == MpiPlugin::Outcome::Fatal) {
      slurmLog(LogLevel::Error,
               "plugin_load_and_link: Plugin loading failed due to missing symbols. Plugin is corrupted.",
               /*fatal=*/true);
      (void)plugin.release();
      return false;
    }
    if (outcome == MpiPlugin::Outcome::Loaded) plugins_.push_back(std::move(plugin));
  }
  if (plugins_.empty()) {
    slurmLog(LogLevel::Error, "MPI: Unable to load any plugin");
    slurmLog(LogLevel::Error, "Failed to initialize MPI plugins.", /*fatal=*/true);
    return false;
  }
  return readConf();
}

namespace {

struct PluginConf {
  void* options = nullptr;  // the plugin's xmalloc array
  int count = 0;
  s_p_hashtbl* table = nullptr;
};

json::Array optionsJson(const PluginConf& c) {
  json::Array out;
  for (int i = 0; c.options && i < c.count; i++) {
    sp::Option o = sp::optionAt(c.options, static_cast<size_t>(i));
    if (!o.key) break;
    out.emplace_back(json::Object{{"key", o.key}, {"type", sp::typeName(o.type)}});
  }
  return out;
}

}  // namespace

bool MpiDaemon::readConf() {
  std::vector<PluginConf> confs(plugins_.size());
  for (size_t i = 0; i < plugins_.size(); i++) {
    PluginConf& c = confs[i];
    plugins_[i]->confOptions(&c.options, &c.count);
    if (!c.options) continue;
    if (c.count < 0) c.count = 0;
    // Room for the NULL entry after those the plugin counted (it need not
    // have one: transfer_s_p_options adds none).
    slurm_xrecalloc(&c.options, static_cast<size_t>(c.count) + 1, sp::optionSize(), true, false, nullptr, 0, nullptr);
    c.table = sp::create(c.options, nullptr);
  }
  auto cleanup = [&]() {
    for (auto& c : confs) {
      for (int j = 0; c.options && j < c.count; j++) {
        char* key = static_cast<char*>(c.options) + static_cast<size_t>(j) * sp::optionSize();
        slurm_xfree(reinterpret_cast<void**>(key));
      }
      slurm_xfree(&c.options);
      sp::destroy(c.table);
    }
  };

  struct stat st;
  if (mpiConf_.empty() || stat(mpiConf_.c_str(), &st) != 0) {
    slurmLog(LogLevel::Debug2, "No mpi.conf file (" + (mpiConf_.empty() ? std::string("(null)") : mpiConf_) + ")");
  } else {
    slurmLog(LogLevel::Debug2, "Reading mpi.conf file (" + mpiConf_ + ")");
    const std::string dir = mpiConf_.substr(0, mpiConf_.rfind('/'));
    // A line is passed over when no plugin's table takes it.
    std::map<std::pair<std::string, int>, std::pair<int, std::string>> ignored;
    int tables = 0;
    for (size_t i = 0; i < plugins_.size(); i++) {
      if (!confs[i].table) continue;
      tables++;
      std::vector<sp::FileError> errors, passed;
      if (!sp::parseFile(confs[i].table, mpiConf_, /*ignoreNew=*/true, dir, &errors, &passed)) {
        for (const auto& e : errors) {
          Diagnostic d;
          d.severity = Severity::Error;
          d.code = "MPI_CONF_INVALID";
          d.message = "mpi.conf: " + e.message + " (mpi/" + plugins_[i]->type() + "'s keys); slurmd does not start";
          d.file = e.file;
          d.line = e.line;
          reportProblem(d, {{"ref", plugins_[i]->ref()}, {"hook", "mpi.conf"}});
        }
        slurmLog(LogLevel::Error,
                 "Could not open/read/parse mpi.conf file " + mpiConf_ +
                     ". Many times this is because you have defined options for plugins that are not loaded. "
                     "Please check your slurm.conf file and make sure the plugins for the options listed are loaded.",
                 /*fatal=*/true);
        // What each plugin declared, for the report (slurmd ends here).
        for (size_t j = 0; j < plugins_.size(); j++)
          emitEvent({{"t", msg::kMpiConf},
                     {"ref", plugins_[j]->ref()},
                     {"type", plugins_[j]->type()},
                     {"pluginId", plugins_[j]->pluginId()},
                     {"options", optionsJson(confs[j])}});
        cleanup();
        return false;
      }
      for (const auto& e : passed) {
        auto& seen = ignored[{e.file, e.line}];
        seen.first++;
        seen.second = e.message;
      }
    }
    for (const auto& [where, seen] : ignored) {
      if (seen.first < tables) continue;
      Diagnostic d;
      d.severity = Severity::Warning;
      d.code = "MPI_CONF_LINE_IGNORED";
      d.message = "mpi.conf: " + seen.second + ": no mpi plugin takes it, and slurmd passes it over (a debug line only)";
      d.file = where.first;
      d.line = where.second;
      reportProblem(d, {{"hook", "mpi.conf"}});
    }
  }

  bool ok = true;
  for (size_t i = 0; i < plugins_.size() && ok; i++) {
    MpiPlugin& p = *plugins_[i];
    PluginConf& c = confs[i];
    p.confSet(c.table);
    auto* got = static_cast<s_p_hashtbl*>(p.confGet());
    json::Object ev{{"t", msg::kMpiConf},
                    {"ref", p.ref()},
                    {"type", p.type()},
                    {"pluginId", p.pluginId()},
                    {"options", optionsJson(c)}};
    if (got) {
      std::string bytes, error;
      if (!sp::pack(got, c.options, c.count, &bytes, &error)) {
        Diagnostic d;
        d.severity = Severity::Error;
        d.code = "MPI_CONF_GET_UNPACKABLE";
        d.message = "mpi/" + p.type() + ": " + error + "; slurmd does not start";
        reportProblem(d, {{"ref", p.ref()}, {"hook", "mpi_p_conf_get"}});
        if (error.rfind("s_p_pack_hashtbl", 0) == 0) slurmLog(LogLevel::Error, error, /*fatal=*/true);
        ok = false;
      } else {
        ev.emplace_back("data", sp::toHex(bytes));
      }
      sp::destroy(got);
    }
    emitEvent(std::move(ev));
  }
  cleanup();
  return ok;
}

void MpiDaemon::fini() {
  // _mpi_fini_locked: load order.
  for (auto& p : plugins_) p->unload();
  plugins_.clear();
}

}  // namespace plugstack
