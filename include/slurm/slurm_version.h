/*
 * slurm/slurm_version.h -- the Slurm release these headers describe.
 *
 * Part of plugstack. Plugins record SLURM_VERSION_NUMBER in their
 * `plugin_version` symbol (see SPANK_PLUGIN in spank.h); the loader compares
 * it with the Slurm version it emulates.
 */
#ifndef _SLURM_VERSION_H_
#define _SLURM_VERSION_H_

/* 24.11.5: one byte each for major, minor and micro. */
#define SLURM_VERSION_NUMBER 0x180b05

/* Build a version number, e.g. SLURM_VERSION_NUM(24,11,0), for comparisons. */
#define SLURM_VERSION_NUM(a,b,c) (((a) << 16) + ((b) << 8) + (c))
/* Take a version number apart again. */
#define SLURM_VERSION_MAJOR(a)   (((a) >> 16) & 0xff)
#define SLURM_VERSION_MINOR(a)   (((a) >>  8) & 0xff)
#define SLURM_VERSION_MICRO(a)    ((a)        & 0xff)

#endif
