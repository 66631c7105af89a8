// The mpi structs in Slurm 22.05's layout (plugstack/mpi.h for 22.05.8).
#define SLURM_VERSION_NUMBER 0x160508
#include <plugstack/mpi.h>
#define PLUGSTACK_MPI_STRUCTS mpiStructs2205
#include "mpi/structs_impl.inc"
