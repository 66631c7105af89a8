// The mpi structs in Slurm 24.11's layout (plugstack/mpi.h for 24.11.5).
#define SLURM_VERSION_NUMBER 0x180b05
#include <plugstack/mpi.h>
#define PLUGSTACK_MPI_STRUCTS mpiStructs2411
#include "mpi/structs_impl.inc"
