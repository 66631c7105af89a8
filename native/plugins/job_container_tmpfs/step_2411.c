/* The job's uid and gid in 24.11's slurmstepd record (stepd_create's step). */
#define SLURM_VERSION_NUMBER 0x180b05
#include <plugstack/mpi.h>

uid_t tmpfs_step_uid_2411(const void *step) { return ((const stepd_step_rec_t *)step)->uid; }
gid_t tmpfs_step_gid_2411(const void *step) { return ((const stepd_step_rec_t *)step)->gid; }
