// cli_filter/lua: the site's cli_filter.lua (beside slurm.conf), run as
// Slurm's cli_filter_lua.c and slurm_lua.c run it, on a real Lua
// (lua_runtime.h):
//
//   - init() opens Lua and loads the script: it is run once (its return
//     value through lua_tonumber must be 0: a table counts as 0) and must
//     define slurm_cli_setup_defaults, slurm_cli_pre_submit and
//     slurm_cli_post_submit;
//   - before every hook the script is stat()ed and loaded again when its
//     mtime grew; a bad new version keeps the old one;
//   - setup_defaults(options), pre_submit(options, offset),
//     post_submit(offset, jobid, stepid): a number returned is the hook's
//     result, anything else success (with an info line), and a Lua error
//     is logged and is success too: the job goes on without the policy;
//   - options reads through slurm_option_get (and the pseudo-keys argv,
//     spank, spank_job_env, type), writes through slurm_option_set with
//     luaL_checkstring (a boolean raises), failures ignored; pairs() sees
//     nothing; the early flag is getmetatable(options)._early.
//
// What Slurm lets pass silently is also reported as a problem (strict mode
// turns them into failures): Lua errors, hooks declared with parameters
// Slurm never passes, non-numeric results, and refused assignments.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "cli_filter/builtin_filters.h"
#include "cli_filter/json_options.h"
#include "cli_filter/lua/lua_runtime.h"
#include "cli_filter/release_rules.h"
#include "common/hook_scope.h"
#include "common/problem.h"
#include "common/slurm_log.h"
#include "rules/builtin_checks.h"
#include "spank/stack.h"

namespace plugstack {

namespace {

constexpr int kError = -1;
constexpr int kSuccess = 0;
const char* const kPlugin = "cli_filter/lua";
const char* const kRequired[] = {"slurm_cli_setup_defaults", "slurm_cli_pre_submit", "slurm_cli_post_submit"};

struct SlurmNumber {
  const char* name;
  double value;
  unsigned releases;
};

constexpr SlurmNumber kSlurmNumbers[] = {
#include "cli_filter/lua/slurm_table.inc"
};

class LuaFilter;
// The one cli_filter/lua of the process (Slurm's plugin keeps its state in
// globals too); the Lua callbacks below reach it through this.
LuaFilter* g_filter = nullptr;

// A problem Slurm passes over in silence, reported with the running hook.
void reportLuaProblem(const char* code, const std::string& message, const std::string& file = {}, int line = 0) {
  Diagnostic d;
  d.severity = Severity::Warning;
  d.code = code;
  d.message = message;
  d.file = file;
  d.line = line;
  json::Object extra;
  if (HookScope::currentRef() >= 0) {
    extra.emplace_back("ref", HookScope::currentRef());
    extra.emplace_back("hook", HookScope::currentHook());
  }
  reportProblem(d, std::move(extra));
  noteFilterProblem();
}

class LuaFilter : public CliFilter {
 public:
  LuaFilter(const lua::Runtime& rt, std::string script, std::string clusterName, Command command,
            const SlurmVersion& version)
      : rt_(rt), script_(std::move(script)), clusterName_(std::move(clusterName)), command_(command),
        version_(version), release_(cliFilterRelease(version)) {
    g_filter = this;
  }
  ~LuaFilter() override {
    if (L_) rt_.close(L_);
    if (g_filter == this) g_filter = nullptr;
  }

  // init(): the first load must succeed.
  bool init() { return loadScript() == kSuccess && L_; }

  int setupDefaults(slurm_opt* opt, bool early) override {
    int rc = loadScript();
    if (rc != kSuccess) return rc;
    rt_.getGlobal(L_, "slurm_cli_setup_defaults");
    if (rt_.type(L_, -1) == lua::Nil) {
      rt_.pop(L_, 1);
      return rc;
    }
    pushOptions(opt, early);
    return callHook("cli_filter_p_setup_defaults", 1, true);
  }

