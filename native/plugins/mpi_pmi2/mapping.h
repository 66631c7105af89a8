/* PMI_process_mapping for a step's layout: "(vector,(start,nodes,ranks),...)"
 * with one triple per run of consecutive nodes that hold the same number
 * of consecutive ranks (a block layout; MPICH finds its node-mates in it). */
#ifndef PMI2_MAPPING_H
#define PMI2_MAPPING_H

#include <stdint.h>

/* tasks[n] ranks on node n, tids[n][0..] their ids. A malloc'd string; "" if
 * the layout is not made of consecutive blocks. */
char *process_mapping(uint32_t nnodes, const uint16_t *tasks, uint32_t *const *tids);

#endif
