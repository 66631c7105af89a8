// The N-API binding: in-process work that runs no plugin code.
//
// Parsing a plugstack.conf, formatting the --help block and looking up
// Slurm's tables are pure functions of the core, compiled into this module
// (see binding.gyp). Everything that loads a plugin happens in a
// plugstack-host process instead, so a faulty plugin can never take the
// Node process down. Validation of arguments happens in TypeScript
// (lib/native/binding.ts); the checks here are a backstop with uniform
// TypeError messages.
#include <grp.h>
#include <napi.h>
#include <pwd.h>

#include <cerrno>
#include <cstdint>
#include <vector>

#include "config/plugstack_conf.h"
#include "polled_socket.h"
#include "descriptors.h"
#include "event_slots.h"
#include "signals.h"
#include "spawn.h"
#include "terminal.h"
#include "config/slurm_conf.h"
#include "libslurm/hostlist.h"
#include "rules/builtin_checks.h"
#include "rules/builtin_options.h"
#include "rules/slurm_errors.h"
#include "rules/slurm_version.h"
#include "rules/task_distribution.h"
#include "spank/help_format.h"

namespace {

using namespace plugstack;

Napi::Value typeError(Napi::Env env, const char* message) {
  Napi::TypeError::New(env, message).ThrowAsJavaScriptException();
  return env.Undefined();
}

bool versionArg(const Napi::Value& v, SlurmVersion* out) {
  return v.IsString() && parseSlurmVersion(v.As<Napi::String>().Utf8Value(), out);
}

Napi::Object diagnosticObject(Napi::Env env, const Diagnostic& d) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("kind", "diagnostic");
  o.Set("severity", severityName(d.severity));
  o.Set("code", d.code);
  o.Set("message", d.message);
  if (!d.file.empty()) o.Set("file", d.file);
  if (d.line > 0) o.Set("line", d.line);
  Napi::Array log = Napi::Array::New(env, d.slurmLog.size());
  for (size_t i = 0; i < d.slurmLog.size(); i++) {
    Napi::Object l = Napi::Object::New(env);
    l.Set("level", d.slurmLog[i].level);
    l.Set("text", d.slurmLog[i].text);
    log.Set(static_cast<uint32_t>(i), l);
  }
  o.Set("slurmLog", log);
  return o;
}

// parseConfig(path) -> { ok, missing, items: [...] }
Napi::Value ParseConfig(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString())
    return typeError(env, "Expected first argument to be a string");
  ParsedConf parsed = parsePlugstackConf(info[0].As<Napi::String>().Utf8Value());
  Napi::Array items = Napi::Array::New(env, parsed.items.size());
  uint32_t i = 0;
  int ref = 0;
  for (const auto& item : parsed.items) {
    if (item.kind == ConfItem::Kind::Diagnostic) {
      items.Set(i++, diagnosticObject(env, item.diagnostic));
      continue;
    }
    const PluginLine& p = item.plugin;
    Napi::Object o = Napi::Object::New(env);
    o.Set("kind", "plugin");
    o.Set("ref", ref++);
    o.Set("file", p.file);
    o.Set("line", p.line);
    o.Set("required", p.required);
    o.Set("path", p.path);
    Napi::Array args = Napi::Array::New(env, p.args.size());
    for (size_t k = 0; k < p.args.size(); k++) args.Set(static_cast<uint32_t>(k), p.args[k]);
    o.Set("args", args);
    items.Set(i++, o);
  }
  Napi::Object result = Napi::Object::New(env);
  result.Set("ok", parsed.ok);
  result.Set("missing", parsed.missing);
  result.Set("items", items);
  return result;
}

// formatPluginHelp([{ name, arginfo?, usage?, shown }], columns) -> string
Napi::Value FormatPluginHelp(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsArray() || !info[1].IsNumber())
    return typeError(env, "Expected an array of options and a column count");
  Napi::Array list = info[0].As<Napi::Array>();
  std::vector<HelpOption> options;
  for (uint32_t i = 0; i < list.Length(); i++) {
    Napi::Value v = list.Get(i);
    if (!v.IsObject()) return typeError(env, "Expected every option to be an object");
    Napi::Object o = v.As<Napi::Object>();
    if (!o.Get("name").IsString()) return typeError(env, "Expected option.name to be a string");
    HelpOption h;
    h.name = o.Get("name").As<Napi::String>().Utf8Value();
    if (o.Get("arginfo").IsString()) h.arginfo = o.Get("arginfo").As<Napi::String>().Utf8Value();
    if (o.Get("usage").IsString()) h.usage = o.Get("usage").As<Napi::String>().Utf8Value();
    h.shown = !o.Get("shown").IsBoolean() || o.Get("shown").As<Napi::Boolean>().Value();
    options.push_back(std::move(h));
  }
  int columns = info[1].As<Napi::Number>().Int32Value();
  return Napi::String::New(env, formatPluginHelp(options, columns));
}

