/*
 * The floor of check(): what loading the stack costs with nothing else. N
 * processes at once, as check() runs its five contexts, each dlopen()s
 * every plugin in order (RTLD_LAZY, as Slurm's plugin loader does), then
 * dlclose()s them in the reverse order (as spank_fini does), and exits. No
 * callbacks, no protocol, no report.
 *
 *   load-floor N plugin.so...
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: load-floor N plugin.so...\n");
    return 2;
  }
  int n = atoi(argv[1]);
  int count = argc - 2;
  for (int i = 0; i < n; i++) {
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
      void **handles = calloc(count, sizeof *handles);
      if (!handles) _exit(1);
      for (int p = 0; p < count; p++) {
        handles[p] = dlopen(argv[2 + p], RTLD_LAZY);
        if (!handles[p]) {
          fprintf(stderr, "load-floor: %s\n", dlerror());
          _exit(1);
        }
      }
      for (int p = count - 1; p >= 0; p--) dlclose(handles[p]);
      _exit(0);
    }
  }
  int status, failed = 0;
  while (wait(&status) > 0) failed |= status != 0;
  return failed;
}
