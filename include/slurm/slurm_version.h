/*
 * slurm/slurm_version.h -- the Slurm release these headers describe.
 *
 * Part of plugstack. Plugins record SLURM_VERSION_NUMBER in their
 * `plugin_version` symbol (see SPANK_PLUGIN in spank.h); the loader compares
 * it with the Slurm version it emulates.
 */
#ifndef _SLURM_VERSION_H_
#define _SLURM_VERSION_H_

/* 24.11.5: one byte each for major, minor and micro. A plugin built for
 * another release defines it on the command line instead, e.g.
 * -DSLURM_VERSION_NUMBER=0x160508 for 22.05 (plugstack cc --slurm-version
 * 22.05 does that), and SPANK_PLUGIN records that release. */
#ifndef SLURM_VERSION_NUMBER
#define SLURM_VERSION_NUMBER 0x180b05
#endif

/* Build a version number, e.g. SLURM_VERSION_NUM(24,11,0), for comparisons. */
#define SLURM_VERSION_NUM(a,b,c) (((a) << 16) + ((b) << 8) + (c))
/* Take a version number apart again. */
#define SLURM_VERSION_MAJOR(a)   (((a) >> 16) & 0xff)
#define SLURM_VERSION_MINOR(a)   (((a) >>  8) & 0xff)
#define SLURM_VERSION_MICRO(a)    ((a)        & 0xff)

#endif
