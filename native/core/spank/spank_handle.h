// The object behind spank_t.
//
// One handle is made for each callback pass and shared by every plugin in
// it; it starts with Slurm's magic number so that the API can reject
// anything else. The layout is private to plugstack: plugins only ever hold
// the pointer.
#pragma once

#include "rules/phase.h"

namespace plugstack {
class Stack;
struct Plugin;
struct TaskRecord;
}  // namespace plugstack

struct spank_handle {
  int magic;
  plugstack::Plugin* plugin;  // the plugin being called
  plugstack::Phase phase;
  void* job;                  // see job_records.h
  plugstack::TaskRecord* task;  // remote context, per-task callbacks only
  plugstack::Stack* stack;
};

namespace plugstack {
constexpr int kSpankMagic = 0x00a5a500;
}
