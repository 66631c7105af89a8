/*
 * plugstack-host's start: the C runtime start file of glibc 2.34 and later
 * calls __libc_start_main@GLIBC_2.34 and leaves running the executable's
 * constructors to it. This calls the original __libc_start_main instead,
 * which every glibc has, and hands it the constructors to run, as start
 * files did before 2.34 (glibc 2.34 and later run them when given them,
 * too). See glibc_floor.h.
 */
#include <stddef.h>

#include "glibc_floor.h"

extern "C" {

typedef int (*main_fn)(int, char**, char**);
typedef void (*init_fn)(int, char**, char**);

extern int plugstack_libc_start_main(main_fn, int, char**, init_fn, void (*)(void), void (*)(void), void*);
PLUGSTACK_PIN_BASE(plugstack_libc_start_main, __libc_start_main);

/* Provided by the linker for every executable. */
extern void _init(void);
extern init_fn __init_array_start[] __attribute__((visibility("hidden")));
extern init_fn __init_array_end[] __attribute__((visibility("hidden")));

/* What the start files of glibc before 2.34 passed (__libc_csu_init). */
static void run_constructors(int argc, char** argv, char** envp) {
  _init();
  for (init_fn* f = __init_array_start; f < __init_array_end; f++) (*f)(argc, argv, envp);
}

int __wrap___libc_start_main(main_fn main, int argc, char** argv, init_fn init, void (*fini)(void),
                             void (*rtld_fini)(void), void* stack_end) {
  if (init == nullptr) init = run_constructors;
  return plugstack_libc_start_main(main, argc, argv, init, fini, rtld_fini, stack_end);
}

}  // extern "C"