// helpColumns(COLUMNS value or undefined) -> number, with Slurm's parsing.
Napi::Value HelpColumns(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() >= 1 && info[0].IsString())
    return Napi::Number::New(env, helpColumns(info[0].As<Napi::String>().Utf8Value().c_str()));
  return Napi::Number::New(env, helpColumns(nullptr));
}

// builtinOptions(command, slurmVersion) -> [{ name, hasArg, short }]
Napi::Value BuiltinOptions(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  SlurmVersion version;
  auto command = info.Length() >= 1 && info[0].IsString()
                     ? commandByName(info[0].As<Napi::String>().Utf8Value())
                     : std::nullopt;
  if (!command || info.Length() < 2 || !versionArg(info[1], &version))
    return typeError(env, "Expected a command (srun, sbatch, salloc) and a Slurm version");
  Napi::Array out = Napi::Array::New(env);
  uint32_t i = 0;
  forEachBuiltinOption(*command, version, [&](const BuiltinOption& o) {
    Napi::Object row = Napi::Object::New(env);
    row.Set("name", o.name);
    row.Set("hasArg", o.hasArg);
    if (o.shortName) row.Set("short", std::string(1, o.shortName));
    out.Set(i++, row);
  });
  return out;
}

// slurmStrerror(code) -> the text spank_strerror() gives.
// parseSlurmConf(path, slurmVersion) -> { ok, missing, keys, records, diagnostics }
Napi::Value ParseSlurmConf(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  SlurmVersion version;
  if (info.Length() < 2 || !info[0].IsString() || !versionArg(info[1], &version))
    return typeError(env, "Expected a path and a Slurm version");
  ParsedSlurmConf parsed = parseSlurmConf(info[0].As<Napi::String>().Utf8Value(), version);
  auto value = [&](const SlurmConfValue& v) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("key", v.key);
    o.Set("value", v.value);
    o.Set("file", v.file);
    o.Set("line", v.line);
    return o;
  };
  Napi::Array keys = Napi::Array::New(env, parsed.keys.size());
  for (uint32_t i = 0; i < parsed.keys.size(); i++) keys.Set(i, value(parsed.keys[i]));
  Napi::Array records = Napi::Array::New(env, parsed.records.size());
  for (uint32_t i = 0; i < parsed.records.size(); i++) {
    const SlurmConfRecord& r = parsed.records[i];
    Napi::Object o = Napi::Object::New(env);
    o.Set("kind", r.kind);
    o.Set("name", r.name);
    o.Set("file", r.file);
    o.Set("line", r.line);
    Napi::Array fields = Napi::Array::New(env, r.fields.size());
    for (uint32_t j = 0; j < r.fields.size(); j++) fields.Set(j, value(r.fields[j]));
    o.Set("fields", fields);
    records.Set(i, o);
  }
  Napi::Array diagnostics = Napi::Array::New(env, parsed.diagnostics.size());
  for (uint32_t i = 0; i < parsed.diagnostics.size(); i++) diagnostics.Set(i, diagnosticObject(env, parsed.diagnostics[i]));
  Napi::Object out = Napi::Object::New(env);
  out.Set("ok", parsed.ok);
  out.Set("missing", parsed.missing);
  out.Set("keys", keys);
  out.Set("records", records);
  out.Set("diagnostics", diagnostics);
  return out;
}

// timeStringSeconds(text) -> seconds, -1 for no limit, or null when Slurm
// would refuse the string.
Napi::Value TimeStringSeconds(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) return typeError(env, "Expected a string");
  std::optional<long> secs = timeStringSeconds(info[0].As<Napi::String>().Utf8Value().c_str());
  if (!secs) return env.Null();
  return Napi::Number::New(env, static_cast<double>(*secs));
}

