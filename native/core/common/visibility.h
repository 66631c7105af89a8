// Symbol visibility for libslurmhost.so.
//
// The library is built with -fvisibility=hidden. Only two kinds of symbols
// are marked with PLUGSTACK_EXPORT: the C API that plugins call (the names
// Slurm's own processes provide) and plugstack_host_main, the single entry
// point of the plugstack-host executable. Everything else stays internal, so
// a plugin can never bind to, or interpose on, a plugstack implementation
// detail.
#pragma once

// The addon compiles the pure parts of the core (config parsing, help
// formatting, tables) into itself and must not export any of these names.
#ifdef PLUGSTACK_NO_EXPORTS
#define PLUGSTACK_EXPORT
#else
#define PLUGSTACK_EXPORT __attribute__((visibility("default")))
#endif
