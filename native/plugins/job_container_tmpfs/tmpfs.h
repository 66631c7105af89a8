/*
 * plugstack's job_container/tmpfs: what Slurm's job_container/tmpfs does
 * (a private /tmp and /dev/shm per job, its mount namespace kept alive on
 * <BasePath>/<job>/.ns, joined by every process of the job), written for
 * plugstack against plugstack/job_container.h: Slurm's own uses slurmd's
 * internals and cannot load outside Slurm. Configured by the site's
 * job_container.conf beside slurm.conf.
 */
#ifndef PLUGSTACK_JC_TMPFS_H
#define PLUGSTACK_JC_TMPFS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define TMPFS_MAX_DIRS 32

typedef struct {
	bool auto_base_path;
	char base_path[1024]; /* "" or "none...": disabled on this node */
	char dirs[TMPFS_MAX_DIRS][256];
	int ndirs;
	bool shared;
	bool entire_step_in_ns;
	char init_script[1024];
	char clonens_script[1024];
	char clonens_epilog[1024];
	int clonens_script_wait;
	int clonens_epilog_wait;
} tmpfs_conf_t;

extern tmpfs_conf_t tmpfs_conf;
extern bool tmpfs_conf_read;

/* Reads job_container.conf beside slurm.conf for this node; -1 (with the
 * reason logged) on an error Slurm treats as fatal. */
int tmpfs_read_conf(void);
/* What send_stepd writes and recv_stepd reads: int length, then the bytes. */
int tmpfs_send_conf(int fd);
int tmpfs_recv_conf(int fd);

int tmpfs_create_ns(uint32_t job_id, uid_t uid, gid_t gid);
int tmpfs_delete_ns(uint32_t job_id);
int tmpfs_join_ns(uint32_t job_id);
int tmpfs_ns_fd(uint32_t job_id);
int tmpfs_restore(void);

bool tmpfs_disabled(void);
void tmpfs_log(bool error, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
