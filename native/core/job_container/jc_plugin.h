// One job_container plugin, loaded as Slurm loads it (plugin_context_create
// for "job_container/<name>": job_container_<name>.so along PluginDir, the
// full version match, init(), every hook symbol of the emulated release
// required), and its hooks called with the events every call gets:
// enter/leave around the plugin code, then a "jobContainer" event with the
// process the call ran in, its arguments, its result and the mount
// namespace the process was in afterwards.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "job_container/jc_release.h"
#include "plugins/plugin_context.h"

namespace plugstack {

// Refs of job_container plugins in events, apart from the other kinds'.
constexpr int kJcRefBase = 3 << 20;

// Which Slurm process makes a call (the result's "process").
enum class JcProcess {
  Slurmd,        // slurmd itself
  SlurmdChild,   // slurmd's forked child that becomes a step's slurmstepd
  Slurmstepd,    // slurmstepd itself
  Task,          // a task's process, before exec
  SpankChild,    // contain_spank: the clone(CLONE_VM) child of a SPANK callback
  Script,        // a task prolog or epilog's process
  Check,         // plugstack check
};
const char* jcProcessName(JcProcess p);

struct JcCall {
  JcProcess process = JcProcess::Slurmstepd;
  uint32_t jobId = 0;
  uint32_t stepId = 0;  // join3's step_id->step_id (NO_VAL in slurmd's child)
  uint32_t stepHetComp = 0xfffffffe;
  uid_t uid = 0;
  bool stepCreate = false;
  void* step = nullptr;  // stepd_create's stepd_step_rec_t (23.02 on)
  uint64_t contId = 0;   // add_cont
  std::string dir;       // restore
  bool recover = false;  // restore
  int fd = -1;           // send_stepd, recv_stepd
  int task = -1;         // the task a call runs for, if any
  std::string spank;     // SpankChild: which callback
};

struct JcLoadRequest {
  std::string type;  // "tmpfs", without "job_container/"
  std::vector<std::string> pluginDirs;
  SlurmVersion version;
  int ref = kJcRefBase;
  std::string file;  // slurm.conf's JobContainerType line, for the record
  int line = 0;
};

class JcPlugin {
 public:
  enum class Outcome { Loaded, Failed, Fatal };
  Outcome load(const JcLoadRequest& request);

  int ref() const { return ref_; }
  const std::string& type() const { return type_; }
  bool loaded() const { return context_.file.handle != nullptr; }

  // Calls one hook (it must be in the release's set); returns its result
  // (join_external: the fd; reconfig: 0).
  int call(JcHook hook, const JcCall& args);

  // plugin_context_destroy: fini(), dlclose.
  void unload();
  // What exec does to a forked child's copy: gone, without fini().
  void drop();

 private:
  Outcome refuse(const JcLoadRequest& request, const char* code, const std::string& message,
                 const std::string& path, bool fatal);
  std::string describeHooks(const std::string& path, const JcRelease& release);

  PluginContext context_;
  const JcRelease* release_ = nullptr;
  int ref_ = kJcRefBase;
  std::string type_;
};

// The mount namespace this process is in: the kernel's id of it (6.8 on),
// else the inode of /proc/self/ns/mnt.
uint64_t currentMountNamespace();

// The slurm.conf plugstack's own plugins read beside (plugstack_slurm_conf()).
void setJcSlurmConf(const std::string& path);
// Where plugstack's own job_container plugins are (tmpfs).
std::string builtinJcDir();
// Types plugstack serves with a plugin of its own: tmpfs (Slurm's needs
// slurmd's internals).
bool jcServedByPlugstack(const std::string& type);

}  // namespace plugstack