  int preSubmit(slurm_opt* opt, int offset) override {
    int rc = loadScript();
    if (rc != kSuccess) return rc;
    rt_.getGlobal(L_, "slurm_cli_pre_submit");
    if (rt_.type(L_, -1) == lua::Nil) {
      rt_.pop(L_, 1);
      return rc;
    }
    pushOptions(opt, false);
    rt_.pushNumber(L_, offset);
    return callHook("cli_filter_p_pre_submit", 2, true);
  }

  void postSubmit(int offset, uint32_t jobid, uint32_t stepid) override {
    if (loadScript() != kSuccess) return;
    rt_.getGlobal(L_, "slurm_cli_post_submit");
    if (rt_.type(L_, -1) == lua::Nil) {
      rt_.pop(L_, 1);
      return;
    }
    rt_.pushNumber(L_, offset);
    rt_.pushNumber(L_, jobid);
    rt_.pushNumber(L_, stepid);
    callHook("cli_filter_p_post_submit", 3, false);
  }

  const lua::Runtime& rt() const { return rt_; }
  Command command() const { return command_; }
  std::map<int, std::string>& stored() { return stored_; }

 private:
  // lua_pcall of the function and arguments on the stack, and Slurm's rule
  // for what it returns.
  int callHook(const char* hook, int nargs, bool usesResult) {
    int rc = kSuccess;
    if (rt_.pcall(L_, nargs, 1) != 0) {
      std::string msg = rt_.toString(L_, -1) ? rt_.toString(L_, -1) : "(error object is not a string)";
      rt_.pop(L_, 1);
      slurmLog(LogLevel::Error, std::string(hook) + "/lua: " + script_ + ": " + msg);
      reportLuaProblem("LUA_ERROR", "the script raised an error, which Slurm logs and then treats as success: " + msg,
                       script_);
      return kSuccess;
    }
    if (rt_.isNumber(L_, -1)) {
      if (usesResult) rc = static_cast<int>(rt_.toNumber(L_, -1));
    } else {
      slurmLog(LogLevel::Info, std::string(hook) + "/lua: " + script_ + ": non-numeric return code");
      reportLuaProblem("LUA_NON_NUMERIC_RETURN",
                       std::string("the hook returned ") + rt_.typeName(L_, rt_.type(L_, -1)) +
                           ", not a number; Slurm counts that as success",
                       script_);
    }
    rt_.pop(L_, 1);
    return rc;
  }

  void pushOptions(slurm_opt* opt, bool early);

  // slurm_lua_loadscript: load when the file is newer than what is loaded.
  int loadScript();
  bool registerSlurmTable(lua_State* L);
  void checkArity(lua_State* L);

