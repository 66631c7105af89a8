/*
 * The release-independent half of plugstack's mpi/pmi2: what its hooks do,
 * given what each release's structs hold (hooks_2205.c and hooks_2411.c
 * read those, each with plugstack/mpi.h compiled for its release, and the
 * plugin's exported hooks pick the reader of the release being emulated).
 */
#ifndef PMI2_PMI2_H
#define PMI2_PMI2_H

#include <stdbool.h>
#include <stdint.h>

/* What client_prelaunch is told of the step's layout. */
struct pmi2_layout {
	uint32_t node_cnt;
	const char *node_list;
	const uint16_t *tasks;
	uint32_t *const *tids;
};

/* What slurmstepd_prefork is told of the step and this node. */
struct pmi2_node {
	uint32_t jobid, stepid;
	uint32_t nnodes, nodeid, ntasks, ltasks;
	bool batch;
	uint32_t *gtids; /* ltasks */
};

/* What slurmstepd_task is told of one task. */
struct pmi2_task {
	uint32_t jobid, stepid;
	int ltaskid;
	uint32_t gtaskid, ntasks;
};

void *pmi2_client_prelaunch(const struct pmi2_layout *l, char ***env);
int pmi2_prefork(const struct pmi2_node *n, char ***env);
int pmi2_task(const struct pmi2_task *t, char ***env);

/* The readers of each release's structs. */
void *pmi2_prelaunch_2205(const void *job, char ***env);
int pmi2_prefork_2205(const void *step, char ***env);
int pmi2_task_2205(const void *task, char ***env);
void *pmi2_prelaunch_2411(const void *job, char ***env);
int pmi2_prefork_2411(const void *step, char ***env);
int pmi2_task_2411(const void *task, char ***env);

#endif
