/*
 * srun's half of the PMI server, in a process of its own started by
 * client_prelaunch: every node's server connects to it; a fence completes
 * when every node has sent its puts, and every node gets all of them; an
 * abort ends every node's tasks.
 */
#ifndef PMI2_SRUN_SERVER_H
#define PMI2_SRUN_SERVER_H

#include <stdint.h>

/* Runs until ctl has something to read (or closes); never returns. */
void srun_server_main(int listen_fd, int ctl, uint32_t nnodes) __attribute__((noreturn));

#endif
