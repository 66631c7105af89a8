// Slurm's configuration-table functions (parse_config.h's s_p_*), which mpi
// plugins call in their conf_options, conf_set and conf_get hooks, exported
// under their own names and the slurm_ names libslurm gives them. The
// tables themselves are config/sp_table.h's.
#include <cerrno>
#include <cstring>

#include "common/slurm_log.h"
#include "common/visibility.h"
#include "config/sp_table.h"

extern "C" {
void* slurm_xrecalloc(void** item, size_t count, size_t size, bool clear, bool tryOnly, const char*, int,
                      const char*);
char* slurm_xstrdup(const char* text);
}

namespace sp = plugstack::sp;

namespace {

// _get_check: the value of key when it has one of that type; Slurm's
// messages for an unknown key or the wrong type.
const sp::Value* typed(int type, const char* key, const s_p_hashtbl* table) {
  if (!table) return nullptr;
  const sp::Value* v = sp::lookup(table, key);
  if (!v) {
    plugstack::slurmLog(plugstack::LogLevel::Error, std::string("Invalid key \"") + (key ? key : "(null)") + "\"");
    return nullptr;
  }
  if (v->type != type) {
    plugstack::slurmLog(plugstack::LogLevel::Error, std::string("Key \"") + key + "\" is not typed correctly");
    return nullptr;
  }
  return v->count ? v : nullptr;
}

template <typename T>
int getNumber(T* out, int type, const char* key, const s_p_hashtbl* table) {
  const sp::Value* v = typed(type, key, table);
  if (!v || !v->data) return 0;
  *out = *static_cast<const T*>(v->data);
  return 1;
}

}  // namespace