  const lua::Runtime& rt_;
  std::string script_;
  std::string clusterName_;
  Command command_;
  SlurmVersion version_;
  const CliFilterRelease& release_;
  lua_State* L_ = nullptr;
  time_t loadedMtime_ = 0;
  std::map<int, std::string> stored_;
};

// ---- the slurm table -------------------------------------------------

LogLevel levelOf(int level) {
  if (level >= 3) return LogLevel::Debug3;  // debug2..debug4 are below what is shown
  if (level == 2) return LogLevel::Debug;
  if (level == 1) return LogLevel::Verbose;
  return LogLevel::Info;
}

// slurm.log(level, message): the message is taken from the top, the level
// under it (so slurm.log("x") logs at info).
int luaLog(lua_State* L) {
  const lua::Runtime& rt = g_filter->rt();
  const char* msg = rt.toString(L, -1);
  std::string text = msg ? msg : "(null)";
  rt.pop(L, 1);
  int level = static_cast<int>(rt.toNumber(L, -1));
  rt.pop(L, 1);
  if (level > 4)
    pluginLog(LogLevel::Debug3, "lua: " + text);
  else
    pluginLog(levelOf(level), "lua: " + text);
  return 0;
}

int luaError(lua_State* L) {
  const char* msg = g_filter->rt().toString(L, -1);
  pluginLog(LogLevel::Error, std::string("lua: ") + (msg ? msg : "(null)"));
  return 0;
}

// time_str2mins: minutes, rounded up; -1 for no limit; NO_VAL (as an int,
// -2) for a string it cannot read.
int luaTimeStr2Mins(lua_State* L) {
  const lua::Runtime& rt = g_filter->rt();
  const char* text = rt.toString(L, -1);
  auto secs = text ? timeStringSeconds(text) : std::nullopt;
  double minutes = !secs ? -2 : *secs < 0 ? -1 : static_cast<double>((*secs + 59) / 60);
  rt.pushNumber(L, minutes);
  return 1;
}

// 24.11: get_qos_priority reads slurmctld's association manager; in srun,
// sbatch and salloc there is no QOS list, and the answer is 0.
int luaQosPriority(lua_State* L) {
  g_filter->rt().pushNumber(L, 0);
  return 1;
}

slurm_opt* optionsOf(lua_State* L, int index) {
  const lua::Runtime& rt = g_filter->rt();
  if (!rt.getMetatable(L, index)) return nullptr;
  rt.getField(L, -1, "_opt");
  auto* opt = static_cast<slurm_opt*>(rt.toUserdata(L, -1));
  rt.pop(L, 2);
  return opt;
}

int luaJsonCliOptions(lua_State* L) {
  const lua::Runtime& rt = g_filter->rt();
  slurm_opt* opt = optionsOf(L, -1);
  if (!opt) {
    slurmLog(LogLevel::Error, "json_cli_options requires one argument - options structure");
    return 0;
  }
  rt.pushString(L, jsonSetOptions(opt->store).c_str());
  return 1;
}

int luaJsonEnv(lua_State* L) {
  g_filter->rt().pushString(L, jsonEnvironment().c_str());
  return 1;
}

int luaCliStore(lua_State* L) {
  const lua::Runtime& rt = g_filter->rt();
  const char* data = rt.checkString(L, -1);  // may raise: nothing to clean up yet
  int key = static_cast<int>(rt.toNumber(L, -2));
  g_filter->stored()[key] = data;
  return 0;
}

int luaCliRetrieve(lua_State* L) {
  const lua::Runtime& rt = g_filter->rt();
  int key = static_cast<int>(rt.toNumber(L, -1));
  auto it = g_filter->stored().find(key);
  if (it == g_filter->stored().end())
    rt.pushNil(L);
  else
    rt.pushString(L, it->second.c_str());
  return 1;
}

bool LuaFilter::registerSlurmTable(lua_State* L) {
  rt_.newTable(L);
  auto fn = [&](const char* name, lua::CFunction f) {
    rt_.pushFunction(L, f);
    rt_.setField(L, -2, name);
  };
  fn("log", luaLog);
  fn("error", luaError);
  fn("time_str2mins", luaTimeStr2Mins);
  if (release_.luaQosPriority) fn("get_qos_priority", luaQosPriority);
  // The log_* helpers are Lua code, as in Slurm: format, then log.
  const char* unpack = rt_.versionNumber() == 501 ? "unpack" : "table.unpack";
  const struct {
    const char* name;
    const char* call;
  } helpers[] = {{"log_error", "slurm.error ("},   {"log_info", "slurm.log (0, "},  {"log_verbose", "slurm.log (1, "},
                 {"log_debug", "slurm.log (2, "},  {"log_debug2", "slurm.log (3, "}, {"log_debug3", "slurm.log (4, "},
                 {"log_debug4", "slurm.log (5, "}};
  for (const auto& h : helpers) {
    std::string code = std::string(h.call) + "string.format(" + unpack + "({...})))";
    if (rt_.loadBuffer(L, code.c_str(), code.size(), code.c_str()) != 0) return false;
    rt_.setField(L, -2, h.name);
  }
  const unsigned bit = releaseBit(version_);
  for (const auto& n : kSlurmNumbers) {
    if (!(n.releases & bit)) continue;
    rt_.pushNumber(L, n.value);
    rt_.setField(L, -2, n.name);
  }
  if (clusterName_.empty())
    rt_.pushNil(L);
  else
    rt_.pushString(L, clusterName_.c_str());
  rt_.setField(L, -2, "CLUSTER_NAME");
  // cli_filter/lua's own additions.
  fn("json_cli_options", luaJsonCliOptions);
  fn("json_env", luaJsonEnv);
  fn("cli_store", luaCliStore);
  fn("cli_retrieve", luaCliRetrieve);
  rt_.setGlobal(L, "slurm");
  return true;
}

// ---- the options proxy ---------------------------------------------

void pushStringArray(const lua::Runtime& rt, lua_State* L, const std::vector<std::string>& items) {
  rt.newTable(L);
  for (size_t i = 0; i < items.size(); i++) {
    rt.pushNumber(L, static_cast<double>(i + 1));
    rt.pushString(L, items[i].c_str());
    rt.setTable(L, -3);
  }
}

// options.spank: {plugin = {option = value | "set" | nil}}, from the SPANK
// options of the command (spank_option_get's answers).
void pushSpankTable(const lua::Runtime& rt, lua_State* L, const OptionStore& store) {
  rt.newTable(L);
  if (!store.spank) return;
  std::vector<std::string> plugins;
  for (const auto& o : store.spank->options().entries())
    if (o.plugin && o.plugin->name) {
      bool seen = false;
      for (const auto& p : plugins) seen = seen || p == o.plugin->name;
      if (!seen) plugins.emplace_back(o.plugin->name);
    }
  for (const auto& plugin : plugins) {
    rt.newTable(L);
    for (const auto& o : store.spank->options().entries()) {
      if (o.disabled || !o.plugin || !o.plugin->name || plugin != o.plugin->name) continue;
      if (o.set && !o.optarg)
        rt.pushString(L, "set");
      else if (!o.set && !o.hasArg)
        rt.pushString(L, "unset");
      else if (o.optarg)
        rt.pushString(L, o.optarg->empty() ? "set" : o.optarg->c_str());
      else
        rt.pushNil(L);
      rt.setField(L, -2, o.name.c_str());
    }
    rt.setField(L, -2, plugin.c_str());
  }
}

int luaOptionIndex(lua_State* L) {
  const lua::Runtime& rt = g_filter->rt();
  const char* name = rt.checkString(L, -1);  // may raise
  slurm_opt* opt = optionsOf(L, -2);
  if (!opt) {
    rt.pushNil(L);
    return 1;
  }
  OptionStore& store = opt->store;
  if (!std::strcmp(name, "argv")) {
    pushStringArray(rt, L, store.argv);
  } else if (!std::strcmp(name, "spank")) {
    pushSpankTable(rt, L, store);
  } else if (!std::strcmp(name, "spank_job_env")) {
    pushStringArray(rt, L, store.spank ? store.spank->jobControlEnv().entries() : std::vector<std::string>{});
  } else if (!std::strcmp(name, "type")) {
    rt.pushString(L, commandName(store.command()));
  } else {
    const BuiltinOption* o = store.find(name);
    OptionValue v = o ? store.get(*o) : std::nullopt;
    if (v)
      rt.pushString(L, v->c_str());
    else
      rt.pushNil(L);
  }
  return 1;
}

int luaOptionNewIndex(lua_State* L) {
  const lua::Runtime& rt = g_filter->rt();
  // luaL_checkstring on the key and the value: numbers become strings, a
  // boolean, a table or nil raises -- before anything else happens.
  const char* name = rt.checkString(L, -2);
  const char* value = rt.checkString(L, -1);
  if (!rt.getMetatable(L, -3)) return 0;
  rt.getField(L, -1, "_opt");
  auto* opt = static_cast<slurm_opt*>(rt.toUserdata(L, -1));
  rt.getField(L, -2, "_early");
  bool early = rt.toBoolean(L, -1);
  rt.pop(L, 3);
  if (!opt) return 0;
  const BuiltinOption* o = opt->store.find(name);
  int rc = o ? opt->store.set(*o, value, early) : kError;
  if (rc != kSuccess) {
    std::string why = !o ? "no option of that name"
                         : !(o->commands & commandBit(opt->store.command()))
                               ? std::string("not an option of ") + commandName(opt->store.command())
                               : "the value was refused";
    reportLuaProblem("LUA_OPTION_NOT_SET", std::string("options[\"") + name + "\"] = \"" + value +
                                               "\" did not set anything (" + why + "); Slurm ignores that silently");
  }
  return 0;
}

void LuaFilter::pushOptions(slurm_opt* opt, bool early) {
  rt_.newTable(L_);
  rt_.newTable(L_);  // its metatable
  rt_.pushFunction(L_, luaOptionIndex);
  rt_.setField(L_, -2, "__index");
  rt_.pushFunction(L_, luaOptionNewIndex);
  rt_.setField(L_, -2, "__newindex");
  rt_.pushLightUserdata(L_, opt);
  rt_.setField(L_, -2, "_opt");
  rt_.pushBoolean(L_, early);
  rt_.setField(L_, -2, "_early");
  rt_.setMetatable(L_, -2);
}

// ---- loading -------------------------------------------------------

// How many parameters the function declares, read from the script at the
// line Lua says the function starts on; -1 when that cannot be told.
int declaredParameters(const std::string& script, int line) {
  std::ifstream in(script);
  std::string text, l;
  for (int n = 1; std::getline(in, l); n++) {
    if (n < line) continue;
    text += l + "\n";
    if (n >= line + 10) break;
  }
  static const std::regex header(R"(function\b[^(]*\(([^)]*)\))");
  std::smatch m;
  if (!std::regex_search(text, m, header)) return -1;
  std::string params = m[1];
  if (params.find("...") != std::string::npos) return -1;
  int count = 0;
  bool any = false;
  for (char c : params) {
    if (c == ',') count++;
    if (!std::isspace(static_cast<unsigned char>(c))) any = true;
  }
  return any ? count + 1 : 0;
}

void LuaFilter::checkArity(lua_State* L) {
  struct Expect {
    const char* function;
    int passed;
    const char* advice;
  } expects[] = {
      {"slurm_cli_setup_defaults", 1,
       "Slurm passes only (options); a declared early parameter is always nil -- the flag is "
       "getmetatable(options)._early"},
      {"slurm_cli_pre_submit", 2, "Slurm passes (options, offset)"},
      {"slurm_cli_post_submit", 3, "Slurm passes (offset, jobid, stepid)"},
  };
  static const char kLineOf[] = "local f = ... return debug.getinfo(f, 'S').linedefined";
  for (const auto& e : expects) {
    if (rt_.loadBuffer(L, kLineOf, sizeof kLineOf - 1, "=plugstack") != 0) {
      rt_.pop(L, 1);
      return;
    }
    rt_.getGlobal(L, e.function);
    if (rt_.pcall(L, 1, 1) != 0) {
      rt_.pop(L, 1);
      continue;
    }
    int line = static_cast<int>(rt_.toNumber(L, -1));
    rt_.pop(L, 1);
    int declared = declaredParameters(script_, line);
    if (declared > e.passed)
      reportLuaProblem("LUA_ARITY", std::string(e.function) + " declares " + std::to_string(declared) +
                                        " parameters: " + e.advice,
                       script_, line);
  }
}

int LuaFilter::loadScript() {
  struct stat st;
  if (stat(script_.c_str(), &st) != 0) {
    std::string why = std::strerror(errno);
    if (L_) {
      slurmLog(LogLevel::Error, std::string(kPlugin) + ": Unable to stat " + script_ + ", using old script: " + why);
      return kSuccess;
    }
    slurmLog(LogLevel::Error, std::string(kPlugin) + ": Unable to stat " + script_ + ": " + why);
    return kError;
  }
  if (st.st_mtime <= loadedMtime_) return kSuccess;
  lua_State* fresh = rt_.newState();
  rt_.openLibs(fresh);
  auto fail = [&](const std::string& why) {
    if (L_) {
      slurmLog(LogLevel::Error, std::string(kPlugin) + ": " + script_ + ": " + why + ", using previous script");
      rt_.close(fresh);
      return kSuccess;
    }
    slurmLog(LogLevel::Error, std::string(kPlugin) + ": " + script_ + ": " + why);
    rt_.close(fresh);
    return kError;
  };
  if (rt_.loadFile(fresh, script_.c_str()) != 0) return fail(rt_.toString(fresh, -1));
  registerSlurmTable(fresh);
  if (rt_.pcall(fresh, 0, 1) != 0) return fail(rt_.toString(fresh, -1));
  int rc = static_cast<int>(rt_.toNumber(fresh, -1));
  rt_.pop(fresh, 1);
  if (rc != kSuccess) {
    std::string msg = "returned " + std::to_string(rc) + " on load";
    if (L_) {
      slurmLog(LogLevel::Error, std::string(kPlugin) + ": " + script_ + ": " + msg + ", using previous script");
      rt_.close(fresh);
      return kSuccess;
    }
    slurmLog(LogLevel::Error, std::string(kPlugin) + ": " + script_ + ": " + msg);
    rt_.close(fresh);
    return kError;
  }
  bool complete = true;
  for (const char* f : kRequired) {
    rt_.getGlobal(fresh, f);
    bool isFunction = rt_.type(fresh, -1) == lua::Function;
    rt_.pop(fresh, 1);
    if (!isFunction) {
      slurmLog(LogLevel::Error, std::string(kPlugin) + ": " + script_ + ": missing required function " + f);
      complete = false;
    }
  }
  if (!complete) {
    if (L_) {
      slurmLog(LogLevel::Error,
               std::string(kPlugin) + ": " + script_ + ": required function(s) not present, using previous script");
      rt_.close(fresh);
      return kSuccess;
    }
    rt_.close(fresh);
    return kError;
  }
  checkArity(fresh);
  loadedMtime_ = st.st_mtime;
  if (L_) rt_.close(L_);
  L_ = fresh;
  return kSuccess;
}

}  // namespace

BuiltinFilterLoad loadLuaFilter(const CliFilterSettings& settings, const SlurmVersion& version, Command command) {
  BuiltinFilterLoad out;
  std::string dir = settings.slurmConf.substr(0, settings.slurmConf.rfind('/') + 1);
  out.path = dir + "cli_filter.lua";
  std::string error;
  const lua::Runtime* rt = lua::Runtime::open(settings.luaVersion, &error);
  if (!rt) {
    slurmLog(LogLevel::Error, "Failed to open liblua.so: " + error);
    out.err = ESLURM_PLUGIN_INIT_FAILED;
    out.code = "LUA_NOT_INSTALLED";
    out.detail = error;
    return out;
  }
  auto filter = std::make_unique<LuaFilter>(*rt, out.path, settings.clusterName, command, version);
  if (!filter->init()) {
    out.err = ESLURM_PLUGIN_INIT_FAILED;
    out.code = "LUA_SCRIPT_FAILED";
    out.detail = "init() failed: " + out.path + " did not load (Slurm's lines above say why)";
    return out;
  }
  out.filter = std::move(filter);
  return out;
}

}  // namespace plugstack
