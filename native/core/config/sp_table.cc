#include "config/sp_table.h"

#include <strings.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "api/xmalloc_internal.h"
#include "common/slurm_log.h"
#include "config/conf_syntax.h"
#include "config/safe_read.h"

extern "C" {
void slurm_xfree(void** item);
void* slurm_xrecalloc(void** item, size_t count, size_t size, bool clear, bool tryOnly, const char*, int,
                      const char*);
}

namespace plugstack::sp {

namespace {

bool g_withPack = true;
bool g_inDaemon = false;

// The message of the last value a conversion refused (for the report's
// file:line; Slurm only logs it).
std::string g_lastError;

constexpr size_t kMaxFileBytes = 1u << 20;
constexpr int kMaxIncludeDepth = 16;

void logError(const std::string& text) {
  g_lastError = text;
  slurmLog(LogLevel::Error, text);
}

void xfreeData(void*& data) { slurm_xfree(&data); }

template <typename T>
T* box(T v) {
  auto* p = static_cast<T*>(api::xcalloc(1, sizeof(T), true));
  *p = v;
  return p;
}

bool isWord(const char* value, const char* word) { return strcasecmp(value, word) == 0; }
bool unlimited(const char* value) { return isWord(value, "UNLIMITED") || isWord(value, "INFINITE"); }

// parse_value.c's conversions: nullptr (and Slurm's message) when refused.
void* convert(int type, const std::string& key, const char* value) {
  char* end = nullptr;
  errno = 0;
  switch (type) {
    case kString:
    case kPlainString:
      return api::xstrdup(value);
    case kLong: {
      long n = std::strtol(value, &end, 0);
      if ((n == 0 && errno == EINVAL) || *end != '\0') {
        if (!unlimited(value)) {
          logError("\"" + std::string(value) + "\" is not a valid number");
          return nullptr;
        }
        n = static_cast<long>(0xffffffffUL);
      } else if (errno == ERANGE) {
        logError("\"" + std::string(value) + "\" is out of range");
        return nullptr;
      }
      return box<long>(n);
    }
    case kUint16:
    case kUint32:
    case kUint64: {
      unsigned long long n = std::strtoull(value, &end, 0);
      if (type != kUint16 && (*end == 'k' || *end == 'K')) {
        n *= 1024;
        end++;
      }
      const std::string v(value);
      if ((n == 0 && errno == EINVAL) || *end != '\0') {
        if (!unlimited(value)) {
          logError(type == kUint16 ? key + " value \"" + v + "\" is not a valid number"
                                   : key + " value (" + v + ") is not a valid number");
          return nullptr;
        }
        n = type == kUint16 ? 0xffffULL : type == kUint32 ? 0xffffffffULL : ~0ULL;
      } else if (errno == ERANGE) {
        logError(key + " value (" + v + ") is out of range");
        return nullptr;
      } else if (value[0] == '-') {
        logError(key + " value (" + v + ") is less than zero");
        return nullptr;
      } else if (type == kUint16 && n > 0xffffULL) {
        logError(key + " value (" + v + ") is greater than 65535");
        return nullptr;
      } else if (type == kUint32 && n > 0xffffffffULL) {
        logError(key + " value (" + v + ") is greater than 4294967295");
        return nullptr;
      }
      if (type == kUint16) return box<uint16_t>(static_cast<uint16_t>(n));
      if (type == kUint32) return box<uint32_t>(static_cast<uint32_t>(n));
      return box<uint64_t>(n);
    }
    case kBoolean: {
      for (const char* w : {"yes", "up", "true", "1"})
        if (isWord(value, w)) return box<bool>(true);
      for (const char* w : {"no", "down", "false", "0"})
        if (isWord(value, w)) return box<bool>(false);
      logError("\"" + std::string(value) + "\" is not a valid option for \"" + key + "\"");
      return nullptr;
    }
    case kFloat:
    case kDouble:
    case kLongDouble: {
      long double n = type == kFloat    ? std::strtof(value, &end)
                      : type == kDouble ? std::strtod(value, &end)
                                        : std::strtold(value, &end);
      if ((n == 0 && errno == EINVAL) || *end != '\0') {
        if (!unlimited(value)) {
          logError(key + " value (" + value + ") is not a valid number");
          return nullptr;
        }
        n = type == kFloat ? static_cast<long double>(INFINITY) : type == kDouble ? HUGE_VAL : HUGE_VALL;
      } else if (errno == ERANGE) {
        logError(key + " value (" + value + ") is out of range");
        return nullptr;
      }
      if (type == kFloat) return box<float>(static_cast<float>(n));
      if (type == kDouble) return box<double>(static_cast<double>(n));
      return box<long double>(n);
    }
    default:
      return nullptr;
  }
}

void freeValue(Value& v) {
  if (v.count > 0) {
    if (v.type == kArray) {
      auto** items = static_cast<void**>(v.data);
      for (int i = 0; items && i < v.count; i++) {
        if (v.destroy) v.destroy(items[i]);
        else xfreeData(items[i]);
      }
      xfreeData(v.data);
    } else if (v.destroy) {
      v.destroy(v.data);
    } else {
      xfreeData(v.data);
    }
  }
  v.data = nullptr;
  v.count = 0;
}

}  // namespace

const char* typeName(int type) {
  static const char* const kNames[] = {"S_P_IGNORE",  "S_P_STRING",  "S_P_LONG",         "S_P_UINT16", "S_P_UINT32",
                                       "S_P_UINT64",  "S_P_POINTER", "S_P_ARRAY",        "S_P_BOOLEAN", "S_P_LINE",
                                       "S_P_EXPLINE", "S_P_PLAIN_STRING", "S_P_FLOAT", "S_P_DOUBLE", "S_P_LONG_DOUBLE"};
  return type >= 0 && type <= kLongDouble ? kNames[type] : "unknown";
}

void setOptionLayout(bool withPack) { g_withPack = withPack; }
size_t optionSize() { return g_withPack ? 56 : 40; }
void setInDaemon(bool on) { g_inDaemon = on; }

Option optionAt(const void* array, size_t i) {
  // key, type (padded to 8), handler, destroy, line_options[, pack, unpack]
  const char* entry = static_cast<const char*>(array) + i * optionSize();
  Option o;
  std::memcpy(&o.key, entry, sizeof(void*));
  std::memcpy(&o.type, entry + 8, sizeof(int));
  std::memcpy(&o.handler, entry + 16, sizeof(void*));
  std::memcpy(&o.destroy, entry + 24, sizeof(void*));
  if (g_withPack) {
    void* packFn = nullptr;
    std::memcpy(&packFn, entry + 40, sizeof(void*));
    o.hasPack = packFn != nullptr;
  }
  return o;
}

s_p_hashtbl* create(const void* options, int* count) {
  auto* table = new s_p_hashtbl;
  if (count) *count = 0;
  for (size_t i = 0; options; i++) {
    Option o = optionAt(options, i);
    if (!o.key) break;
    auto v = std::make_unique<Value>();
    v->key = o.key;
    v->type = o.type;
    v->handler = o.handler;
    v->destroy = o.destroy;
    table->values.push_back(std::move(v));
    if (count) (*count)++;
  }
  return table;
}

void destroy(s_p_hashtbl* table) {
  if (!table) return;
  for (auto& v : table->values) freeValue(*v);
  delete table;
}

Value* lookup(const s_p_hashtbl* table, const char* key) {
  if (!table || !key) return nullptr;
  // Slurm's table chains equal hashes newest first: the last entry of a
  // key wins.
  for (auto it = table->values.rbegin(); it != table->values.rend(); ++it)
    if (strcasecmp((*it)->key.c_str(), key) == 0) return it->get();
  return nullptr;
}

int handleValue(Value& v, const char* value, const char* rest, char** leftover) {
  switch (v.type) {
    case kIgnore:
      return 1;
    case kPointer:
    case kArray: {
      void* item = nullptr;
      if (v.handler) {
        int rc = v.handler(v.type == kArray ? &item : &v.data, v.type, v.key.c_str(), value, rest, leftover);
        if (rc != 1) return rc == 0 ? 0 : -1;
      } else if (v.type == kPointer) {
        if (v.count != 0) {
          if (g_inDaemon) slurmLog(LogLevel::Error, v.key + " 2 specified more than once, latest value used");
          xfreeData(v.data);
          v.count = 0;
        }
        v.data = api::xstrdup(value);
      } else {
        item = api::xstrdup(value);
      }
      if (v.type == kPointer) {
        v.count = 1;
        return 1;
      }
      v.count++;
      slurm_xrecalloc(&v.data, static_cast<size_t>(v.count), sizeof(void*), true, false, nullptr, 0, nullptr);
      static_cast<void**>(v.data)[v.count - 1] = item;
      return 1;
    }
    case kLine:
    case kExpline:
      logError("plugstack: " + std::string(typeName(v.type)) + " (key " + v.key + ") is not emulated");
      return -1;
    default:
      break;
  }
  if (v.type < kIgnore || v.type > kLongDouble) {
    logError("plugstack: " + v.key + " has no type Slurm knows (" + std::to_string(v.type) + ")");
    return -1;
  }
  if (v.count != 0) {
    if (g_inDaemon) slurmLog(LogLevel::Error, v.key + " 1 specified more than once, latest value used");
    xfreeData(v.data);
    v.count = 0;
  }
  if (v.handler) {
    int rc = v.handler(&v.data, v.type, v.key.c_str(), value, rest, leftover);
    if (rc != 1) return rc == 0 ? 0 : -1;
  } else {
    v.data = convert(v.type, v.key, value);
    if (!v.data) return -1;
  }
  v.count = 1;
  return 1;
}

int parseLine(s_p_hashtbl* table, const char* line, char** leftover) {
  const char* ptr = line;
  conf::KeyValue kv;
  while (ptr && conf::nextKeyValue(ptr, 0, &kv)) {
    Value* v = lookup(table, kv.key.c_str());
    if (!v) {
      slurmLog(LogLevel::Error, "Parsing error at unrecognized key: " + kv.key);
      errno = EINVAL;
      return 0;
    }
    v->op = kv.op == '+' ? 1 : kv.op == '-' ? 2 : kv.op == '*' ? 3 : kv.op == '/' ? 4 : 0;
    char* next = const_cast<char*>(ptr) + kv.end;
    if (handleValue(*v, kv.value.c_str(), next, &next) == -1) {
      errno = EINVAL;
      return 0;
    }
    if (leftover) *leftover = next;
    ptr = next;
  }
  return 1;
}

int parsePair(s_p_hashtbl* table, const char* key, const char* value, int op) {
  Value* v = lookup(table, key);
  if (!v) {
    slurmLog(LogLevel::Error, std::string("s_p_parse_pair_with_op: Parsing error at unrecognized key: ") + (key ? key : "(null)"));
    errno = EINVAL;
    return 0;
  }
  if (!value) {
    slurmLog(LogLevel::Error, std::string("s_p_parse_pair_with_op: Value pointer is NULL for key ") + key);
    errno = EINVAL;
    return 0;
  }
  v->op = op;
  while (*value && conf::isSpace(*value)) value++;
  const char* start = value;
  const char* stop;
  if (*value == '"') {
    start = value + 1;
    stop = std::strchr(start, '"');
    if (!stop) {
      slurmLog(LogLevel::Error, std::string("Parse error in data for key ") + key + ": " + value);
      errno = EINVAL;
      return 0;
    }
  } else {
    stop = value;
    while (*stop && !conf::isSpace(*stop)) stop++;
  }
  std::string text(start, static_cast<size_t>(stop - start));
  const char* rest = stop;
  if (*rest) rest++;
  while (*rest && conf::isSpace(*rest)) rest++;
  char* leftover = const_cast<char*>(rest);
  if (handleValue(*v, text.c_str(), rest, &leftover) == -1) {
    errno = EINVAL;
    return 0;
  }
  return 1;
}

bool parseFile(s_p_hashtbl* table, const std::string& path, bool ignoreNew, const std::string& confDir,
               std::vector<FileError>* errors, std::vector<FileError>* ignored, int depth) {
  auto fail = [&](int line, const std::string& message) {
    if (errors) errors->push_back({path, line, message});
    return false;
  };
  SafeRead r = readConfigFile(path, kMaxFileBytes);
  switch (r.status) {
    case SafeRead::Status::Ok:
      break;
    case SafeRead::Status::Missing:
      // Slurm retries the stat for a minute first; plugstack does not wait.
      slurmLog(LogLevel::Error, "s_p_parse_file: cannot stat file " + path + ": " + r.detail +
                                    ", retrying in 1sec up to 60sec");
      return fail(0, "cannot read " + path + ": " + r.detail);
    case SafeRead::Status::NotAFile:
      return fail(0, path + " is " + r.detail + ", not a file");
    case SafeRead::Status::TooLarge:
      return fail(0, path + " is larger than 1 MiB");
    case SafeRead::Status::Failed:
      slurmLog(LogLevel::Error, "s_p_parse_file: unable to read \"" + path + "\": " + r.detail);
      return fail(0, "cannot read " + path + ": " + r.detail);
  }
  if (r.text.empty()) {
    slurmLog(LogLevel::Info, "s_p_parse_file: file \"" + path + "\" is empty");
    return true;
  }
  bool ok = true;
  conf::forEachLogicalLine(r.text, [&](const conf::LogicalLine& l) {
    const std::string& text = l.text;
    size_t left = 0;
    bool unknown = false;
    if (text.size() > 7 && strncasecmp(text.c_str(), "include", 7) == 0 && conf::isSpace(text[7])) {
      size_t i = 7;
      while (i < text.size() && conf::isSpace(text[i])) i++;
      size_t start = i;
      while (i < text.size() && !conf::isSpace(text[i])) i++;
      std::string name = text.substr(start, i - start);
      left = i;
      // get_extra_conf_path: absolute as it is, else beside slurm.conf.
      std::string target = !name.empty() && name[0] == '/' ? name : confDir + "/" + name;
      bool included;
      if (name.find('*') != std::string::npos && g_withPack) {
        slurmLog(LogLevel::Error, "Slurm does not support glob parsing. " + target + " from " +
                                      path.substr(path.rfind('/') + 1) +
                                      " will be skipped over. If this expected, ignore this message and set "
                                      "DebugFlags=GLOB_SILENCE in your slurm.conf.");
        g_lastError = "globs are not expanded";
        included = false;
      } else if (depth + 1 > kMaxIncludeDepth) {
        g_lastError = "more than " + std::to_string(kMaxIncludeDepth) + " nested files (an include loop?)";
        included = false;
      } else {
        included = parseFile(table, target, ignoreNew, confDir, errors, ignored, depth + 1);
        g_lastError = "the included file failed";
      }
      if (!included) {
        slurmLog(LogLevel::Error, "\"Include\" failed in file " + path + " line " + std::to_string(l.line));
        ok = fail(l.line, "Include " + name + ": " + g_lastError);
        return;
      }
    } else {
      conf::KeyValue kv;
      left = 0;
      if (conf::nextKeyValue(text, 0, &kv)) {
        Value* v = lookup(table, kv.key.c_str());
        if (v) {
          v->op = kv.op == '+' ? 1 : kv.op == '-' ? 2 : kv.op == '*' ? 3 : kv.op == '/' ? 4 : 0;
          char* next = const_cast<char*>(text.c_str()) + kv.end;
          g_lastError.clear();
          if (handleValue(*v, kv.value.c_str(), next, &next) == -1) {
            ok = fail(l.line, kv.key + "=" + kv.value + ": " +
                                  (g_lastError.empty() ? std::string("refused by the option's handler") : g_lastError));
            return;
          }
          left = static_cast<size_t>(next - text.c_str());
        } else if (ignoreNew) {
          slurmLog(LogLevel::Debug, "_parse_next_key: Parsing error at unrecognized key: " + kv.key);
          if (ignored) ignored->push_back({path, l.line, "unknown key " + kv.key});
          unknown = true;
        } else {
          slurmLog(LogLevel::Error, "_parse_next_key: Parsing error at unrecognized key: " + kv.key);
          ok = fail(l.line, "unknown key " + kv.key);
          return;
        }
      }
    }
    if (!conf::blank(text, left)) {
      std::string rest = text.substr(left);
      std::string shown = "Parse error in file " + path + " line " + std::to_string(l.line) + ": \"" + rest + "\"";
      if (ignoreNew) {
        slurmLog(LogLevel::Debug, shown);
        if (ignored && !unknown) ignored->push_back({path, l.line, "\"" + rest + "\" is not read"});
      } else {
        slurmLog(LogLevel::Error, shown);
        ok = fail(l.line, "cannot parse \"" + rest + "\"");
      }
    }
  });
  return ok;
}

namespace {

void put(std::string* out, const void* p, size_t n) { out->append(static_cast<const char*>(p), n); }
template <typename T>
void putv(std::string* out, T v) {
  put(out, &v, sizeof v);
}
void putStr(std::string* out, const char* s) {
  uint32_t n = s ? static_cast<uint32_t>(std::strlen(s) + 1) : 0;
  putv(out, n);
  if (n) put(out, s, n);
}

struct Reader {
  const std::string& b;
  size_t at = 0;
  bool get(void* p, size_t n) {
    if (b.size() - at < n) return false;
    std::memcpy(p, b.data() + at, n);
    at += n;
    return true;
  }
  template <typename T>
  bool getv(T* v) {
    return get(v, sizeof *v);
  }
  bool getStr(char** s) {
    uint32_t n;
    *s = nullptr;
    if (!getv(&n)) return false;
    if (!n) return true;
    if (b.size() - at < n || b[at + n - 1] != '\0') return false;
    *s = api::xstrdup(b.data() + at);
    at += n;
    return true;
  }
};

}  // namespace

bool pack(const s_p_hashtbl* table, const void* options, int count, std::string* out, std::string* error) {
  out->clear();
  putv<uint32_t>(out, static_cast<uint32_t>(count < 0 ? 0 : count));
  for (int i = 0; i < count; i++) {
    Option o = optionAt(options, static_cast<size_t>(i));
    const Value* v = o.key ? lookup(table, o.key) : nullptr;
    if (!v) {
      *error = o.key ? std::string("the table conf_get returned has no key ") + o.key +
                           " of the options conf_options declared: Slurm's slurmd reads through a NULL pointer there"
                     : "option " + std::to_string(i) + " of the " + std::to_string(count) +
                           " conf_options declared has no key: Slurm's slurmd reads through a NULL pointer there";
      return false;
    }
    putv<uint16_t>(out, static_cast<uint16_t>(o.type));
    putStr(out, o.key);
    putv<uint16_t>(out, static_cast<uint16_t>(v->op));
    putv<uint32_t>(out, static_cast<uint32_t>(v->count));
    if (!v->count) continue;
    switch (o.type) {
      case kArray:
        // 24.11 packs an array through the option's pack function (none:
        // only the count goes); 22.05 cannot pack one.
        if (!g_withPack) {
          *error = "s_p_pack_hashtbl: unsupported pack type " + std::to_string(o.type);
          return false;
        }
        if (o.hasPack) {
          *error = std::string("the S_P_ARRAY option ") + o.key + " has a pack function: not emulated";
          return false;
        }
        break;
      case kString:
      case kPlainString:
        putStr(out, static_cast<const char*>(v->data));
        break;
      case kUint32:
        putv<uint32_t>(out, *static_cast<const uint32_t*>(v->data));
        break;
      case kLong:
        // Slurm packs a long in 32 bits.
        putv<uint32_t>(out, static_cast<uint32_t>(*static_cast<const long*>(v->data)));
        break;
      case kUint16:
        putv<uint16_t>(out, *static_cast<const uint16_t*>(v->data));
        break;
      case kUint64:
        putv<uint64_t>(out, *static_cast<const uint64_t*>(v->data));
        break;
      case kBoolean:
        putv<uint8_t>(out, *static_cast<const bool*>(v->data) ? 1 : 0);
        break;
      case kFloat:
        putv<float>(out, *static_cast<const float*>(v->data));
        break;
      case kDouble:
        putv<double>(out, *static_cast<const double*>(v->data));
        break;
      case kLongDouble:
        putv<long double>(out, *static_cast<const long double*>(v->data));
        break;
      case kIgnore:
        break;
      default:
        *error = "s_p_pack_hashtbl: unsupported pack type " + std::to_string(o.type);
        return false;
    }
  }
  return true;
}

s_p_hashtbl* unpack(const std::string& bytes) {
  Reader r{bytes};
  uint32_t count;
  if (!r.getv(&count)) return nullptr;
  auto* table = new s_p_hashtbl;
  auto bad = [&]() -> s_p_hashtbl* {
    destroy(table);
    return nullptr;
  };
  for (uint32_t i = 0; i < count; i++) {
    auto v = std::make_unique<Value>();
    uint16_t type, op;
    uint32_t n;
    char* key = nullptr;
    if (!r.getv(&type) || !r.getStr(&key) || !key || !r.getv(&op) || !r.getv(&n)) {
      void* k = key;
      xfreeData(k);
      return bad();
    }
    v->key = key;
    void* k = key;
    xfreeData(k);
    v->type = type;
    v->op = op;
    v->count = static_cast<int>(n);
    Value* at = v.get();
    table->values.push_back(std::move(v));
    if (!n) continue;
    bool ok = true;
    switch (type) {
      case kArray:
        break;
      case kString:
      case kPlainString: {
        char* s;
        ok = r.getStr(&s);
        at->data = s;
        break;
      }
      case kUint32: {
        uint32_t x;
        if ((ok = r.getv(&x))) at->data = box<uint32_t>(x);
        break;
      }
      case kLong: {
        uint32_t x;
        if ((ok = r.getv(&x))) at->data = box<long>(static_cast<long>(x));
        break;
      }
      case kUint16: {
        uint16_t x;
        if ((ok = r.getv(&x))) at->data = box<uint16_t>(x);
        break;
      }
      case kUint64: {
        uint64_t x;
        if ((ok = r.getv(&x))) at->data = box<uint64_t>(x);
        break;
      }
      case kBoolean: {
        uint8_t x;
        if ((ok = r.getv(&x))) at->data = box<bool>(x != 0);
        break;
      }
      case kFloat: {
        float x;
        if ((ok = r.getv(&x))) at->data = box<float>(x);
        break;
      }
      case kDouble: {
        double x;
        if ((ok = r.getv(&x))) at->data = box<double>(x);
        break;
      }
      case kLongDouble: {
        long double x;
        if ((ok = r.getv(&x))) at->data = box<long double>(x);
        break;
      }
      case kIgnore:
        break;
      default:
        ok = false;
    }
    if (!ok) {
      at->count = 0;
      return bad();
    }
  }
  if (r.at != bytes.size()) return bad();
  return table;
}

std::string toHex(const std::string& bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

bool fromHex(const std::string& hex, std::string* bytes) {
  if (hex.size() % 2) return false;
  bytes->clear();
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    *bytes += static_cast<char>(hi << 4 | lo);
  }
  return true;
}

}  // namespace plugstack::sp
