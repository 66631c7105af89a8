/*
 * The symbols Slurm's loader and mpi interface look up in mpi/pmi2. The
 * hooks that are handed structs pass them to the reader of the release the
 * process emulates (plugin_version, claimed at load: 22.05 or 24.11).
 */
#include <stdbool.h>
#include <stdint.h>

#define PLUGSTACK_CLAIM_LINES 0x160500, 0x180b00
#include "../common/claim_version.h"
#include "pmi2.h"

const char plugin_name[] = "plugstack mpi/pmi2 (PMI-1 and PMI-2 server)";
const char plugin_type[] = "mpi/pmi2";
const uint32_t plugin_id = 102; /* MPI_PLUGIN_PMI2, as Slurm's */

/* 23.02 renamed the structs, 23.11 dropped `self`, 24.11 added sluid. */
static bool emulating_2411(void) { return (plugin_version & 0xffff00) >= 0x170200; }

void *mpi_p_client_prelaunch(const void *job, char ***env) {
	return emulating_2411() ? pmi2_prelaunch_2411(job, env) : pmi2_prelaunch_2205(job, env);
}

int mpi_p_slurmstepd_prefork(const void *step, char ***env) {
	return emulating_2411() ? pmi2_prefork_2411(step, env) : pmi2_prefork_2205(step, env);
}

int mpi_p_slurmstepd_task(const void *task, char ***env) {
	return emulating_2411() ? pmi2_task_2411(task, env) : pmi2_task_2205(task, env);
}
