// An environment as an mpi hook receives it: a NULL-terminated array of
// "NAME=value" strings, the array and every string xmalloc blocks (Slurm's
// env.c grows and frees them in place, so a plugin's env_array_overwrite
// or unsetenvp must find Slurm's allocator's header in front of them).
//
// After the hook, the array is checked before anything reads it: still an
// xmalloc block, terminated within its allocation, every entry a string
// with '='. In Slurm a plugin that breaks one of these overruns a buffer.
#pragma once

#include <string>
#include <vector>

#include "spank/env_array.h"

namespace plugstack {

class XEnv {
 public:
  // A copy of env as Slurm would hand it (entries in order).
  explicit XEnv(const EnvArray& env);
  // A one-slot array, [NULL], as srun's client_prelaunch gets.
  XEnv();
  ~XEnv();
  XEnv(const XEnv&) = delete;
  XEnv& operator=(const XEnv&) = delete;

  // What the hook gets: char ***.
  char*** slot() { return &env_; }
  char** array() const { return env_; }

  // Empty when the array is sound; otherwise what is wrong with it. fatal:
  // it cannot be read at all (not Slurm's allocation, no terminator, an
  // entry that is not a string); otherwise only entries without '=' are
  // wrong, which Slurm's env code passes over (and plugstack drops).
  std::string check(bool* fatal = nullptr) const;
  // The entries with '=' (once check() found the array readable).
  std::vector<std::string> entries() const;
  // True when the array holds exactly these entries, in this order: the
  // hook changed nothing. Allocates nothing, which in a task's process,
  // forked a moment before, spares the pages copies would write.
  bool holds(const std::vector<std::string>& entries) const;
  // The array now lives at another address (a hook was handed another
  // slot holding it, as slurmstepd_prefork gets &step->env).
  void reset(char** env) { env_ = env; }

 private:
  char** env_ = nullptr;
};

// One change a hook made to an environment, in "set"/"unset" terms.
struct EnvChange {
  std::string op;  // "set" or "unset"
  std::string name;
  std::string value;
};
std::vector<EnvChange> envChanges(const std::vector<std::string>& before, const std::vector<std::string>& after);

}  // namespace plugstack
