/*
 * slurm/spank.h -- the SPANK plugin interface.
 *
 * Part of plugstack. Written for plugstack and binary-compatible with the
 * header of Slurm 24.11: the same enum values, the same struct layout, the
 * same symbol names and the same linkage. A plugin compiled against this file
 * loads in Slurm 24.11, and one compiled against Slurm's file loads in
 * plugstack.
 *
 * Build a plugin with:   cc -shared -fPIC -I<plugstack>/include plugin.c
 *
 * Like Slurm's header, this one includes only slurm_errno.h and
 * slurm_version.h: include <stdint.h> and <stddef.h> yourself if the plugin
 * uses uint32_t or NULL, or it will not build against Slurm's header either.
 */
#ifndef SPANK_H
#define SPANK_H

#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>

/* Opaque handle passed to every callback; valid only during that call. */
typedef struct spank_handle * spank_t;

/* Signature shared by all twelve callbacks. ac/argv are the plugstack.conf
 * arguments; with none, ac is 0 and argv is NULL. */
typedef int (spank_f) (spank_t spank, int ac, char *argv[]);

/*
 * The callbacks a plugin may define; at least one must exist or the plugin
 * is refused. Where each one runs:
 *
 *   srun (local)            init, init_post_opt, local_user_init, exit
 *   sbatch/salloc (alloc.)  init, init_post_opt, exit
 *   slurmstepd (remote)     init, init_post_opt, user_init,
 *                           task_init_privileged and task_init (in each task
 *                           child, before exec), task_post_fork (parent),
 *                           task_exit (parent, per reaped task), exit
 *   slurmd                  init, slurmd_exit
 *   prolog/epilog helper    job_prolog, job_epilog
 *
 * As in Slurm, these declarations are not inside extern "C": a plugin written
 * in C++ must give its definitions C linkage itself.
 */
extern spank_f slurm_spank_init;
extern spank_f slurm_spank_job_prolog;
extern spank_f slurm_spank_init_post_opt;
extern spank_f slurm_spank_local_user_init;
extern spank_f slurm_spank_user_init;
extern spank_f slurm_spank_task_init_privileged;
extern spank_f slurm_spank_task_init;
extern spank_f slurm_spank_task_post_fork;
extern spank_f slurm_spank_task_exit;
extern spank_f slurm_spank_job_epilog;
extern spank_f slurm_spank_slurmd_exit;
extern spank_f slurm_spank_exit;

/*
 * Items for spank_get_item(). The variadic arguments each item expects are
 * given on its line; e.g. S_JOB_NCPUS fills a uint16_t, and
 * S_JOB_PID_TO_GLOBAL_ID takes a pid_t by value and fills a uint32_t.
 */
enum spank_item {
    S_JOB_UID,               /* uid_t *                                      */
    S_JOB_GID,               /* gid_t *                                      */
    S_JOB_ID,                /* uint32_t *                                   */
    S_JOB_STEPID,            /* uint32_t *                                   */
    S_JOB_NNODES,            /* uint32_t *  nodes in the step                */
    S_JOB_NODEID,            /* uint32_t *  this node's relative id          */
    S_JOB_LOCAL_TASK_COUNT,  /* uint32_t *  tasks on this node               */
    S_JOB_TOTAL_TASK_COUNT,  /* uint32_t *  tasks in the step                */
    S_JOB_NCPUS,             /* uint16_t *  CPUs on this node                */
    S_JOB_ARGV,              /* int *, char ***                              */
    S_JOB_ENV,               /* char ***                                     */
    S_TASK_ID,               /* int *       local task id                    */
    S_TASK_GLOBAL_ID,        /* uint32_t *                                   */
    S_TASK_EXIT_STATUS,      /* int *       raw wait(2) status               */
    S_TASK_PID,              /* pid_t *                                      */
    S_JOB_PID_TO_GLOBAL_ID,  /* pid_t, uint32_t *                            */
    S_JOB_PID_TO_LOCAL_ID,   /* pid_t, uint32_t *                            */
    S_JOB_LOCAL_TO_GLOBAL_ID,/* uint32_t, uint32_t *                         */
    S_JOB_GLOBAL_TO_LOCAL_ID,/* uint32_t, uint32_t *                         */
    S_JOB_SUPPLEMENTARY_GIDS,/* gid_t **, int *                              */
    S_SLURM_VERSION,         /* char **     "24.11.5"                        */
    S_SLURM_VERSION_MAJOR,   /* char **                                      */
    S_SLURM_VERSION_MINOR,   /* char **                                      */
    S_SLURM_VERSION_MICRO,   /* char **                                      */
    S_STEP_CPUS_PER_TASK,    /* uint32_t *                                   */
    S_JOB_ALLOC_CORES,       /* char **     core list such as "0-3"          */
    S_JOB_ALLOC_MEM,         /* uint64_t *  MB                               */
    S_STEP_ALLOC_CORES,      /* char **                                      */
    S_STEP_ALLOC_MEM,        /* uint64_t *  MB                               */
    S_SLURM_RESTART_COUNT,   /* uint32_t *                                   */
    S_JOB_ARRAY_ID,          /* uint32_t *                                   */
    S_JOB_ARRAY_TASK_ID,     /* uint32_t *                                   */
};

