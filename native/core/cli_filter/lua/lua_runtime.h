// A real Lua, opened at run time: liblua5.1, 5.3 or 5.4 of the machine,
// loaded with dlopen(RTLD_NOW | RTLD_GLOBAL) as Slurm's slurm_lua_init
// loads it (so C modules a script requires find the Lua API), and its C
// API behind one interface whatever the version: the calls that became
// macros or gained arguments in 5.2 (lua_pcall, lua_tonumber, luaL_loadfile,
// the globals table) are bridged here, and nothing else is emulated.
//
// Why dlopen and not a bundled Lua: a site's cli_filter.lua runs under the
// Lua its Slurm links (Debian's 22.05 and 24.11: 5.1), and scripts break
// differently per version; the system's library is that Lua, byte for byte.
#pragma once

#include <cstddef>
#include <string>

struct lua_State;

namespace plugstack::lua {

using CFunction = int (*)(lua_State*);

enum Type { Nil = 0, Boolean = 1, LightUserdata = 2, Number = 3, String = 4, Table = 5, Function = 6 };

class Runtime {
 public:
  // The Lua of that version ("5.1", "5.3", "5.4"), opened once per process;
  // nullptr with *error saying what to install when it is not there.
  static const Runtime* open(const std::string& version, std::string* error);

  int versionNumber() const { return versionNumber_; }  // 501, 503, 504
  const std::string& version() const { return version_; }
  const std::string& library() const { return library_; }

  lua_State* newState() const { return newstate_(); }
  void openLibs(lua_State* L) const { openlibs_(L); }
  void close(lua_State* L) const { close_(L); }

  // Non-zero on error, with the message on the stack.
  int loadFile(lua_State* L, const char* path) const;
  int loadBuffer(lua_State* L, const char* text, size_t size, const char* name) const;
  int pcall(lua_State* L, int nargs, int nresults) const;

  void getGlobal(lua_State* L, const char* name) const;
  void setGlobal(lua_State* L, const char* name) const;

  int getTop(lua_State* L) const { return gettop_(L); }
  void setTop(lua_State* L, int index) const { settop_(L, index); }
  void pop(lua_State* L, int n) const { settop_(L, -n - 1); }
  void pushValue(lua_State* L, int index) const { pushvalue_(L, index); }
  int type(lua_State* L, int index) const { return type_(L, index); }
  const char* typeName(lua_State* L, int t) const { return typename_(L, t); }

  const char* toString(lua_State* L, int index) const { return tolstring_(L, index, nullptr); }
  double toNumber(lua_State* L, int index) const;
  bool isNumber(lua_State* L, int index) const { return isnumber_(L, index) != 0; }
  bool toBoolean(lua_State* L, int index) const { return toboolean_(L, index) != 0; }
  void* toUserdata(lua_State* L, int index) const { return touserdata_(L, index); }

  void pushNil(lua_State* L) const { pushnil_(L); }
  void pushNumber(lua_State* L, double n) const { pushnumber_(L, n); }
  void pushString(lua_State* L, const char* s) const { pushstring_(L, s); }
  void pushBoolean(lua_State* L, bool b) const { pushboolean_(L, b ? 1 : 0); }
  void pushFunction(lua_State* L, CFunction f) const { pushcclosure_(L, f, 0); }
  void pushLightUserdata(lua_State* L, void* p) const { pushlightuserdata_(L, p); }

  void newTable(lua_State* L) const { createtable_(L, 0, 0); }
  void getField(lua_State* L, int index, const char* key) const { getfield_(L, index, key); }
  void setField(lua_State* L, int index, const char* key) const { setfield_(L, index, key); }
  void setTable(lua_State* L, int index) const { settable_(L, index); }
  int setMetatable(lua_State* L, int index) const { return setmetatable_(L, index); }
  int getMetatable(lua_State* L, int index) const { return getmetatable_(L, index); }
  int next(lua_State* L, int index) const { return next_(L, index); }

  // luaL_checklstring: raises a Lua error (does not return) when not a string.
  const char* checkString(lua_State* L, int arg) const { return checklstring_(L, arg, nullptr); }
  // Raises msg as a Lua error; does not return.
  int raise(lua_State* L, const char* msg) const { return error_(L, "%s", msg); }

 private:
  Runtime() = default;
  bool resolve(void* handle, std::string* missing);

  std::string version_, library_;
  int versionNumber_ = 0;

  lua_State* (*newstate_)() = nullptr;
  void (*openlibs_)(lua_State*) = nullptr;
  void (*close_)(lua_State*) = nullptr;
  int (*loadfile51_)(lua_State*, const char*) = nullptr;
  int (*loadfilex_)(lua_State*, const char*, const char*) = nullptr;
  int (*loadbuffer51_)(lua_State*, const char*, size_t, const char*) = nullptr;
  int (*loadbufferx_)(lua_State*, const char*, size_t, const char*, const char*) = nullptr;
  int (*pcall51_)(lua_State*, int, int, int) = nullptr;
  int (*pcallk_)(lua_State*, int, int, int, ptrdiff_t, void*) = nullptr;
  void (*getglobal_)(lua_State*, const char*) = nullptr;
  void (*setglobal_)(lua_State*, const char*) = nullptr;
  int (*gettop_)(lua_State*) = nullptr;
  void (*settop_)(lua_State*, int) = nullptr;
  void (*pushvalue_)(lua_State*, int) = nullptr;
  int (*type_)(lua_State*, int) = nullptr;
  const char* (*typename_)(lua_State*, int) = nullptr;
  const char* (*tolstring_)(lua_State*, int, size_t*) = nullptr;
  double (*tonumber51_)(lua_State*, int) = nullptr;
  double (*tonumberx_)(lua_State*, int, int*) = nullptr;
  int (*isnumber_)(lua_State*, int) = nullptr;
  int (*toboolean_)(lua_State*, int) = nullptr;
  void* (*touserdata_)(lua_State*, int) = nullptr;
  void (*pushnil_)(lua_State*) = nullptr;
  void (*pushnumber_)(lua_State*, double) = nullptr;
  void (*pushstring_)(lua_State*, const char*) = nullptr;
  void (*pushboolean_)(lua_State*, int) = nullptr;
  void (*pushcclosure_)(lua_State*, CFunction, int) = nullptr;
  void (*pushlightuserdata_)(lua_State*, void*) = nullptr;
  void (*createtable_)(lua_State*, int, int) = nullptr;
  void (*getfield_)(lua_State*, int, const char*) = nullptr;
  void (*setfield_)(lua_State*, int, const char*) = nullptr;
  void (*settable_)(lua_State*, int) = nullptr;
  int (*setmetatable_)(lua_State*, int) = nullptr;
  int (*getmetatable_)(lua_State*, int) = nullptr;
  int (*next_)(lua_State*, int) = nullptr;
  const char* (*checklstring_)(lua_State*, int, size_t*) = nullptr;
  int (*error_)(lua_State*, const char*, ...) = nullptr;
};

}  // namespace plugstack::lua
