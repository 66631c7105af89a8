/*
 * hello: a small SPANK plugin to try plugstack with.
 *
 * It adds `--greeting=TEXT` to srun, sbatch and salloc, remembers it, and
 * on the compute side exports HELLO_GREETING into every task's environment.
 * Each callback logs where it runs, so a run shows Slurm's lifecycle.
 *
 *   plugstack cc examples/hello/hello.c -o examples/hello/hello.so
 *   plugstack check examples/hello/plugstack.conf --plugin-dir examples/hello
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/spank.h>

SPANK_PLUGIN(hello, 1);

static char greeting[256] = "hello";

static int set_greeting(int val, const char *optarg, int remote) {
  (void)val;
  (void)remote;
  if (optarg == NULL || optarg[0] == '\0') {
    slurm_error("hello: --greeting needs a text");
    return -1;
  }
  strncpy(greeting, optarg, sizeof greeting - 1);
  return 0;
}

static const char *context_name(void) {
  switch (spank_context()) {
    case S_CTX_LOCAL: return "local";
    case S_CTX_REMOTE: return "remote";
    case S_CTX_ALLOCATOR: return "allocator";
    case S_CTX_SLURMD: return "slurmd";
    case S_CTX_JOB_SCRIPT: return "job_script";
    default: return "unknown";
  }
}

int slurm_spank_init(spank_t sp, int ac, char **av) {
  struct spank_option opt = {
      "greeting", "TEXT", "Greeting exported to every task as HELLO_GREETING.", 1, 0, set_greeting};
  int i;
  for (i = 0; i < ac; i++)
    if (strncmp(av[i], "default=", 8) == 0) strncpy(greeting, av[i] + 8, sizeof greeting - 1);
  slurm_verbose("hello: init in %s context", context_name());
  /* Registering (rather than a static table) also offers the option to
   * sbatch and salloc. */
  if (spank_context() == S_CTX_SLURMD || spank_context() == S_CTX_JOB_SCRIPT) return 0;
  return spank_option_register(sp, &opt);
}

int slurm_spank_local_user_init(spank_t sp, int ac, char **av) {
  uint32_t job = 0, step = 0;
  (void)ac;
  (void)av;
  spank_get_item(sp, S_JOB_ID, &job);
  spank_get_item(sp, S_JOB_STEPID, &step);
  slurm_info("hello: launching step %u.%u with greeting \"%s\"", job, step, greeting);
  return 0;
}

int slurm_spank_user_init(spank_t sp, int ac, char **av) {
  (void)ac;
  (void)av;
  return spank_setenv(sp, "HELLO_GREETING", greeting, 1) == ESPANK_SUCCESS ? 0 : -1;
}

int slurm_spank_task_exit(spank_t sp, int ac, char **av) {
  int status = 0;
  uint32_t task = 0;
  (void)ac;
  (void)av;
  spank_get_item(sp, S_TASK_GLOBAL_ID, &task);
  spank_get_item(sp, S_TASK_EXIT_STATUS, &status);
  slurm_verbose("hello: task %u ended with wait status %d", task, status);
  return 0;
}
