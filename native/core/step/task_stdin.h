// Each task's standard input, as slurmstepd sets it up (io.c
// _init_task_stdio_fds): a pipe slurmstepd writes into what srun sends,
// or a file the task reads itself. srun's input reaches this process on
// the host's descriptor 0 (Node writes srun's standard input, or the file
// srun opened, into it); every task fed from it gets its own copy.
//
// A task that does not read must not hold the others up: what it has not
// read waits here, up to kMaxPending bytes per task; past that no more is
// read until it reads or ends (its pipe closed, what it did not read is
// dropped). When the input ends, each task's pipe is closed once what it
// was given has been written, so that every reader sees EOF.
#pragma once

#include <poll.h>

#include <optional>
#include <string>
#include <vector>

namespace plugstack {

struct StepSpec;

class TaskStdin {
 public:
  // What is not read yet, per task, before the input is no longer read.
  static constexpr size_t kMaxPending = 4u << 20;

  // Takes what Node sends (the host's descriptor 0) off descriptor 0,
  // which becomes /dev/null as slurmstepd's own is. Call before any
  // plugin code runs.
  static void takeHostInput();

  // Opens every task's input as spec.stdin says: nothing (/dev/null for
  // all), or per task a pipe fed from the host's input (nullopt) or a file
  // opened as the user. False on a file that does not open, with the path
  // and errno: Slurm's IO setup failure.
  bool setup(const StepSpec& spec, std::string* failedPath, int* error);

  // The descriptor task `index` gets as 0 (-1: /dev/null).
  int taskEnd(size_t index) const;
  // Descriptors task `index`'s child closes: the writing ends and the other
  // tasks' inputs.
  std::vector<int> childDrops(size_t index) const;
  // In the parent, once task `index` is forked: its end is the child's.
  void forked(size_t index);

  // The step's poll loop: what to wait for, then what to do.
  void addPollFds(std::vector<struct pollfd>* fds);
  void handle(const std::vector<struct pollfd>& fds);

  void closeAll();

 private:
  struct Task {
    int read = -1;   // the task's end (or its file)
    int write = -1;  // ours, for a pipe
    std::string pending;
  };
  void readSource();
  void flush(Task& t);
  void finish(Task& t);

  std::vector<Task> tasks_;
  bool sourceEnded_ = false;
  bool fed_ = false;  // some task is fed from the host's input
};

}  // namespace plugstack
