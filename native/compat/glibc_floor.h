/*
 * The oldest glibc the shipped binaries load on: 2.28 (RHEL 8, where many
 * Slurm sites are). They are built on a newer system, whose linker binds
 * every glibc function to its newest version (dlopen@GLIBC_2.34,
 * stat64@GLIBC_2.33, ...), and such a binary refuses to load on an older
 * glibc. The files of native/compat/ give those references a different
 * target: the binaries are linked with -Wl,--wrap=NAME (binding.gyp), which
 * turns every reference to NAME, in our code and in the static libstdc++
 * and libgcc alike, into one to __wrap_NAME, defined here in terms of
 * what glibc 2.28 already has: the same function at its original version
 * (a .symver pin), a raw system call, or a small equivalent.
 * test/glibc-floor.test.ts reads the built files and fails on any newer
 * version; test/old-glibc.test.ts runs them on an older system.
 */
#ifndef PLUGSTACK_GLIBC_FLOOR_H
#define PLUGSTACK_GLIBC_FLOOR_H

/* The version every glibc function of the architecture's first glibc has. */
#if defined(__x86_64__)
#define PLUGSTACK_GLIBC_BASE "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define PLUGSTACK_GLIBC_BASE "GLIBC_2.17"
#else
#error "native/compat: name the base glibc version of this architecture"
#endif

/* References to LOCAL in this file become references to NAME@base. */
#define PLUGSTACK_PIN_BASE(local, name) __asm__(".symver " #local "," #name "@" PLUGSTACK_GLIBC_BASE)

#endif
