/* Slurm 22.05's structs (plugstack/mpi.h for 22.05.8). */
#define SLURM_VERSION_NUMBER 0x160508
#include <plugstack/mpi.h>
#define RELEASE(name) name##_2205
#include "hooks.inc"
