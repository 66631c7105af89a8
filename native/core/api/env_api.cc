// Slurm's environment-array helpers (env.h), which mpi plugins (and any
// plugin built in Slurm's tree) call on the arrays they are handed: the
// arrays and their strings are xmalloc blocks, the array's allocation is its
// only capacity record, and it grows by one slot per new name, exactly as in
// Slurm, so that a plugin's xfree/xrealloc of them works. Each function is
// exported under its plain name and with the slurm_ prefix (setenvf as
// slurm_setenvpf), the names Slurm's library gives them.
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "api/xmalloc_internal.h"
#include "common/slurm_log.h"
#include "common/visibility.h"

extern "C" {
void* slurm_xrecalloc(void** item, size_t count, size_t size, bool clear, bool tryOnly, const char*, int,
                      const char*);
void slurm_xfree(void** item);
size_t slurm_xsize(void* item);
}

namespace {

// Slurm's limits: the formatting buffer, and the longest NAME=value.
constexpr size_t kBufSize = 256 * 1024;
constexpr size_t kMaxEnvStrlen = 32 * 4096;
// env_array_merge's name buffer.
constexpr size_t kMergeNameMax = 256;

// The entry called name, or the terminating NULL slot.
char** findName(char** env, const char* name) {
  char** ep = env;
  while (*ep) {
    size_t n = 0;
    while ((*ep)[n] == name[n] && name[n] != '\0' && (*ep)[n] != '\0') n++;
    if (name[n] == '\0' && (*ep)[n] == '=') break;
    ep++;
  }
  return ep;
}

// One more slot, NULL last; the first NULL slot after the last entry. The
// backwards walk stops at the xmalloc size word in front of an array that
// holds nothing, as Slurm's does.
char** extend(char*** envp) {
  size_t count = slurm_xsize(*envp) / sizeof(char*) + 1;
  slurm_xrecalloc(reinterpret_cast<void**>(envp), count, sizeof(char*), false, false, __FILE__, __LINE__,
                  __func__);
  (*envp)[count - 1] = nullptr;
  char** ep = &(*envp)[count - 2];
  while (*ep == nullptr) --ep;
  return ep + 1;
}

char* joined(const char* name, const char* value) {
  std::string s = std::string(name) + "=" + (value ? value : "(null)");
  return plugstack::api::xstrdup(s.c_str());
}

int update(char*** arrayPtr, const char* name, const char* value, bool overwrite) {
  if (!arrayPtr) return 0;
  if (!*arrayPtr) *arrayPtr = static_cast<char**>(plugstack::api::xcalloc(1, sizeof(char*), true));
  char** ep = findName(*arrayPtr, name);
  if (*ep) {
    if (!overwrite) return 0;
    slurm_xfree(reinterpret_cast<void**>(ep));
  } else {
    ep = extend(arrayPtr);
  }
  *ep = joined(name, value);
  return 1;
}

std::string vformat(const char* fmt, va_list ap) {
  std::string out(kBufSize, '\0');
  vsnprintf(out.data(), kBufSize, fmt, ap);
  out.resize(std::strlen(out.c_str()));
  return out;
}

// NAME=value split as env_array_merge does: false for no '=', a name of
// kMergeNameMax bytes or more, a value of kBufSize bytes or more.
bool split(const char* entry, std::string* name, std::string* value) {
  const char* eq = std::strchr(entry, '=');
  if (!eq) return false;
  size_t nameLen = static_cast<size_t>(eq - entry);
  if (nameLen + 1 > kMergeNameMax) return false;
  size_t valueLen = std::strlen(eq + 1);
  if (valueLen + 1 > kBufSize) return false;
  name->assign(entry, nameLen);
  value->assign(eq + 1, valueLen);
  return true;
}

}  // namespace

