#include "mapping.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *process_mapping(uint32_t nnodes, const uint16_t *tasks, uint32_t *const *tids) {
	size_t cap = 32 + (size_t)nnodes * 40, at = 0;
	char *out = malloc(cap);
	if (!out) return NULL;
	uint32_t next = 0;
	for (uint32_t n = 0; n < nnodes; n++)
		for (uint16_t t = 0; t < tasks[n]; t++)
			if (tids[n][t] != next++) {
				out[0] = '\0';
				return out;
			}
	at += (size_t)snprintf(out + at, cap - at, "(vector");
	for (uint32_t n = 0; n < nnodes;) {
		uint32_t run = 1;
		while (n + run < nnodes && tasks[n + run] == tasks[n]) run++;
		at += (size_t)snprintf(out + at, cap - at, ",(%u,%u,%u)", n, run, (unsigned)tasks[n]);
		n += run;
	}
	snprintf(out + at, cap - at, ")");
	return out;
}
