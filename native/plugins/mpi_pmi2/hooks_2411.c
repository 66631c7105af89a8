/* Slurm 24.11's structs (plugstack/mpi.h for 24.11.5). */
#define SLURM_VERSION_NUMBER 0x180b05
#include <plugstack/mpi.h>
#define RELEASE(name) name##_2411
#include "hooks.inc"
