// What happens when a plugin calls into libslurm beyond what plugstack
// answers, reported once per plugin, hook and function of a process:
//
//   LIBSLURM_NOT_EMULATED   a function of Slurm's public headers that
//                           plugstack defines only to fail cleanly: Slurm's
//                           error value, errno PLUGSTACK_ELIBSLURM_NOT_EMULATED
//   LIBSLURM_NOT_IN_RELEASE a function the emulated release's headers do not
//                           declare (22.05's slurm_get_errno under 24.11):
//                           in that Slurm the plugin would die of an undefined
//                           symbol; plugstack answers and says so
#pragma once

namespace plugstack::libslurm {

struct ApiFunction;

// Called first by the answered functions that some release lacks.
void checkRelease(const char* name);

// The body of every function plugstack does not emulate: reports, sets
// errno. The caller returns the function's failure value.
void notEmulated(const char* name);

}  // namespace plugstack::libslurm