extern "C" {

PLUGSTACK_EXPORT s_p_hashtbl* s_p_hashtbl_create_cnt(const void* options, int* cnt) { return sp::create(options, cnt); }
PLUGSTACK_EXPORT s_p_hashtbl* s_p_hashtbl_create(const void* options) { return sp::create(options, nullptr); }
PLUGSTACK_EXPORT void s_p_hashtbl_destroy(s_p_hashtbl* table) { sp::destroy(table); }

// 22.05's last-but-one argument is a bool ignore_new, 24.11's a flags word
// whose bit 0 is the same thing.
PLUGSTACK_EXPORT int s_p_parse_file(s_p_hashtbl* table, uint32_t* hashVal, char* filename, uint32_t flags,
                                    char* /*lastAncestor*/) {
  (void)hashVal;
  if (!filename) {
    plugstack::slurmLog(plugstack::LogLevel::Error, "s_p_parse_file: No filename given.");
    return -1;
  }
  std::string path(filename);
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  return sp::parseFile(table, path, (flags & 1) != 0, dir, nullptr) ? 0 : -1;
}

PLUGSTACK_EXPORT int s_p_parse_line(s_p_hashtbl* table, const char* line, char** leftover) {
  return sp::parseLine(table, line, leftover);
}

PLUGSTACK_EXPORT int s_p_parse_pair_with_op(s_p_hashtbl* table, const char* key, const char* value, int op) {
  return sp::parsePair(table, key, value, op);
}

PLUGSTACK_EXPORT int s_p_parse_pair(s_p_hashtbl* table, const char* key, const char* value) {
  return sp::parsePair(table, key, value, 0);
}

PLUGSTACK_EXPORT int s_p_get_string(char** str, const char* key, const s_p_hashtbl* table) {
  const sp::Value* v = typed(sp::kString, key, table);
  if (!v) return 0;
  *str = slurm_xstrdup(static_cast<const char*>(v->data));
  return 1;
}

PLUGSTACK_EXPORT int s_p_get_long(long* num, const char* key, const s_p_hashtbl* table) {
  return getNumber(num, sp::kLong, key, table);
}
PLUGSTACK_EXPORT int s_p_get_uint16(uint16_t* num, const char* key, const s_p_hashtbl* table) {
  return getNumber(num, sp::kUint16, key, table);
}
PLUGSTACK_EXPORT int s_p_get_uint32(uint32_t* num, const char* key, const s_p_hashtbl* table) {
  return getNumber(num, sp::kUint32, key, table);
}
PLUGSTACK_EXPORT int s_p_get_uint64(uint64_t* num, const char* key, const s_p_hashtbl* table) {
  return getNumber(num, sp::kUint64, key, table);
}
PLUGSTACK_EXPORT int s_p_get_float(float* num, const char* key, const s_p_hashtbl* table) {
  return getNumber(num, sp::kFloat, key, table);
}
PLUGSTACK_EXPORT int s_p_get_double(double* num, const char* key, const s_p_hashtbl* table) {
  return getNumber(num, sp::kDouble, key, table);
}
PLUGSTACK_EXPORT int s_p_get_long_double(long double* num, const char* key, const s_p_hashtbl* table) {
  return getNumber(num, sp::kLongDouble, key, table);
}
PLUGSTACK_EXPORT int s_p_get_boolean(bool* flag, const char* key, const s_p_hashtbl* table) {
  return getNumber(flag, sp::kBoolean, key, table);
}

PLUGSTACK_EXPORT int s_p_get_pointer(void** ptr, const char* key, const s_p_hashtbl* table) {
  const sp::Value* v = typed(sp::kPointer, key, table);
  if (!v) return 0;
  *ptr = v->data;
  return 1;
}

PLUGSTACK_EXPORT int s_p_get_array(void*** ptrArray, int* count, const char* key, const s_p_hashtbl* table) {
  const sp::Value* v = typed(sp::kArray, key, table);
  if (!v) return 0;
  *ptrArray = static_cast<void**>(v->data);
  *count = v->count;
  return 1;
}

PLUGSTACK_EXPORT int s_p_get_operator(int* op, const char* key, const s_p_hashtbl* table) {
  if (!table) return 0;
  const sp::Value* v = sp::lookup(table, key);
  if (v) {
    *op = v->op;
    return 1;
  }
  plugstack::slurmLog(plugstack::LogLevel::Error, std::string("Invalid key \"") + (key ? key : "(null)") + "\"");
  return 0;
}

// Appends the entries of options (up to its NULL key) to *full, an xmalloc
// array of *count entries, each key a copy.
PLUGSTACK_EXPORT void transfer_s_p_options(void** full, const void* options, int* count) {
  const size_t size = sp::optionSize();
  int n = *count;
  for (size_t i = 0; options; i++, n++) {
    const char* entry = static_cast<const char*>(options) + i * size;
    sp::Option o = sp::optionAt(options, i);
    if (!o.key) break;
    slurm_xrecalloc(full, static_cast<size_t>(n) + 1, size, true, false, nullptr, 0, nullptr);
    char* slot = static_cast<char*>(*full) + static_cast<size_t>(n) * size;
    std::memcpy(slot, entry, size);
    char* key = slurm_xstrdup(o.key);
    std::memcpy(slot, &key, sizeof key);
  }
  *count = n;
}

// libslurm's names for the same functions.
PLUGSTACK_EXPORT s_p_hashtbl* slurm_s_p_hashtbl_create(const void* options) { return sp::create(options, nullptr); }
PLUGSTACK_EXPORT void slurm_s_p_hashtbl_destroy(s_p_hashtbl* table) { sp::destroy(table); }
PLUGSTACK_EXPORT int slurm_s_p_parse_file(s_p_hashtbl* t, uint32_t* h, char* f, uint32_t flags, char* a) {
  return s_p_parse_file(t, h, f, flags, a);
}
PLUGSTACK_EXPORT int slurm_s_p_parse_pair(s_p_hashtbl* t, const char* k, const char* v) { return s_p_parse_pair(t, k, v); }
PLUGSTACK_EXPORT int slurm_s_p_parse_line(s_p_hashtbl* t, const char* l, char** o) { return s_p_parse_line(t, l, o); }
PLUGSTACK_EXPORT int slurm_s_p_get_string(char** s, const char* k, const s_p_hashtbl* t) { return s_p_get_string(s, k, t); }
PLUGSTACK_EXPORT int slurm_s_p_get_long(long* n, const char* k, const s_p_hashtbl* t) { return s_p_get_long(n, k, t); }
PLUGSTACK_EXPORT int slurm_s_p_get_uint16(uint16_t* n, const char* k, const s_p_hashtbl* t) { return s_p_get_uint16(n, k, t); }
PLUGSTACK_EXPORT int slurm_s_p_get_uint32(uint32_t* n, const char* k, const s_p_hashtbl* t) { return s_p_get_uint32(n, k, t); }
PLUGSTACK_EXPORT int slurm_s_p_get_uint64(uint64_t* n, const char* k, const s_p_hashtbl* t) { return s_p_get_uint64(n, k, t); }
PLUGSTACK_EXPORT int slurm_s_p_get_float(float* n, const char* k, const s_p_hashtbl* t) { return s_p_get_float(n, k, t); }
PLUGSTACK_EXPORT int slurm_s_p_get_double(double* n, const char* k, const s_p_hashtbl* t) { return s_p_get_double(n, k, t); }
PLUGSTACK_EXPORT int slurm_s_p_get_long_double(long double* n, const char* k, const s_p_hashtbl* t) {
  return s_p_get_long_double(n, k, t);
}
PLUGSTACK_EXPORT int slurm_s_p_get_pointer(void** p, const char* k, const s_p_hashtbl* t) { return s_p_get_pointer(p, k, t); }
PLUGSTACK_EXPORT int slurm_s_p_get_array(void*** p, int* c, const char* k, const s_p_hashtbl* t) {
  return s_p_get_array(p, c, k, t);
}
PLUGSTACK_EXPORT int slurm_s_p_get_boolean(bool* f, const char* k, const s_p_hashtbl* t) { return s_p_get_boolean(f, k, t); }
PLUGSTACK_EXPORT void slurm_transfer_s_p_options(void** full, const void* options, int* count) {
  transfer_s_p_options(full, options, count);
}

}  // extern "C"