extern "C" {

PLUGSTACK_EXPORT int envcount(char** env) {
  int n = 0;
  while (env && env[n]) n++;
  return n;
}

PLUGSTACK_EXPORT char* getenvp(char** env, const char* name) {
  if (!name || !env || !env[0]) return nullptr;
  char** ep = findName(env, name);
  return *ep ? *ep + std::strlen(name) + 1 : nullptr;
}

PLUGSTACK_EXPORT void unsetenvp(char** env, const char* name) {
  if (!env) return;
  char** ep = env;
  while ((ep = findName(ep, name)) && *ep) {
    char** dp = ep;
    slurm_xfree(reinterpret_cast<void**>(ep));
    do dp[0] = dp[1];
    while (*dp++);
    ++ep;
  }
}

PLUGSTACK_EXPORT char** env_array_create(void) {
  return static_cast<char**>(plugstack::api::xcalloc(1, sizeof(char*), true));
}

PLUGSTACK_EXPORT int env_array_overwrite(char*** arrayPtr, const char* name, const char* value) {
  return update(arrayPtr, name, value, true);
}

PLUGSTACK_EXPORT int env_array_append(char*** arrayPtr, const char* name, const char* value) {
  return update(arrayPtr, name, value, false);
}

PLUGSTACK_EXPORT int env_array_overwrite_fmt(char*** arrayPtr, const char* name, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string value = vformat(fmt, ap);
  va_end(ap);
  return env_array_overwrite(arrayPtr, name, value.c_str());
}

PLUGSTACK_EXPORT int env_array_append_fmt(char*** arrayPtr, const char* name, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string value = vformat(fmt, ap);
  va_end(ap);
  return env_array_append(arrayPtr, name, value.c_str());
}

PLUGSTACK_EXPORT int env_array_overwrite_het_fmt(char*** arrayPtr, const char* name, int hetJobOffset,
                                                 const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string value = vformat(fmt, ap);
  va_end(ap);
  if (hetJobOffset == -1) return env_array_overwrite(arrayPtr, name, value.c_str());
  std::string suffix = std::to_string(hetJobOffset);
  env_array_overwrite(arrayPtr, (std::string(name) + "_PACK_GROUP_" + suffix).c_str(), value.c_str());
  return env_array_overwrite(arrayPtr, (std::string(name) + "_HET_GROUP_" + suffix).c_str(), value.c_str());
}

PLUGSTACK_EXPORT void env_array_merge(char*** dest, const char** src) {
  if (!src) return;
  std::string name, value;
  for (const char** p = src; *p; p++)
    if (split(*p, &name, &value)) env_array_overwrite(dest, name.c_str(), value.c_str());
}

PLUGSTACK_EXPORT void env_array_merge_slurm(char*** dest, const char** src) {
  if (!src) return;
  std::string name, value;
  for (const char** p = src; *p; p++)
    if (split(*p, &name, &value) && name.compare(0, 5, "SLURM") == 0)
      env_array_overwrite(dest, name.c_str(), value.c_str());
}

PLUGSTACK_EXPORT char** env_array_copy(const char** array) {
  char** out = nullptr;
  env_array_merge(&out, array);
  return out;
}

PLUGSTACK_EXPORT void env_array_free(char** env) {
  if (!env) return;
  for (char** p = env; *p; p++) slurm_xfree(reinterpret_cast<void**>(p));
  slurm_xfree(reinterpret_cast<void**>(&env));
}

PLUGSTACK_EXPORT int setenvf(char*** envp, const char* name, const char* fmt, ...) {
  if (!name || name[0] == '\0') return EINVAL;
  va_list ap;
  va_start(ap, fmt);
  std::string value = vformat(fmt, ap);
  va_end(ap);
  if (std::strlen(name) + value.size() + 2 >= kMaxEnvStrlen) {
    plugstack::slurmLog(plugstack::LogLevel::Error, std::string("environment variable ") + name + " is too long");
    return ENOMEM;
  }
  if (envp && *envp) return env_array_overwrite(envp, name, value.c_str()) == 1 ? 0 : 1;
  return setenv(name, value.c_str(), 1);
}

}  // extern "C"

// The slurm_ names of Slurm's library (slurm_xlator.h), as aliases.
#define PLUGSTACK_ALIAS(target) __attribute__((alias(#target), visibility("default")))

extern "C" {
char* slurm_getenvp(char**, const char*) PLUGSTACK_ALIAS(getenvp);
void slurm_unsetenvp(char**, const char*) PLUGSTACK_ALIAS(unsetenvp);
int slurm_setenvpf(char***, const char*, const char*, ...) PLUGSTACK_ALIAS(setenvf);
char** slurm_env_array_create(void) PLUGSTACK_ALIAS(env_array_create);
int slurm_env_array_overwrite(char***, const char*, const char*) PLUGSTACK_ALIAS(env_array_overwrite);
int slurm_env_array_append(char***, const char*, const char*) PLUGSTACK_ALIAS(env_array_append);
int slurm_env_array_overwrite_fmt(char***, const char*, const char*, ...) PLUGSTACK_ALIAS(env_array_overwrite_fmt);
int slurm_env_array_append_fmt(char***, const char*, const char*, ...) PLUGSTACK_ALIAS(env_array_append_fmt);
int slurm_env_array_overwrite_het_fmt(char***, const char*, int, const char*, ...)
    PLUGSTACK_ALIAS(env_array_overwrite_het_fmt);
void slurm_env_array_merge(char***, const char**) PLUGSTACK_ALIAS(env_array_merge);
char** slurm_env_array_copy(const char**) PLUGSTACK_ALIAS(env_array_copy);
void slurm_env_array_free(char**) PLUGSTACK_ALIAS(env_array_free);
}
