// The tables of Slurm's configuration parser (parse_config.c's s_p_*), as
// plugins see them: a table is made from an array of options (key, type,
// optional handler and destroy), filled from a file, a line or key/value
// pairs, read back with typed getters, and packed to be sent elsewhere
// (slurmd packs what each mpi plugin's conf_get returns; slurmstepd unpacks
// it and hands it to that plugin's conf_set). Values are converted with
// Slurm's rules and messages (parse_value.c), keys are matched in any case.
//
// The option array's layout is the emulated release's: 22.05's entries
// end with line_options (40 bytes), 24.11 adds pack and unpack (56 bytes).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace plugstack::sp {

// slurm_parser_enum_t
enum Type : int {
  kIgnore = 0,
  kString,
  kLong,
  kUint16,
  kUint32,
  kUint64,
  kPointer,
  kArray,
  kBoolean,
  kLine,
  kExpline,
  kPlainString,
  kFloat,
  kDouble,
  kLongDouble,
};
const char* typeName(int type);

using Handler = int (*)(void** data, int type, const char* key, const char* value, const char* line, char** leftover);
using Destroy = void (*)(void* data);

// One entry of a plugin's option array, read with the release's layout.
struct Option {
  const char* key = nullptr;
  int type = kIgnore;
  Handler handler = nullptr;
  Destroy destroy = nullptr;
  bool hasPack = false;  // 24.11: a pack function is given
};

// Which layout option arrays have (set with the emulated release).
void setOptionLayout(bool withPack);
size_t optionSize();
// The entry at index i of a plugin's array.
Option optionAt(const void* array, size_t i);

// error_in_daemon(): some messages are logged only in slurmd (and
// slurmctld); set in the processes that play it.
void setInDaemon(bool on);

struct Value {
  std::string key;
  int type = kIgnore;
  int op = 0;  // slurm_parser_operator_t
  int count = 0;
  void* data = nullptr;
  Handler handler = nullptr;
  Destroy destroy = nullptr;
};

}  // namespace plugstack::sp

// The table, opaque to plugins (s_p_hashtbl_t).
struct s_p_hashtbl {
  std::vector<std::unique_ptr<plugstack::sp::Value>> values;
};

namespace plugstack::sp {

// s_p_hashtbl_create: entries until a NULL key (count: how many).
s_p_hashtbl* create(const void* options, int* count);
void destroy(s_p_hashtbl* table);
Value* lookup(const s_p_hashtbl* table, const char* key);

// A value for one entry (-1: invalid, 0: valid but nothing stored, 1:
// stored), with Slurm's messages; rest is what follows the value on its
// line (a handler may take more of it: *leftover).
int handleValue(Value& v, const char* value, const char* rest, char** leftover);

// s_p_parse_line: every key=value of the line, every key known (1), or 0.
int parseLine(s_p_hashtbl* table, const char* line, char** leftover);
// s_p_parse_pair_with_op.
int parsePair(s_p_hashtbl* table, const char* key, const char* value, int op);

// One line of a file that Slurm would refuse, with where and why.
struct FileError {
  std::string file;
  int line = 0;
  std::string message;
};

// s_p_parse_file: only the first key=value of each line is read; an
// unknown key, or anything after the value, is only a debug line when
// ignoreNew (mpi.conf), an error otherwise. "Include FILE" reads FILE
// (relative: beside `confDir`'s slurm.conf). True when no line failed.
// ignored: the lines passed over (an unknown key, something after the value).
bool parseFile(s_p_hashtbl* table, const std::string& path, bool ignoreNew, const std::string& confDir,
               std::vector<FileError>* errors, std::vector<FileError>* ignored = nullptr, int depth = 0);

// s_p_pack_hashtbl: the values of `count` options (the plugin's array) as
// found in table, in bytes plugstack carries to slurmstepd. False (with
// *error) where Slurm's slurmd would die: an option the table lacks, a
// type Slurm cannot pack.
bool pack(const s_p_hashtbl* table, const void* options, int count, std::string* out, std::string* error);
// s_p_unpack_hashtbl: nullptr when the bytes are not a packed table.
s_p_hashtbl* unpack(const std::string& bytes);

std::string toHex(const std::string& bytes);
bool fromHex(const std::string& hex, std::string* bytes);

}  // namespace plugstack::sp
