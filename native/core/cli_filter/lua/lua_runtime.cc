#include "cli_filter/lua/lua_runtime.h"

#include <dlfcn.h>

#include <map>
#include <memory>

namespace plugstack::lua {

namespace {

// Lua 5.1 keeps the globals in a pseudo-index; 5.2 and later have
// lua_getglobal and lua_setglobal as functions.
constexpr int kGlobalsIndex51 = -10002;

struct Candidate {
  const char* version;
  int number;
  const char* package;  // Debian's package of the library
  const char* files[5];
};

// The names Slurm's slurm_lua_init tries, for each version.
constexpr Candidate kCandidates[] = {
    {"5.1", 501, "liblua5.1-0", {"liblua5.1.so.0", "liblua5.1.so", "liblua-5.1.so", "liblua.so.5.1", nullptr}},
    {"5.3", 503, "liblua5.3-0", {"liblua5.3.so.0", "liblua5.3.so", "liblua-5.3.so", "liblua.so.5.3", nullptr}},
    {"5.4", 504, "liblua5.4-0", {"liblua5.4.so.0", "liblua5.4.so", "liblua-5.4.so", "liblua.so.5.4", nullptr}},
};

template <typename F>
bool bind(void* handle, const char* name, F* out, std::string* missing) {
  *out = reinterpret_cast<F>(dlsym(handle, name));
  if (!*out && missing->empty()) *missing = name;
  return *out != nullptr;
}

}  // namespace

bool Runtime::resolve(void* h, std::string* missing) {
  bind(h, "luaL_newstate", &newstate_, missing);
  bind(h, "luaL_openlibs", &openlibs_, missing);
  bind(h, "lua_close", &close_, missing);
  if (versionNumber_ == 501) {
    bind(h, "luaL_loadfile", &loadfile51_, missing);
    bind(h, "luaL_loadbuffer", &loadbuffer51_, missing);
    bind(h, "lua_pcall", &pcall51_, missing);
    bind(h, "lua_tonumber", &tonumber51_, missing);
  } else {
    bind(h, "luaL_loadfilex", &loadfilex_, missing);
    bind(h, "luaL_loadbufferx", &loadbufferx_, missing);
    bind(h, "lua_pcallk", &pcallk_, missing);
    bind(h, "lua_tonumberx", &tonumberx_, missing);
    bind(h, "lua_getglobal", &getglobal_, missing);
    bind(h, "lua_setglobal", &setglobal_, missing);
  }
  bind(h, "lua_gettop", &gettop_, missing);
  bind(h, "lua_settop", &settop_, missing);
  bind(h, "lua_pushvalue", &pushvalue_, missing);
  bind(h, "lua_type", &type_, missing);
  bind(h, "lua_typename", &typename_, missing);
  bind(h, "lua_tolstring", &tolstring_, missing);
  bind(h, "lua_isnumber", &isnumber_, missing);
  bind(h, "lua_toboolean", &toboolean_, missing);
  bind(h, "lua_touserdata", &touserdata_, missing);
  bind(h, "lua_pushnil", &pushnil_, missing);
  bind(h, "lua_pushnumber", &pushnumber_, missing);
  bind(h, "lua_pushstring", &pushstring_, missing);
  bind(h, "lua_pushboolean", &pushboolean_, missing);
  bind(h, "lua_pushcclosure", &pushcclosure_, missing);
  bind(h, "lua_pushlightuserdata", &pushlightuserdata_, missing);
  bind(h, "lua_createtable", &createtable_, missing);
  bind(h, "lua_getfield", &getfield_, missing);
  bind(h, "lua_setfield", &setfield_, missing);
  bind(h, "lua_settable", &settable_, missing);
  bind(h, "lua_setmetatable", &setmetatable_, missing);
  bind(h, "lua_getmetatable", &getmetatable_, missing);
  bind(h, "lua_next", &next_, missing);
  bind(h, "luaL_checklstring", &checklstring_, missing);
  bind(h, "luaL_error", &error_, missing);
  return missing->empty();
}

const Runtime* Runtime::open(const std::string& version, std::string* error) {
  static std::map<std::string, std::unique_ptr<Runtime>> opened;
  auto it = opened.find(version);
  if (it != opened.end()) return it->second.get();
  const Candidate* c = nullptr;
  for (const auto& k : kCandidates)
    if (version == k.version) c = &k;
  if (!c) {
    *error = "Lua " + version + " is not one plugstack runs (5.1, 5.3 or 5.4)";
    return nullptr;
  }
  void* handle = nullptr;
  const char* file = nullptr;
  for (const char* const* f = c->files; *f && !handle; f++) {
    handle = dlopen(*f, RTLD_NOW | RTLD_GLOBAL);
    file = *f;
  }
  if (!handle) {
    *error = std::string("Lua ") + c->version + " is not installed (no " + c->files[0] +
             "); install it with: apt-get install " + c->package;
    return nullptr;
  }
  std::unique_ptr<Runtime> rt(new Runtime());
  rt->version_ = c->version;
  rt->versionNumber_ = c->number;
  rt->library_ = file;
  std::string missing;
  if (!rt->resolve(handle, &missing)) {
    *error = std::string(file) + " lacks " + missing + ": not a Lua " + c->version + " library";
    return nullptr;
  }
  return (opened[version] = std::move(rt)).get();
}

int Runtime::loadFile(lua_State* L, const char* path) const {
  return loadfile51_ ? loadfile51_(L, path) : loadfilex_(L, path, nullptr);
}

int Runtime::loadBuffer(lua_State* L, const char* text, size_t size, const char* name) const {
  return loadbuffer51_ ? loadbuffer51_(L, text, size, name) : loadbufferx_(L, text, size, name, nullptr);
}

int Runtime::pcall(lua_State* L, int nargs, int nresults) const {
  return pcall51_ ? pcall51_(L, nargs, nresults, 0) : pcallk_(L, nargs, nresults, 0, 0, nullptr);
}

double Runtime::toNumber(lua_State* L, int index) const {
  return tonumber51_ ? tonumber51_(L, index) : tonumberx_(L, index, nullptr);
}

void Runtime::getGlobal(lua_State* L, const char* name) const {
  if (getglobal_)
    getglobal_(L, name);
  else
    getfield_(L, kGlobalsIndex51, name);
}

void Runtime::setGlobal(lua_State* L, const char* name) const {
  if (setglobal_)
    setglobal_(L, name);
  else
    setfield_(L, kGlobalsIndex51, name);
}

}  // namespace plugstack::lua
