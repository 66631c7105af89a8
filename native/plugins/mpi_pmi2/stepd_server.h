/*
 * A node's half of the PMI server, in a process of its own started by
 * slurmstepd_prefork (Slurm's runs it in a thread of slurmstepd): one
 * socket per local task (the task holds the other end as PMI_FD), a
 * connection to srun's half for fences and aborts.
 *
 * Each task's socket first carries a line the task's process writes in
 * slurmstepd_task, before exec ("plugstack-pid=<pid>"), then the task's
 * PMI: a PMI-1 "cmd=init" line, and PMI-1 lines or PMI-2 frames after it,
 * as the version asked for. The replies are Slurm's mpi/pmi2's.
 *
 * When the control socket says so, the server reports what each rank did
 * (its PMI version, finalize, abort, and on request every line both ways)
 * and ends.
 */
#ifndef PMI2_STEPD_SERVER_H
#define PMI2_STEPD_SERVER_H

#include <stdint.h>

struct stepd_job {
	uint32_t jobid, stepid;
	uint32_t nnodes, nodeid, ntasks;
	uint32_t ltasks;
	uint32_t *gtids;    /* ltasks global ranks */
	int *task_fds;      /* ltasks server-side sockets */
	int srun_fd;        /* connected to srun's half */
	char *mapping;      /* PMI_process_mapping */
	int trace;          /* keep every line */
};

/* Serves until ctl asks for the report (a byte) or closes. */
void stepd_server_main(struct stepd_job *job, int ctl) __attribute__((noreturn));

#endif
