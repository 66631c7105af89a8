/*
 * plugstack/job_container.h -- the job_container plugin interface.
 *
 * Part of plugstack. Slurm installs no header for job_container plugins
 * (they are built inside Slurm's tree); this one declares, for the release
 * SLURM_VERSION_NUMBER selects (22.05 or 24.11), the hooks such a plugin
 * must define, with that release's names, arguments and linkage. A plugin
 * built against it loads in Slurm's slurmd and slurmstepd of that release
 * as well as in plugstack.
 *
 * Build a plugin with:   plugstack cc plugin.c -o job_container_NAME.so
 *                        (add --slurm-version 22.05 for that release,
 *                         --slurm-version 24.11.0 for 24.11.0's join)
 *
 * It is selected with slurm.conf's JobContainerType=job_container/NAME (a
 * comma list; each is called in turn, the first non-zero result stops the
 * others), found as job_container_NAME.so along PluginDir, and must match
 * the release to the micro version.
 */
#ifndef PLUGSTACK_JOB_CONTAINER_H
#define PLUGSTACK_JOB_CONTAINER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>

/* slurm_step_id_t and stepd_step_rec_t in the release's layout. */
#include <plugstack/mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 24.05 dropped create, add_cont, delete and reconfig; 23.02 gave
 * stepd_create the step record and added send_stepd/recv_stepd. plugstack
 * emulates 22.05 and 24.11: below 24.05 the header is 22.05's. */
#if SLURM_VERSION_NUMBER >= 0x180500
#define PLUGSTACK_JOB_CONTAINER_2411 1
#else
#define PLUGSTACK_JOB_CONTAINER_2411 0
#endif

/* 24.11.1 gave join the step's id and whether the caller is about to
 * become a slurmstepd (24.11.0 still has join(job_id, uid)). */
#if PLUGSTACK_JOB_CONTAINER_2411 && SLURM_VERSION_NUMBER >= 0x180b01
#define PLUGSTACK_JOB_CONTAINER_JOIN3 1
#else
#define PLUGSTACK_JOB_CONTAINER_JOIN3 0
#endif

/* The extern step's id (PrologFlags=Contain), and the id of a step id's
 * field that has none. */
#ifndef SLURM_EXTERN_CONT
#define SLURM_EXTERN_CONT (0xfffffffc)
#endif

/*
 * What every plugin defines (Slurm's generic plugin loader):
 *
 *   const char plugin_name[]      = "...";                an array, not a pointer
 *   const char plugin_type[]      = "job_container/NAME";
 *   const uint32_t plugin_version = SLURM_VERSION_NUMBER; all three numbers must match
 *
 * init() and fini() are optional; init() returning non-zero refuses the
 * plugin (slurmd and slurmstepd then end). JOB_CONTAINER_PLUGIN
 * (plugstack's convenience; Slurm has none) defines the three.
 */
#define JOB_CONTAINER_PLUGIN(name, text)                            \
	const char plugin_name[] = text;                              \
	const char plugin_type[] = "job_container/" #name;            \
	const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/*
 * The hooks. Every one must exist, even as a stub returning SLURM_SUCCESS:
 * a plugin missing one ends the process that loads it ("Plugin loading
 * failed due to missing symbols. Plugin is corrupted."), after its init()
 * ran. Each returns SLURM_SUCCESS (0) or an error, except join_external.
 *
 * Where each is called (the README's "job_container plugins" has the whole
 * table):
 *   restore        slurmd, once at start (dir_name: SlurmdSpoolDir; recover:
 *                  not started with -c); its failure is only logged
 *   stepd_create   the extern step's slurmstepd (PrologFlags=Contain), first
 *   stepd_delete   the extern step's slurmstepd, at its end
 *   join           a process about to run the job's code: each task before
 *                  it becomes the user (failure: the task exits 1), task
 *                  prolog/epilog, and more per release
 *   join_external  a process outside the job asks for its namespace
 *                  (pam_slurm_adopt): return an fd it can setns(2) into,
 *                  or <= 0 for none
 */
#if PLUGSTACK_JOB_CONTAINER_2411

#if PLUGSTACK_JOB_CONTAINER_JOIN3
/* step_create: true in slurmd's child that becomes a step's slurmstepd
 * (there the step's id is in step_id->step_het_comp and step_id->step_id
 * is NO_VAL, as Slurm builds it); false everywhere else. */
extern int container_p_join(slurm_step_id_t *step_id, uid_t uid, bool step_create);
#else
extern int container_p_join(uint32_t job_id, uid_t uid);
#endif
extern int container_p_join_external(uint32_t job_id);
extern int container_p_restore(char *dir_name, bool recover);
extern int container_p_stepd_create(uint32_t job_id, stepd_step_rec_t *step);
extern int container_p_stepd_delete(uint32_t job_id);
/* slurmd writes what its plugins want every slurmstepd to know on fd (in
 * the order of JobContainerType); each slurmstepd reads it back before
 * anything of its step. A failing recv_stepd ends the slurmstepd. */
extern int container_p_send_stepd(int fd);
extern int container_p_recv_stepd(int fd);

#else /* 22.05 */

/* slurmd: before a job's first step, batch script or prolog on the node. */
extern int container_p_create(uint32_t job_id, uid_t uid);
/* slurmstepd: once the step's processes are in their process container. */
extern int container_p_add_cont(uint32_t job_id, uint64_t cont_id);
extern int container_p_join(uint32_t job_id, uid_t uid);
extern int container_p_join_external(uint32_t job_id);
/* slurmd: when the job has ended on the node (after its epilog). */
extern int container_p_delete(uint32_t job_id);
extern int container_p_restore(char *dir_name, bool recover);
/* slurmd: on scontrol reconfigure. */
extern void container_p_reconfig(void);
extern int container_p_stepd_create(uint32_t job_id, uid_t uid);
extern int container_p_stepd_delete(uint32_t job_id);

#endif

#ifdef __cplusplus
}
#endif

#endif
