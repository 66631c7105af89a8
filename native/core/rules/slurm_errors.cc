#include "rules/slurm_errors.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <slurm/slurm.h>

#include "common/visibility.h"

// The table is exported under Slurm's own name because slurm_errno.h
// declares it; a plugin that walks it must find a real object.
extern "C" {

PLUGSTACK_EXPORT slurm_errtab_t slurm_errtab[] = {
    {SLURM_SUCCESS, const_cast<char*>("SLURM_SUCCESS"), const_cast<char*>("No error")},
    {SLURM_ERROR, const_cast<char*>("SLURM_ERROR"), const_cast<char*>("Unspecified error")},
    {SLURM_MPI_PLUGIN_NAME_INVALID, const_cast<char*>("SLURM_MPI_PLUGIN_NAME_INVALID"),
     const_cast<char*>("Invalid MPI plugin name")},
    {SLURM_MPI_PLUGIN_PRELAUNCH_SETUP_FAILED,
     const_cast<char*>("SLURM_MPI_PLUGIN_PRELAUNCH_SETUP_FAILED"),
     const_cast<char*>("MPI plugin's pre-launch setup failed")},
    {SLURM_PLUGIN_NAME_INVALID, const_cast<char*>("SLURM_PLUGIN_NAME_INVALID"),
     const_cast<char*>("Plugin initialization failed")},
    // slurmd's launch errors that plugstack's slurmstepd and slurmd report.
    {ESLURMD_EXECVE_FAILED, const_cast<char*>("ESLURMD_EXECVE_FAILED"),
     const_cast<char*>("Slurmd could not execve job")},
    {ESLURMD_IO_ERROR, const_cast<char*>("ESLURMD_IO_ERROR"),
     const_cast<char*>("Slurmd could not connect IO")},
    {ESLURMD_PROLOG_FAILED, const_cast<char*>("ESLURMD_PROLOG_FAILED"),
     const_cast<char*>("Job prolog failed")},
    {ESLURMD_EPILOG_FAILED, const_cast<char*>("ESLURMD_EPILOG_FAILED"),
     const_cast<char*>("Job epilog failed")},
    {ESPANK_ERROR, const_cast<char*>("ESPANK_ERROR"), const_cast<char*>("Generic error")},
    {ESPANK_BAD_ARG, const_cast<char*>("ESPANK_BAD_ARG"), const_cast<char*>("Bad argument")},
    {ESPANK_NOT_TASK, const_cast<char*>("ESPANK_NOT_TASK"),
     const_cast<char*>("Not in task context")},
    {ESPANK_ENV_EXISTS, const_cast<char*>("ESPANK_ENV_EXISTS"),
     const_cast<char*>("Environment variable exists")},
    {ESPANK_ENV_NOEXIST, const_cast<char*>("ESPANK_ENV_NOEXIST"),
     const_cast<char*>("No such environment variable")},
    {ESPANK_NOSPACE, const_cast<char*>("ESPANK_NOSPACE"), const_cast<char*>("Buffer too small")},
    {ESPANK_NOT_REMOTE, const_cast<char*>("ESPANK_NOT_REMOTE"),
     const_cast<char*>("Valid only in remote context")},
    {ESPANK_NOEXIST, const_cast<char*>("ESPANK_NOEXIST"),
     const_cast<char*>("Id/PID does not exist on this node")},
    {ESPANK_NOT_EXECD, const_cast<char*>("ESPANK_NOT_EXECD"),
     const_cast<char*>("Lookup by PID requested, but no tasks running")},
    {ESPANK_NOT_AVAIL, const_cast<char*>("ESPANK_NOT_AVAIL"),
     const_cast<char*>("Item not available from this callback")},
    {ESPANK_NOT_LOCAL, const_cast<char*>("ESPANK_NOT_LOCAL"),
     const_cast<char*>("Valid only in local or allocator context")},
    {ESLURM_PLUGIN_INVALID, const_cast<char*>("ESLURM_PLUGIN_INVALID"),
     const_cast<char*>("Plugin has invalid format or unable to be loaded")},
    {ESLURM_PLUGIN_INCOMPLETE, const_cast<char*>("ESLURM_PLUGIN_INCOMPLETE"),
     const_cast<char*>("Plugin missing required symbol or function")},
    {ESLURM_PLUGIN_NOT_LOADED, const_cast<char*>("ESLURM_PLUGIN_NOT_LOADED"),
     const_cast<char*>("Required plugin type not loaded or initialized")},
    {ESLURM_PLUGIN_NOTFOUND, const_cast<char*>("ESLURM_PLUGIN_NOTFOUND"),
     const_cast<char*>("Plugin file not found")},
    {ESLURM_PLUGIN_ACCESS_ERROR, const_cast<char*>("ESLURM_PLUGIN_ACCESS_ERROR"),
     const_cast<char*>("Plugin access denied")},
    {ESLURM_PLUGIN_DLOPEN_FAILED, const_cast<char*>("ESLURM_PLUGIN_DLOPEN_FAILED"),
     const_cast<char*>("Dlopen of plugin file failed")},
    {ESLURM_PLUGIN_INIT_FAILED, const_cast<char*>("ESLURM_PLUGIN_INIT_FAILED"),
     const_cast<char*>("Plugin init() callback failed")},
    {ESLURM_PLUGIN_MISSING_NAME, const_cast<char*>("ESLURM_PLUGIN_MISSING_NAME"),
     const_cast<char*>("Plugin name/type/version symbol missing")},
    {ESLURM_PLUGIN_BAD_VERSION, const_cast<char*>("ESLURM_PLUGIN_BAD_VERSION"),
     const_cast<char*>("Incompatible plugin version")},
    // What the libslurm functions plugstack answers can fail with
    // (native/core/libslurm/).
    {SLURM_NO_CHANGE_IN_DATA, const_cast<char*>("SLURM_NO_CHANGE_IN_DATA"),
     const_cast<char*>("Data has not changed since time specified")},
    {ESLURM_INVALID_JOB_ID, const_cast<char*>("ESLURM_INVALID_JOB_ID"),
     const_cast<char*>("Invalid job id specified")},
    {PLUGSTACK_ELIBSLURM_NOT_EMULATED, const_cast<char*>("PLUGSTACK_ELIBSLURM_NOT_EMULATED"),
     const_cast<char*>("Not emulated by plugstack (a libslurm function plugstack does not answer)")},
};

PLUGSTACK_EXPORT unsigned int slurm_errtab_size = sizeof(slurm_errtab) / sizeof(slurm_errtab[0]);

}  // extern "C"

namespace plugstack {

namespace {

const slurm_errtab_t* findEntry(int errnum) {
  for (unsigned i = 0; i < slurm_errtab_size; i++)
    if (slurm_errtab[i].xe_number == errnum) return &slurm_errtab[i];
  return nullptr;
}

}  // namespace

const char* slurmErrorText(int errnum) {
  if (const slurm_errtab_t* e = findEntry(errnum)) return e->xe_message;
  if (errnum > 0) return std::strerror(errnum);
  return "Unknown negative error number";
}

const char* slurmErrorName(int errnum) {
  const slurm_errtab_t* e = findEntry(errnum);
  return e ? e->xe_name : nullptr;
}

}  // namespace plugstack

extern "C" {

PLUGSTACK_EXPORT char* slurm_strerror(int errnum) {
  return const_cast<char*>(plugstack::slurmErrorText(errnum));
}

PLUGSTACK_EXPORT void slurm_seterrno(int errnum) { errno = errnum; }

PLUGSTACK_EXPORT void slurm_perror(const char* msg) {
  std::fprintf(stderr, "%s: %s\n", msg, plugstack::slurmErrorText(errno));
}

}  // extern "C"
