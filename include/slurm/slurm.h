/*
 * slurm/slurm.h -- the part of Slurm's client library (libslurm) that
 * plugstack answers for plugins.
 *
 * Part of plugstack. Written for plugstack and binary-compatible with the
 * header of Slurm 24.11 for everything it declares: the same type names,
 * struct layouts, constant values and prototypes. It declares only what
 * plugstack implements (job records, hostlists, lists, errno); a plugin that
 * needs more of Slurm's API builds against Slurm's own header, and every
 * other function of that header is defined by plugstack too: it fails with
 * Slurm's error value and errno PLUGSTACK_ELIBSLURM_NOT_EMULATED.
 *
 * Layouts are those of 24.11. A plugin for 22.05 that reads these structs
 * is built against Slurm 22.05's own header; plugstack fills the layout of
 * the release it emulates.
 */
#ifndef _SLURM_H
#define _SLURM_H
/* This is plugstack's slurm.h, not Slurm's (plugstack/mpi.h asks). */
#define PLUGSTACK_SLURM_H 1

#ifdef __cplusplus
extern "C" {
#endif

#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* plugstack only: errno of a libslurm function plugstack does not emulate
 * (slurm_strerror names it). Not a Slurm value. */
#define PLUGSTACK_ELIBSLURM_NOT_EMULATED 30000

/* ---- Special values ---------------------------------------------------- */

/* "Unlimited" and "not set", per width. */
#define INFINITE8  (0xff)
#define INFINITE16 (0xffff)
#define INFINITE   (0xffffffff)
#define INFINITE64 (0xffffffffffffffff)
#define NO_VAL8    (0xfe)
#define NO_VAL16   (0xfffe)
#define NO_VAL     (0xfffffffe)
#define NO_VAL64   (0xfffffffffffffffe)

/* Step ids that are not step numbers. */
#define SLURM_PENDING_STEP     (0xfffffffd)
#define SLURM_EXTERN_CONT      (0xfffffffc)
#define SLURM_BATCH_SCRIPT     (0xfffffffb)
#define SLURM_INTERACTIVE_STEP (0xfffffffa)

#define SLURM_BIT(offset) ((uint64_t)1 << offset)

/* ---- Job states (job_info_t.job_state) --------------------------------- */

/* The base state is the low byte; flags may be ORed above it. */
enum job_states {
	JOB_PENDING,
	JOB_RUNNING,
	JOB_SUSPENDED,
	JOB_COMPLETE,
	JOB_CANCELLED,
	JOB_FAILED,
	JOB_TIMEOUT,
	JOB_NODE_FAIL,
	JOB_PREEMPTED,
	JOB_BOOT_FAIL,
	JOB_DEADLINE,
	JOB_OOM,
	JOB_END
};
#define JOB_STATE_BASE    0x000000ff
#define JOB_STATE_FLAGS   0xffffff00

#define JOB_LAUNCH_FAILED SLURM_BIT(8)
#define JOB_REQUEUE       SLURM_BIT(10)
#define JOB_REQUEUE_HOLD  SLURM_BIT(11)
#define JOB_SPECIAL_EXIT  SLURM_BIT(12)
#define JOB_RESIZING      SLURM_BIT(13)
#define JOB_CONFIGURING   SLURM_BIT(14)
#define JOB_COMPLETING    SLURM_BIT(15)
#define JOB_STOPPED       SLURM_BIT(16)
#define JOB_RECONFIG_FAIL SLURM_BIT(17)
#define JOB_POWER_UP_NODE SLURM_BIT(18)
#define JOB_REVOKED       SLURM_BIT(19)
#define JOB_REQUEUE_FED   SLURM_BIT(20)
#define JOB_RESV_DEL_HOLD SLURM_BIT(21)
#define JOB_SIGNALING     SLURM_BIT(22)
#define JOB_STAGE_OUT     SLURM_BIT(23)

/* show_flags of the slurm_load_* calls; may be ORed. */
#define SHOW_ALL        SLURM_BIT(0)
#define SHOW_DETAIL     SLURM_BIT(1)
#define SHOW_MIXED      SLURM_BIT(3)
#define SHOW_LOCAL      SLURM_BIT(4)
#define SHOW_SIBLING    SLURM_BIT(5)
#define SHOW_FEDERATION SLURM_BIT(6)
#define SHOW_FUTURE     SLURM_BIT(7)

/* ---- Opaque types the records refer to --------------------------------- */

#ifndef __job_resources_t_defined
#  define __job_resources_t_defined
typedef struct job_resources job_resources_t;
#endif

#ifndef __bitstr_datatypes_defined
#  define __bitstr_datatypes_defined
typedef int64_t bitstr_t;
typedef bitstr_t bitoff_t;
#endif

/* ---- Library set-up ---------------------------------------------------- */

/* Reads the configuration in Slurm; nothing to do in plugstack, whose
 * processes are configured already. conf is ignored. */
extern void slurm_init(const char *conf);
extern void slurm_fini(void);

/* SLURM_VERSION_NUMBER of the running (emulated) release. */
extern long slurm_api_version(void);

/* ---- Hostlists ----------------------------------------------------------
 *
 * A hostlist holds host names, ranges of numbered names kept compact:
 * "node[0-3,7],login1". Host names are separated by commas or whitespace;
 * a bracket holds numbers and ranges, and the width of the first number
 * keeps its zero padding ("n[01-10]"). Strings returned by
 * slurm_hostlist_shift are malloc()ed: free() them.
 */
#ifndef __hostlist_t_defined
#  define __hostlist_t_defined
typedef struct hostlist hostlist_t;
#endif

/* NULL with errno EINVAL when the expression is invalid. NULL str: empty. */
extern hostlist_t *slurm_hostlist_create(const char *hostlist);
extern int slurm_hostlist_count(hostlist_t *hl);
extern void slurm_hostlist_destroy(hostlist_t *hl);
/* Index of the first matching host, or -1. */
extern int slurm_hostlist_find(hostlist_t *hl, const char *hostname);
/* Appends every host of the expression; returns how many. */
extern int slurm_hostlist_push(hostlist_t *hl, const char *hosts);
/* Appends one host name as it is. */
extern int slurm_hostlist_push_host(hostlist_t *hl, const char *host);
/* Writes the compact form into buf (at most n bytes with the NUL); returns
 * its length, or -1 when it did not fit. */
extern ssize_t slurm_hostlist_ranged_string(hostlist_t *hl, size_t n,
					    char *buf);
/* The compact form in memory of Slurm's xmalloc, which Slurm's xfree()
 * releases. */
extern char *slurm_hostlist_ranged_string_xmalloc(hostlist_t *hl);
/* Removes and returns the first host (malloc()ed), or NULL when empty. */
extern char *slurm_hostlist_shift(hostlist_t *hl);
/* Sorts the hosts and removes duplicates. */
extern void slurm_hostlist_uniq(hostlist_t *hl);

/* ---- Lists ------------------------------------------------------------- */

#ifndef __list_datatypes_defined
#  define __list_datatypes_defined
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
/* Frees an item when the list is destroyed (may be NULL). */
typedef void (*ListDelF) (void *x);
/* Orders two items: <0, 0, >0. */
typedef int (*ListCmpF) (void *x, void *y);
/* Non-zero when x matches key. */
typedef int (*ListFindF) (void *x, void *key);
/* Called for each item; a negative result stops the walk. */
typedef int (*ListForF) (void *x, void *arg);
#endif

extern void slurm_list_append(list_t *l, void *x);
extern int slurm_list_count(list_t *l);
extern list_t *slurm_list_create(ListDelF f);
extern void slurm_list_destroy(list_t *l);
/* The next item from the iterator on that f matches, or NULL. */
extern void *slurm_list_find(list_itr_t *i, ListFindF f, void *key);
extern int slurm_list_is_empty(list_t *l);
extern list_itr_t *slurm_list_iterator_create(list_t *l);
extern void slurm_list_iterator_reset(list_itr_t *i);
extern void slurm_list_iterator_destroy(list_itr_t *i);
extern void *slurm_list_next(list_itr_t *i);
extern void slurm_list_sort(list_t *l, ListCmpF f);
/* Removes and returns the first item, or NULL. */
extern void *slurm_list_pop(list_t *l);

/* ---- Job records ------------------------------------------------------- */

/* One job as slurmctld describes it (scontrol show job). Fields plugstack
 * does not fill are 0 or NULL. */
typedef struct job_info {
	char *account;
	time_t accrue_time;
	char *admin_comment;
	char *alloc_node;
	uint32_t alloc_sid;
	bitstr_t *array_bitmap;
	uint32_t array_job_id;
	uint32_t array_task_id;
	uint32_t array_max_tasks;
	char *array_task_str;
	uint32_t assoc_id;
	char *batch_features;
	uint16_t batch_flag;
	char *batch_host;
	uint64_t bitflags;
	uint16_t boards_per_node;
	char *burst_buffer;
	char *burst_buffer_state;
	char *cluster;
	char *cluster_features;
	char *command;
	char *comment;
	char *container;
	char *container_id;
	uint16_t contiguous;
	uint16_t core_spec;
	uint16_t cores_per_socket;
	double billable_tres;
	uint16_t cpus_per_task;
	uint32_t cpu_freq_min;
	uint32_t cpu_freq_max;
	uint32_t cpu_freq_gov;
	char *cpus_per_tres;
	char *cronspec;
	time_t deadline;
	uint32_t delay_boot;
	char *dependency;
	uint32_t derived_ec;
	time_t eligible_time;
	time_t end_time;
	char *exc_nodes;
	int32_t *exc_node_inx;
	uint32_t exit_code;
	char *extra;
	char *failed_node;
	char *features;
	char *fed_origin_str;
	uint64_t fed_siblings_active;
	char *fed_siblings_active_str;
	uint64_t fed_siblings_viable;
	char *fed_siblings_viable_str;
	uint32_t gres_detail_cnt;
	char **gres_detail_str;
	char *gres_total;
	uint32_t group_id;
	uint32_t het_job_id;
	char *het_job_id_set;
	uint32_t het_job_offset;
	uint32_t job_id;
	job_resources_t *job_resrcs;
	char *job_size_str;
	uint32_t job_state;
	time_t last_sched_eval;
	char *licenses;
	uint16_t mail_type;
	char *mail_user;
	uint32_t max_cpus;
	uint32_t max_nodes;
	char *mcs_label;
	char *mem_per_tres;
	char *name;
	char *network;
	char *nodes;
	uint32_t nice;
	int32_t *node_inx;
	uint16_t ntasks_per_core;
	uint16_t ntasks_per_tres;
	uint16_t ntasks_per_node;
	uint16_t ntasks_per_socket;
	uint16_t ntasks_per_board;
	uint32_t num_cpus;
	uint32_t num_nodes;
	uint32_t num_tasks;
	uint16_t oom_kill_step;
	char *partition;
	char *prefer;
	uint64_t pn_min_memory;
	uint16_t pn_min_cpus;
	uint32_t pn_min_tmp_disk;
	time_t preempt_time;
	time_t preemptable_time;
	time_t pre_sus_time;
	uint32_t priority;
	uint32_t *priority_array;
	char *priority_array_names;
	uint32_t profile;
	char *qos;
	uint8_t reboot;
	char *req_nodes;
	int32_t *req_node_inx;
	uint32_t req_switch;
	uint16_t requeue;
	time_t resize_time;
	uint16_t restart_cnt;
	char *resv_name;
	char *resv_ports;
	char *sched_nodes;
	char *selinux_context;
	uint16_t shared;
	uint32_t site_factor;
	uint16_t sockets_per_board;
	uint16_t sockets_per_node;
	time_t start_time;
	uint16_t start_protocol_ver;
	char *state_desc;
	uint32_t state_reason;
	char *std_err;
	char *std_in;
	char *std_out;
	time_t submit_time;
	time_t suspend_time;
	char *system_comment;
	uint32_t time_limit;
	uint32_t time_min;
	uint16_t threads_per_core;
	char *tres_bind;
	char *tres_freq;
	char *tres_per_job;
	char *tres_per_node;
	char *tres_per_socket;
	char *tres_per_task;
	char *tres_req_str;
	char *tres_alloc_str;
	uint32_t user_id;
	char *user_name;
	uint32_t wait4switch;
	char *wckey;
	char *work_dir;
} slurm_job_info_t;

typedef slurm_job_info_t job_info_t;

typedef struct job_info_msg {
	time_t last_backfill;
	time_t last_update;
	uint32_t record_count;
	slurm_job_info_t *job_array;
} job_info_msg_t;

/* Loads one job. On success *job_info_msg_pptr holds one record; otherwise
 * it is NULL, and the result and errno are the error (ESLURM_INVALID_JOB_ID
 * for a job that does not exist). Free with slurm_free_job_info_msg. */
extern int slurm_load_job(job_info_msg_t **job_info_msg_pptr,
			  uint32_t job_id, uint16_t show_flags);
/* Every job of user_id. */
extern int slurm_load_job_user(job_info_msg_t **job_info_msg_pptr,
			       uint32_t user_id, uint16_t show_flags);
/* Every job, unless nothing changed since update_time (then
 * SLURM_NO_CHANGE_IN_DATA). */
extern int slurm_load_jobs(time_t update_time,
			   job_info_msg_t **job_info_msg_pptr,
			   uint16_t show_flags);
extern void slurm_free_job_info_msg(job_info_msg_t *job_buffer_ptr);

/* When the job's time runs out, and how many seconds are left (-1 on
 * error). */
extern int slurm_get_end_time(uint32_t jobid, time_t *end_time_ptr);
extern long slurm_get_rem_time(uint32_t jobid);

#ifdef __cplusplus
}
#endif

#endif /* _SLURM_H */
