/*
 * plugstack's own plugins serve the release lines they were built for
 * (PLUGSTACK_CLAIM_LINES: 22.05, 24.11) and claim the exact micro release
 * the host emulates: their plugin_version is set, before the loader reads
 * it, from the host's plugstack_slurm_version_number() when that is one of
 * their lines (a constructor runs at dlopen, before Slurm's loader checks
 * the version). Otherwise they keep SLURM_VERSION_NUMBER, and a host of
 * another release refuses them as it refuses any plugin built for another.
 */
#ifndef PLUGSTACK_CLAIM_VERSION_H
#define PLUGSTACK_CLAIM_VERSION_H

#include <stddef.h>
#include <stdint.h>

#include <slurm/slurm_version.h>

uint32_t plugin_version = SLURM_VERSION_NUMBER;

extern uint32_t plugstack_slurm_version_number(void) __attribute__((weak));

__attribute__((constructor)) static void plugstack_claim_version(void) {
	if (!plugstack_slurm_version_number)
		return;
	static const uint32_t lines[] = {PLUGSTACK_CLAIM_LINES};
	uint32_t host = plugstack_slurm_version_number();
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
		if ((host & 0xffff00) == lines[i])
			plugin_version = host;
}

#endif
