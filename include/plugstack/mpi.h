/*
 * plugstack/mpi.h -- the mpi plugin interface.
 *
 * Part of plugstack. Slurm installs no header for mpi plugins (they are built
 * inside Slurm's tree); this one declares, with the names, types, layouts and
 * linkage of the release selected by SLURM_VERSION_NUMBER (22.05 or 24.11),
 * what such a plugin defines, the structs it is handed and the environment
 * helpers it may call. A plugin built against it loads in Slurm's srun,
 * slurmd and slurmstepd of that release as well as in plugstack.
 *
 * Build a plugin with:   plugstack cc plugin.c -o mpi_NAME.so
 *                        (add --slurm-version 22.05 for that release)
 *
 * It is selected with srun --mpi=NAME, SLURM_MPI_TYPE=NAME or slurm.conf's
 * MpiDefault=NAME, and found as mpi_NAME.so along PluginDir.
 */
#ifndef PLUGSTACK_MPI_H
#define PLUGSTACK_MPI_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>

#ifdef __cplusplus
extern "C" {
#endif

#if SLURM_VERSION_NUMBER >= 0x170200 /* 23.02: the structs were renamed */
#define PLUGSTACK_MPI_2411 1
#else
#define PLUGSTACK_MPI_2411 0
#endif

/*
 * What every plugin defines (Slurm's generic plugin loader), plus the mpi
 * interface's own id:
 *
 *   const char plugin_name[]      = "...";       any text
 *   const char plugin_type[]      = "mpi/NAME";  an array, not a pointer
 *   const uint32_t plugin_version = SLURM_VERSION_NUMBER;
 *   const uint32_t plugin_id      = 200;         a number no other mpi
 *                                                plugin of the site uses
 *
 * An mpi plugin must match the release to the micro version. srun sends its
 * plugin's id with the launch; slurmd finds the plugin with that id among
 * all it loaded and tells slurmstepd its type. Slurm's own plugins use the
 * ids below (101-107); pick another. MPI_PLUGIN (plugstack's convenience;
 * Slurm has none) defines all four.
 */
#define MPI_PLUGIN(name, text, id)                                    \
	const char plugin_name[] = text;                              \
	const char plugin_type[] = "mpi/" #name;                      \
	const uint32_t plugin_version = SLURM_VERSION_NUMBER;         \
	const uint32_t plugin_id = (id);

enum mpi_plugin_type {
	MPI_PLUGIN_NONE = 101,
	MPI_PLUGIN_PMI2 = 102,
	MPI_PLUGIN_CRAY_SHASTA = 103,
	MPI_PLUGIN_PMIX2 = 104,
	MPI_PLUGIN_PMIX3 = 105,
	MPI_PLUGIN_PMIX4 = 106,
	MPI_PLUGIN_PMIX5 = 107,
};

/* ---- Types of Slurm's public header (slurm/slurm.h) ----------------------
 * Declared here unless Slurm's own slurm.h came first (plugstack's
 * slurm/slurm.h leaves them to this header). */
#if !defined(_SLURM_H) || defined(PLUGSTACK_SLURM_H)
#ifndef PLUGSTACK_MPI_SLURM_TYPES
#define PLUGSTACK_MPI_SLURM_TYPES

typedef struct sockaddr_storage slurm_addr_t;

#if PLUGSTACK_MPI_2411
typedef uint64_t sluid_t;
typedef struct {
	time_t expiration;
	char *net_cred;
	slurm_addr_t *node_addrs;
	uint32_t node_cnt;
	char *node_list;
} slurm_node_alias_addrs_t;
#endif

/* A step's id. 24.11 added sluid in front. */
typedef struct slurm_step_id_msg {
#if PLUGSTACK_MPI_2411
	sluid_t sluid;
#endif
	uint32_t job_id;
	uint32_t step_het_comp; /* NO_VAL (0xfffffffe) outside a het step */
	uint32_t step_id;
} slurm_step_id_t;

/* Where the step's tasks run: node_cnt nodes (node_list), tasks[n] tasks on
 * node n with the global ids tids[n][0..tasks[n]-1]. */
typedef struct slurm_step_layout {
#if PLUGSTACK_MPI_2411
	uint16_t *cpt_compact_array;
	uint32_t cpt_compact_cnt;
	uint32_t *cpt_compact_reps;
#endif
	char *front_end;
#if PLUGSTACK_MPI_2411
	slurm_node_alias_addrs_t *alias_addrs;
#endif
	uint32_t node_cnt;
	char *node_list;
	uint16_t plane_size;
	uint16_t start_protocol_ver;
	uint16_t *tasks;
	uint32_t task_cnt;
	uint32_t task_dist; /* SLURM_DIST_BLOCK (2), SLURM_DIST_CYCLIC (1), ... */
	uint32_t **tids;
} slurm_step_layout_t;

#endif
#endif

#ifndef NO_VAL
#define NO_VAL (0xfffffffe)
#endif

/* ---- What the hooks are handed ------------------------------------------ */

/* The opaque state client_prelaunch returns and client_fini gets back. */
typedef void mpi_plugin_client_state_t;

/* ---- mpi.conf: Slurm's configuration tables ------------------------------
 * slurmd asks every mpi plugin for the mpi.conf keys it takes
 * (conf_options), reads mpi.conf (beside slurm.conf) into a table made of
 * them, hands the table to conf_set, and keeps what conf_get returns for
 * the plugin's slurmstepds, whose conf_set receives it. A table is opaque;
 * these functions (Slurm's parse_config.h, exported by plugstack under
 * the same names and their slurm_ ones) make, fill and read one.
 *
 * An option array ends with an entry whose key is NULL. conf_options
 * appends its entries to *full_options with transfer_s_p_options(), which
 * copies the keys: Slurm frees that array and its keys with xfree().
 */
typedef struct s_p_values s_p_values_t;
typedef struct s_p_hashtbl s_p_hashtbl_t;
typedef struct xlist *plugstack_mpi_list_t;

typedef enum {
	S_P_IGNORE = 0,   /* accepted, not stored */
	S_P_STRING,       /* s_p_get_string: a copy to xfree() */
	S_P_LONG,         /* strtol, any base; UNLIMITED/INFINITE: 0xffffffff */
	S_P_UINT16,       /* strtoul; at most 65535; UNLIMITED: 0xffff */
	S_P_UINT32,       /* strtoul, a k suffix times 1024; UNLIMITED: 0xffffffff */
	S_P_UINT64,       /* strtoull, a k suffix times 1024 */
	S_P_POINTER,      /* the handler's data, or a copy of the text */
	S_P_ARRAY,        /* every value given, in order */
	S_P_BOOLEAN,      /* yes/up/true/1, no/down/false/0, any case */
	S_P_LINE,         /* not served by plugstack */
	S_P_EXPLINE,      /* not served by plugstack */
	S_P_PLAIN_STRING,
	S_P_FLOAT,
	S_P_DOUBLE,
	S_P_LONG_DOUBLE
} slurm_parser_enum_t;

typedef enum {
	S_P_OPERATOR_SET = 0, /* key=value */
	S_P_OPERATOR_ADD,     /* key+=value */
	S_P_OPERATOR_SUB,     /* key-=value */
	S_P_OPERATOR_MUL,     /* key*=value */
	S_P_OPERATOR_DIV,     /* key/=value */
	S_P_OPERATOR_SET_IF_MIN,
	S_P_OPERATOR_SET_IF_MAX,
	S_P_OPERATOR_AVG
} slurm_parser_operator_t;

/* One key a table takes. handler (optional) turns the text into *data
 * itself: 1 stored, 0 accepted without a value, -1 refused; destroy
 * (optional) frees what it stored. 24.11 added pack/unpack (for S_P_ARRAY
 * values sent to slurmstepd), so the entry is 56 bytes there, 40 in 22.05:
 * build for the release you load in. */
typedef struct conf_file_options {
	char *key;
	slurm_parser_enum_t type;
	int (*handler)(void **data, slurm_parser_enum_t type, const char *key,
		       const char *value, const char *line, char **leftover);
	void (*destroy)(void *data);
	struct conf_file_options *line_options;
#if PLUGSTACK_MPI_2411
	void (*pack)(void *data, void *buffer);
	void *(*unpack)(void *buffer);
#endif
} s_p_options_t;

extern s_p_hashtbl_t *s_p_hashtbl_create(const s_p_options_t options[]);
extern void s_p_hashtbl_destroy(s_p_hashtbl_t *hashtbl);
/* Reads a file of key=value lines (Slurm's syntax: # comments, \
 * continuations, "quoted values", Include). SLURM_SUCCESS or SLURM_ERROR.
 * 24.11: flags (1 = ignore unknown keys); 22.05: a bool of the same meaning. */
#if PLUGSTACK_MPI_2411
extern s_p_hashtbl_t *s_p_hashtbl_create_cnt(const s_p_options_t options[], int *cnt);
extern int s_p_parse_file(s_p_hashtbl_t *hashtbl, uint32_t *hash_val, char *filename,
			  uint32_t flags, char *last_ancestor);
#else
extern int s_p_parse_file(s_p_hashtbl_t *hashtbl, uint32_t *hash_val, char *filename,
			  bool ignore_new, char *last_ancestor);
#endif
/* Every key=value of line (1), or 0 at the first unknown key or bad value. */
extern int s_p_parse_line(s_p_hashtbl_t *hashtbl, const char *line, char **leftover);
/* One value (quoted or not) for key: 1, or 0 when refused. */
extern int s_p_parse_pair(s_p_hashtbl_t *hashtbl, const char *key, const char *value);
extern int s_p_parse_pair_with_op(s_p_hashtbl_t *hashtbl, const char *key, const char *value,
				  slurm_parser_operator_t opt);
/* The getters: 1 and the value when key has one of that type; 0 otherwise
 * (an unknown key or the wrong type is also logged as an error). */
extern int s_p_get_string(char **str, const char *key, const s_p_hashtbl_t *hashtbl);
extern int s_p_get_long(long *num, const char *key, const s_p_hashtbl_t *hashtbl);
extern int s_p_get_uint16(uint16_t *num, const char *key, const s_p_hashtbl_t *hashtbl);
extern int s_p_get_uint32(uint32_t *num, const char *key, const s_p_hashtbl_t *hashtbl);
extern int s_p_get_uint64(uint64_t *num, const char *key, const s_p_hashtbl_t *hashtbl);
extern int s_p_get_float(float *num, const char *key, const s_p_hashtbl_t *hashtbl);
extern int s_p_get_double(double *num, const char *key, const s_p_hashtbl_t *hashtbl);
extern int s_p_get_long_double(long double *num, const char *key, const s_p_hashtbl_t *hashtbl);
extern int s_p_get_boolean(bool *flag, const char *key, const s_p_hashtbl_t *hashtbl);
extern int s_p_get_pointer(void **ptr, const char *key, const s_p_hashtbl_t *hashtbl);
extern int s_p_get_array(void **ptr_array[], int *count, const char *key, const s_p_hashtbl_t *hashtbl);
extern int s_p_get_operator(slurm_parser_operator_t *opt, const char *key, const s_p_hashtbl_t *hashtbl);
extern void transfer_s_p_options(s_p_options_t **full_options, s_p_options_t *options,
				 int *full_options_cnt);

#if PLUGSTACK_MPI_2411
/* srun's view of the step (client_prelaunch). */
typedef struct {
	uint32_t het_job_id;          /* het job leader, or NO_VAL */
	uint32_t het_job_task_offset; /* or NO_VAL */
	slurm_step_id_t step_id;
	slurm_step_layout_t *step_layout;
} mpi_step_info_t;

/* One task, in the task's process (slurmstepd_task). */
typedef struct {
	slurm_addr_t *client; /* srun's address */
	uint32_t gtaskid;     /* global task id (rank) */
	int ltaskid;          /* task id on this node */
	uint32_t ltasks;      /* tasks on this node */
	uint32_t nnodes;      /* nodes of the step */
	uint32_t nodeid;      /* this node's index in the step */
	uint32_t ntasks;      /* tasks of the step */
	slurm_step_id_t step_id;
} mpi_task_info_t;
#else
typedef struct {
	uint32_t het_job_id;
	uint32_t het_job_task_offset;
	slurm_step_id_t step_id;
	slurm_step_layout_t *step_layout;
} mpi_plugin_client_info_t;

typedef struct {
	slurm_addr_t *client;
	uint32_t gtaskid;
	int ltaskid;
	uint32_t ltasks;
	uint32_t nnodes;
	uint32_t nodeid;
	uint32_t ntasks;
	slurm_addr_t *self; /* this node's address */
	slurm_step_id_t step_id;
} mpi_plugin_task_info_t;
#endif

/*
 * slurmstepd's record of the step (slurmstepd_prefork), in Slurm's layout of
 * the release up to and including `task`; Slurm's struct goes on, and a
 * plugin must not read past `task`. plugstack fills what Slurm's shipped mpi
 * plugins read: step_id, nnodes, ntasks, nodeid, node_tasks, the het_job_*
 * fields (NO_VAL outside a het job), task_cnts, cpus_per_task, cpus, argc,
 * env, argv, cwd, task_dist, node_name, uid, user_name, gid, batch, and
 * task[i]->id, gtid, pid, argc, argv. The rest is zero.
 */
typedef struct {
	pthread_mutex_t mutex;
	int state;
#if PLUGSTACK_MPI_2411
	void *cpu_set;
#endif
	int id;        /* task id on this node */
	uint32_t gtid; /* global task id (rank) */
	pid_t pid;     /* 0 before the fork */
	char *ifname;
	char *ofname;
	char *efname;
	int stdin_fd;
	int stdout_fd;
	int stderr_fd;
	int to_stdin;
	int from_stdout;
	int from_stderr;
	void *in;
	void *out;
	void *err;
	bool killed_by_cmd;
	bool aborted;
	bool esent;
	bool exited;
	int estatus;
	uint32_t argc;
	char **argv;
} stepd_step_task_info_t;

typedef struct {
	char *alias_list;
#if PLUGSTACK_MPI_2411
	void *container; /* step_container_t *: NULL, no container */
#else
	char *container;
#endif
	int state;
	pthread_cond_t state_cond;
	pthread_mutex_t state_mutex;
	slurm_step_id_t step_id;
	uint32_t array_job_id;
	uint32_t array_task_id;
	uint32_t nnodes;
	uint32_t ntasks;
	uint32_t nodeid;
	uint32_t node_tasks; /* tasks on this node */
#if PLUGSTACK_MPI_2411
	slurm_addr_t *node_addrs;
	char *node_list;
#endif
	uint32_t het_job_id;
	uint32_t het_job_nnodes;
	char *het_job_node_list;
	uint32_t het_job_node_offset;
	uint32_t het_job_ntasks;
	uint32_t het_job_offset;
	uint32_t het_job_step_cnt;
	uint32_t het_job_task_offset;
	uint16_t *het_job_task_cnts;
	uint32_t **het_job_tids;
	uint32_t *het_job_tid_offsets;
	uint16_t *task_cnts; /* tasks on each node of the step */
	uint32_t cpus_per_task;
	uint32_t debug;
	uint64_t job_mem;
	uint64_t step_mem;
	uint16_t cpus;
	uint32_t argc;
	char **env;
	char **argv;
	char *cwd;
	uint32_t task_dist;
	char *node_name;
	uint32_t cpu_bind_type;
	char *cpu_bind;
	uint32_t mem_bind_type;
	char *mem_bind;
	uint16_t accel_bind_type;
	uint32_t cpu_freq_min;
	uint32_t cpu_freq_max;
	uint32_t cpu_freq_gov;
	void *switch_job;
	uid_t uid;
	char *user_name;
	char *pw_gecos;
	char *pw_dir;
	char *pw_shell;
	gid_t gid;
	int ngids;
	char **gr_names;
	gid_t *gids;
	bool aborted;
	bool batch;
	bool run_prolog;
	time_t timelimit;
	uint32_t profile;
	char *task_prolog;
	char *task_epilog;
	stepd_step_task_info_t **task; /* node_tasks entries */
	/* Slurm's struct continues here. */
} stepd_step_rec_t;

/* ---- The hooks: every one must exist, even if it does nothing -------------
 *
 * A plugin missing one ends the process that loads it ("Plugin loading
 * failed due to missing symbols. Plugin is corrupted."), after its init()
 * ran. Slurm 21.08 and older called them p_mpi_hook_*; such plugins are
 * refused.
 *
 * client_prelaunch: in srun, once the step exists, before the launch. env
 *   is a one-slot array ([NULL]) of srun's own; what the plugin sets there
 *   (setenvf(env, ...), env_array_overwrite(env, ...)) is merged into every
 *   task's environment. Return any non-NULL pointer for success: it comes
 *   back to client_fini. NULL fails the launch ("Application launch
 *   failed: MPI plugin's pre-launch setup failed").
 * slurmstepd_prefork: in slurmstepd, as root, once per node, after SPANK's
 *   init and init_post_opt and before user_init and the tasks' fork (not for
 *   batch steps). env is the step's environment. Non-zero fails the node's
 *   launch.
 * slurmstepd_task: in each task's process before exec, as the job's user,
 *   after SPANK's task_init_privileged and before task_init. env is that
 *   task's environment. Non-zero ends the task with status 1 ("Unable to
 *   configure MPI plugin").
 * client_fini: in srun once the tasks' output has ended. A positive result
 *   becomes srun's exit status.
 * conf_options, conf_set, conf_get: mpi.conf, in slurmd when it starts:
 *   conf_options appends the keys the plugin takes (transfer_s_p_options);
 *   conf_set gets the table mpi.conf filled (NULL when the plugin takes no
 *   keys; empty when there is no mpi.conf), and conf_get returns a table
 *   of the values its slurmstepds should have (NULL: none), made with
 *   s_p_hashtbl_create from the same options and s_p_parse_pair, holding
 *   every key conf_options declared. Each slurmstepd of a step then calls
 *   conf_set with a copy of that table right after the plugin's init, and
 *   frees it after the call (keep copies: s_p_get_string's are yours).
 * conf_get_printable: slurmctld's listing (scontrol show config); return
 *   NULL.
 */
extern const uint32_t plugin_id;
#if PLUGSTACK_MPI_2411
extern mpi_plugin_client_state_t *mpi_p_client_prelaunch(const mpi_step_info_t *mpi_step, char ***env);
extern int mpi_p_slurmstepd_task(const mpi_task_info_t *mpi_task, char ***env);
#else
extern mpi_plugin_client_state_t *mpi_p_client_prelaunch(const mpi_plugin_client_info_t *job, char ***env);
extern int mpi_p_slurmstepd_task(const mpi_plugin_task_info_t *job, char ***env);
#endif
extern int mpi_p_slurmstepd_prefork(const stepd_step_rec_t *step, char ***env);
extern int mpi_p_client_fini(mpi_plugin_client_state_t *state);
extern void mpi_p_conf_options(s_p_options_t **full_options, int *full_options_cnt);
extern void mpi_p_conf_set(s_p_hashtbl_t *tbl);
extern s_p_hashtbl_t *mpi_p_conf_get(void);
extern plugstack_mpi_list_t mpi_p_conf_get_printable(void);

/* Optional: int init(void), run where the plugin is loaded (srun, slurmd,
 * slurmstepd; a non-zero result fails the load), and fini(void). */

/* ---- Environment arrays (Slurm's env.h) ----------------------------------
 * NULL-terminated arrays of "NAME=value" strings allocated with Slurm's
 * xmalloc: the array's allocation is its only capacity record, so never
 * hand these functions an array of your own malloc.
 *
 * getenvp: a pointer into the entry, past '=' (no copy); NULL if absent.
 * unsetenvp: removes every entry of that name (the array keeps its size).
 * setenvf: *envp set: overwrite NAME there (0 on success); *envp NULL:
 *   setenv() on the process's own environment.
 * env_array_overwrite[_fmt]: set NAME, replacing it; 1 on success.
 * env_array_append[_fmt]: set NAME only if absent; 0 when it was there.
 * env_array_merge: overwrite dest with every NAME=value of src (malformed
 *   or oversized entries are dropped).
 * Each is exported under its own name and with Slurm's slurm_ prefix
 * (setenvf as slurm_setenvpf), as Slurm's library does.
 */
extern int envcount(char **env);
extern char *getenvp(char **env, const char *name);
extern void unsetenvp(char **env, const char *name);
extern int setenvf(char ***envp, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
extern char **env_array_create(void);
extern int env_array_overwrite(char ***array_ptr, const char *name, const char *value);
extern int env_array_overwrite_fmt(char ***array_ptr, const char *name, const char *value_fmt, ...)
	__attribute__((format(printf, 3, 4)));
extern int env_array_append(char ***array_ptr, const char *name, const char *value);
extern int env_array_append_fmt(char ***array_ptr, const char *name, const char *value_fmt, ...)
	__attribute__((format(printf, 3, 4)));
extern void env_array_merge(char ***dest_array, const char **src_array);
extern char **env_array_copy(const char **array);
extern void env_array_free(char **env_array);

/* Slurm's allocator, for what these arrays hold. */
extern void *slurm_xcalloc(size_t count, size_t size, bool clear, bool try_,
			   const char *file, int line, const char *func);
extern void slurm_xfree(void **pointer);
extern char *slurm_xstrdup(const char *str);
#ifndef xfree
#define xfree(p) slurm_xfree((void **) &(p))
#endif
#ifndef xmalloc
#define xmalloc(size) slurm_xcalloc(1, (size), true, false, __FILE__, __LINE__, __func__)
#endif
#ifndef xstrdup
#define xstrdup(s) slurm_xstrdup(s)
#endif

#ifdef __cplusplus
}
#endif

#endif