// nodeCountRange(text) -> { min, max } of "N" or "MIN-MAX" (max 0: none
// given), or null.
Napi::Value NodeCountRangeOf(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) return typeError(env, "Expected a string");
  std::optional<NodeCountRange> range = nodeCountRange(info[0].As<Napi::String>().Utf8Value().c_str());
  if (!range) return env.Null();
  Napi::Object out = Napi::Object::New(env);
  out.Set("min", Napi::Number::New(env, static_cast<double>(range->min)));
  out.Set("max", Napi::Number::New(env, static_cast<double>(range->max)));
  return out;
}

// memoryMegabytes(text) -> megabytes of a --mem value (str_to_mbytes), or null.
Napi::Value MemoryMegabytes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) return typeError(env, "Expected a string");
  std::optional<unsigned long long> mb = memoryMegabytes(info[0].As<Napi::String>().Utf8Value().c_str());
  if (!mb) return env.Null();
  return Napi::Number::New(env, static_cast<double>(*mb));
}

// taskDistribution(text, planeSizeEnv?) -> { text, value, planeSize } as
// -m takes it (rules/task_distribution.h), or null when Slurm refuses it.
Napi::Value TaskDistributionOf(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) return typeError(env, "Expected a string");
  std::string planeSize = info.Length() > 1 && info[1].IsString() ? info[1].As<Napi::String>().Utf8Value() : "";
  auto d = parseTaskDistribution(info[0].As<Napi::String>().Utf8Value().c_str(), info.Length() > 1 && info[1].IsString() ? planeSize.c_str() : nullptr);
  if (!d) return env.Null();
  Napi::Object out = Napi::Object::New(env);
  out.Set("text", d->text);
  out.Set("value", d->value);
  out.Set("planeSize", d->planeSize);
  return out;
}

// A list of host names from JavaScript, pushed in their order (false when
// it is not an array of strings).
bool hostNamesArg(const Napi::Value& value, libslurm::HostList* list) {
  if (!value.IsArray()) return false;
  Napi::Array names = value.As<Napi::Array>();
  for (uint32_t i = 0; i < names.Length(); i++) {
    Napi::Value name = names.Get(i);
    if (!name.IsString()) return false;
    list->pushHost(name.As<Napi::String>().Utf8Value());
  }
  return true;
}

// The list's hosts, one string each, the first limit of them.
Napi::Array hostsOf(Napi::Env env, const libslurm::HostList& list, uint32_t limit) {
  Napi::Array hosts = Napi::Array::New(env);
  uint32_t n = 0;
  for (const libslurm::HostRange& r : list.ranges())
    for (unsigned long depth = 0; depth < r.count() && n < limit; depth++) hosts.Set(n++, r.host(depth));
  return hosts;
}

// expandHostlist(expression, slurmVersion, limit) -> { ok, overLimit,
// count, hosts, log }: the hosts a node list stands for, read with the
// release's hostlist rules; log holds the lines Slurm's parser writes when
// it refuses one. At most limit hosts are read (overLimit: the list has
// more, and count and hosts are the first ones), so that no list makes
// Node run out of memory.
Napi::Value ExpandHostlist(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  SlurmVersion version;
  if (info.Length() < 3 || !info[0].IsString() || !versionArg(info[1], &version) || !info[2].IsNumber())
    return typeError(env, "Expected a node list, a Slurm version and a limit");
  std::string expression = info[0].As<Napi::String>().Utf8Value();
  double limit = info[2].As<Napi::Number>().DoubleValue();
  if (!(limit >= 0) || limit > UINT32_MAX) return typeError(env, "Expected a limit from 0 to 2^32-1");
  libslurm::HostList list;
  list.limitHosts(static_cast<unsigned long>(limit));
  bool ok = list.parse(expression.c_str(), releases::hostlist(version));
  Napi::Array log = Napi::Array::New(env);
  for (uint32_t i = 0; i < list.parseLog().size(); i++) log.Set(i, list.parseLog()[i]);
  Napi::Object out = Napi::Object::New(env);
  out.Set("ok", ok);
  out.Set("overLimit", ok && list.overLimit());
  out.Set("count", ok ? static_cast<double>(list.total()) : 0.0);
  out.Set("hosts", ok ? hostsOf(env, list, static_cast<uint32_t>(limit)) : Napi::Array::New(env));
  out.Set("log", log);
  return out;
}

// rangedHostlist(names) -> Slurm's compact form of the names in their order
// ("node[1-11]"), as hostlist_ranged_string writes a list they were pushed
// onto.
Napi::Value RangedHostlist(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  libslurm::HostList list;
  if (info.Length() < 1 || !hostNamesArg(info[0], &list)) return typeError(env, "Expected an array of host names");
  return Napi::String::New(env, list.ranged());
}

