/*
 * mpi/none for Slurm 22.05, where "none" (and "openmpi") is a plugin that
 * every srun and slurmstepd loads and calls: stubs that succeed, as
 * Slurm's own mpi_none.so. plugstack uses a site's mpi_none.so from
 * PluginDir when it has one, this one otherwise. 24.11 has no such plugin:
 * "none" loads nothing there.
 */
#include <plugstack/mpi.h>

#define PLUGSTACK_CLAIM_LINES 0x160500
#include "../common/claim_version.h"

const char plugin_name[] = "mpi none plugin";
const char plugin_type[] = "mpi/none";
const uint32_t plugin_id = MPI_PLUGIN_NONE;

int mpi_p_slurmstepd_prefork(const stepd_step_rec_t *step, char ***env) { return SLURM_SUCCESS; }

int mpi_p_slurmstepd_task(const mpi_plugin_task_info_t *job, char ***env) { return SLURM_SUCCESS; }

mpi_plugin_client_state_t *mpi_p_client_prelaunch(const mpi_plugin_client_info_t *job, char ***env)
{
	/* Any pointer but NULL: success. */
	return (void *)0xdeadbeef;
}

int mpi_p_client_fini(mpi_plugin_client_state_t *state) { return SLURM_SUCCESS; }

void mpi_p_conf_options(s_p_options_t **full_options, int *full_options_cnt) {}

void mpi_p_conf_set(s_p_hashtbl_t *tbl) {}

s_p_hashtbl_t *mpi_p_conf_get(void) { return NULL; }

plugstack_mpi_list_t mpi_p_conf_get_printable(void) { return NULL; }