typedef enum spank_item spank_item_t;

/* SPANK calls return Slurm error numbers (ESPANK_* in slurm_errno.h). */
typedef slurm_err_t spank_err_t;

/* What spank_context() reports. */
enum spank_context {
    S_CTX_ERROR,             /* no plugin stack is active                    */
    S_CTX_LOCAL,             /* srun                                         */
    S_CTX_REMOTE,            /* slurmstepd                                   */
    S_CTX_ALLOCATOR,         /* sbatch, salloc                               */
    S_CTX_SLURMD,            /* the slurmd daemon                            */
    S_CTX_JOB_SCRIPT         /* the job prolog/epilog helper                 */
};

#define HAVE_S_CTX_SLURMD 1
#define HAVE_S_CTX_JOB_SCRIPT 1

typedef enum spank_context spank_context_t;

/*
 * Options. A plugin offers command-line options either with a static table
 * named spank_options (ended by SPANK_OPTIONS_TABLE_END) or by calling
 * spank_option_register() from slurm_spank_init. The callback runs when the
 * option is seen: remote is 0 in srun/sbatch/salloc and 1 in slurmstepd;
 * optarg is NULL when there is no argument.
 */
typedef int (*spank_opt_cb_f) (int val, const char *optarg, int remote);

struct spank_option {
    char *         name;    /* long option name, without "--"               */
    char *         arginfo; /* word shown after "=" in --help, or NULL      */
    char *         usage;   /* help text                                    */
    int            has_arg; /* 0 none, 1 required, 2 optional               */
    int            val;     /* handed back to the callback                  */
    spank_opt_cb_f cb;      /* called with the value, may be NULL           */
};

extern struct spank_option spank_options [];

#define SPANK_OPTIONS_TABLE_END { NULL, NULL, NULL, 0, 0, NULL }

/* Longest option name accepted, in bytes. */
#define SPANK_OPTION_MAXLEN      75

#ifdef __cplusplus
extern "C" {
#endif

/* Text of a SPANK or Slurm error number. */
const char *spank_strerror (spank_err_t err);

/* 1 if symbol is a SPANK callback name, 0 if not, -1 for NULL. */
int spank_symbol_supported (const char *symbol);

/* 1 in remote (slurmstepd) context, 0 elsewhere, -1 for a bad handle. */
int spank_remote (spank_t spank);

/* The context of the running plugin stack. */
spank_context_t spank_context (void);

/* Add one option; valid only from slurm_spank_init. */
spank_err_t spank_option_register (spank_t spank, struct spank_option *opt);

/* Whether opt was given, and its argument (owned by the host). */
spank_err_t spank_option_getopt (spank_t spank, struct spank_option *opt,
	char **optarg);

/* Read one item; see enum spank_item for the arguments each one takes. */
spank_err_t spank_get_item (spank_t spank, spank_item_t item, ...);

/* The job step environment (remote context only). */
spank_err_t spank_getenv (spank_t spank, const char *var, char *buf, int len);
spank_err_t spank_setenv (spank_t spank, const char *var, const char *val,
        int overwrite);
spank_err_t spank_unsetenv (spank_t spank, const char *var);

/* The job control environment (local and allocator context): handed to the
 * prolog and epilog as SPANK_<name>, and to batch jobs as SLURM_SPANK_<name>. */
spank_err_t spank_job_control_setenv (spank_t sp, const char *name,
        const char *value, int overwrite);
spank_err_t spank_job_control_getenv (spank_t sp, const char *name,
        char *buf, int len);
spank_err_t spank_job_control_unsetenv (spank_t sp, const char *name);

/* Put argv in front of the task's command (task_init_privileged and
 * task_init only). Since Slurm 23.02.5. */
spank_err_t spank_prepend_task_argv(spank_t spank, int argc, const char *argv[]);

/* Logging through the host's log. */
extern void slurm_info (const char *format, ...)
  __attribute__ ((format (printf, 1, 2)));
extern void slurm_error (const char *format, ...)
  __attribute__ ((format (printf, 1, 2)));
extern void slurm_verbose (const char *format, ...)
  __attribute__ ((format (printf, 1, 2)));
extern void slurm_debug (const char *format, ...)
  __attribute__ ((format (printf, 1, 2)));
extern void slurm_debug2 (const char *format, ...)
  __attribute__ ((format (printf, 1, 2)));
extern void slurm_debug3 (const char *format, ...)
  __attribute__ ((format (printf, 1, 2)));
/* Logged at error level, printed on stderr without any prefix. */
extern void slurm_spank_log(const char *, ...)
  __attribute__ ((format (printf, 1, 2)));

#ifdef __cplusplus
}
#endif

/*
 * Declare the symbols that make a shared object a SPANK plugin:
 * plugin_name (the stringified __name), plugin_type "spank", plugin_version
 * (the Slurm version compiled against; major.minor must match the host) and
 * spank_plugin_version (__ver, which no loader reads).
 */
#define SPANK_PLUGIN(__name, __ver) \
    const char plugin_name [] = #__name; \
    const char plugin_type [] = "spank"; \
    const unsigned int plugin_version = SLURM_VERSION_NUMBER; \
    const unsigned int spank_plugin_version = __ver;

#endif /* !SPANK_H */