// uniqueHosts(names) -> the names sorted and each once, as hostlist_uniq
// leaves a list (nodespec_to_hostlist's order).
Napi::Value UniqueHosts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  libslurm::HostList list;
  if (info.Length() < 1 || !hostNamesArg(info[0], &list)) return typeError(env, "Expected an array of host names");
  list.uniq();
  return hostsOf(env, list, UINT32_MAX);
}

// userByUid(uid) -> { name, gid } from the system's user database (files,
// LDAP, SSSD: whatever nsswitch says), or null when there is no such user.
Napi::Value UserByUid(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) return typeError(env, "Expected a uid");
  uid_t uid = static_cast<uid_t>(info[0].As<Napi::Number>().Uint32Value());
  std::vector<char> buf(16384);
  struct passwd pw, *found = nullptr;
  int rc;
  while ((rc = getpwuid_r(uid, &pw, buf.data(), buf.size(), &found)) == ERANGE && buf.size() < (1u << 20))
    buf.resize(buf.size() * 2);
  if (rc != 0 || !found) return env.Null();
  Napi::Object o = Napi::Object::New(env);
  o.Set("name", found->pw_name);
  o.Set("gid", static_cast<double>(found->pw_gid));
  return o;
}

// groupByGid(gid) -> its name, or null.
Napi::Value GroupByGid(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) return typeError(env, "Expected a gid");
  gid_t gid = static_cast<gid_t>(info[0].As<Napi::Number>().Uint32Value());
  std::vector<char> buf(16384);
  struct group gr, *found = nullptr;
  int rc;
  while ((rc = getgrgid_r(gid, &gr, buf.data(), buf.size(), &found)) == ERANGE && buf.size() < (1u << 20))
    buf.resize(buf.size() * 2);
  if (rc != 0 || !found) return env.Null();
  return Napi::String::New(env, found->gr_name);
}

Napi::Value SlurmStrerror(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber())
    return typeError(env, "Expected first argument to be a number");
  return Napi::String::New(env, slurmErrorText(info[0].As<Napi::Number>().Int32Value()));
}

// slurmVersion(text) -> { major, minor, micro, number, text } or null.
Napi::Value SlurmVersionInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  SlurmVersion v;
  if (info.Length() < 1 || !versionArg(info[0], &v)) return env.Null();
  Napi::Object o = Napi::Object::New(env);
  o.Set("major", v.major);
  o.Set("minor", v.minor);
  o.Set("micro", v.micro);
  o.Set("number", v.number());
  o.Set("text", v.text());
  return o;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("parseConfig", Napi::Function::New(env, ParseConfig));
  exports.Set("formatPluginHelp", Napi::Function::New(env, FormatPluginHelp));
  exports.Set("helpColumns", Napi::Function::New(env, HelpColumns));
  exports.Set("builtinOptions", Napi::Function::New(env, BuiltinOptions));
  exports.Set("slurmStrerror", Napi::Function::New(env, SlurmStrerror));
  exports.Set("parseSlurmConf", Napi::Function::New(env, ParseSlurmConf));
  exports.Set("userByUid", Napi::Function::New(env, UserByUid));
  exports.Set("groupByGid", Napi::Function::New(env, GroupByGid));
  exports.Set("timeStringSeconds", Napi::Function::New(env, TimeStringSeconds));
  exports.Set("nodeCountRange", Napi::Function::New(env, NodeCountRangeOf));
  exports.Set("memoryMegabytes", Napi::Function::New(env, MemoryMegabytes));
  exports.Set("taskDistribution", Napi::Function::New(env, TaskDistributionOf));
  exports.Set("slurmVersion", Napi::Function::New(env, SlurmVersionInfo));
  exports.Set("expandHostlist", Napi::Function::New(env, ExpandHostlist));
  exports.Set("rangedHostlist", Napi::Function::New(env, RangedHostlist));
  exports.Set("uniqueHosts", Napi::Function::New(env, UniqueHosts));
  registerDescriptors(env, exports);
  registerEventSlots(env, exports);
  registerPolledSocket(env, exports);
  registerSignals(env, exports);
  registerSpawn(env, exports);
  registerTerminal(env, exports);
  return exports;
}

}  // namespace

NODE_API_MODULE(plugstack, Init)
