/*
 * The symbols Slurm's loader and job_container interface look up in
 * job_container/tmpfs: the union of 22.05's and 24.11's hooks, each
 * reading its arguments as the release the process emulates passes them
 * (plugin_version, claimed at load).
 */
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define PLUGSTACK_CLAIM_LINES 0x160500, 0x180b00
#include "../common/claim_version.h"
#include "tmpfs.h"

const char plugin_name[] = "plugstack job_container/tmpfs (a private /tmp and /dev/shm per job)";
const char plugin_type[] = "job_container/tmpfs";

uid_t tmpfs_step_uid_2411(const void *step);
gid_t tmpfs_step_gid_2411(const void *step);

static bool emulating_2411(void) { return (plugin_version & 0xffff00) >= 0x180500; }
/* 24.11.0's join still takes (job_id, uid). */
static bool join3(void) { return emulating_2411() && (plugin_version & 0xff) != 0; }

/* Slurm's slurm_step_id_t of 24.11 (join's first argument from 24.11.1). */
struct step_id_2411 {
	uint64_t sluid;
	uint32_t job_id;
	uint32_t step_het_comp;
	uint32_t step_id;
};

int init(void) {
	/* Read where slurmd runs; slurmstepd gets slurmd's copy through recv_stepd. */
	return tmpfs_read_conf();
}

void fini(void) {}

int container_p_restore(char *dir_name, bool recover) {
	(void)dir_name;
	(void)recover;
	return tmpfs_restore();
}

int container_p_join(uintptr_t first, uid_t uid, bool step_create) {
	uint32_t job = (uint32_t)first;
	(void)uid;
	if (join3()) {
		job = ((const struct step_id_2411 *)first)->job_id;
		/* slurmd's child about to become a slurmstepd stays outside unless
		 * the whole step is to be in the namespace. */
		if (step_create && !tmpfs_conf.entire_step_in_ns) return 0;
	}
	return tmpfs_join_ns(job);
}

int container_p_join_external(uint32_t job_id) { return tmpfs_ns_fd(job_id); }

int container_p_stepd_create(uint32_t job_id, uintptr_t second) {
	uid_t uid;
	gid_t gid;
	if (emulating_2411()) {
		uid = tmpfs_step_uid_2411((const void *)second);
		gid = tmpfs_step_gid_2411((const void *)second);
	} else {
		uid = (uid_t)second;
		struct passwd *pw = getpwuid(uid);
		gid = pw ? pw->pw_gid : (gid_t)uid;
	}
	return tmpfs_create_ns(job_id, uid, gid);
}

int container_p_stepd_delete(uint32_t job_id) { return tmpfs_delete_ns(job_id); }

int container_p_send_stepd(int fd) { return tmpfs_send_conf(fd); }
int container_p_recv_stepd(int fd) { return tmpfs_recv_conf(fd); }

/* 22.05's hooks that tmpfs leaves to the extern step. */
int container_p_create(uint32_t job_id, uid_t uid) {
	(void)job_id;
	(void)uid;
	return 0;
}
int container_p_add_cont(uint32_t job_id, uint64_t cont_id) {
	(void)job_id;
	(void)cont_id;
	return 0;
}
int container_p_delete(uint32_t job_id) {
	(void)job_id;
	return 0;
}
void container_p_reconfig(void) {}
