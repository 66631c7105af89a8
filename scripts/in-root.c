/*
 * Runs a program of the Slurm root (scripts/real-slurm.mjs, release 24.11)
 * from this machine: joins the mount namespace that holds the root's bind
 * mounts, enters the root, goes to the caller's working directory (the same
 * path inside: /tmp and the repository are bind-mounted at their own
 * paths), and executes /usr/bin/<name> or /usr/sbin/<name>, <name> being
 * this program's own name (a link per command: srun, sbatch, sinfo, cc...).
 * The environment, arguments, file descriptors and signals are the
 * caller's: nothing is added, so what the command sees is what it was given.
 *
 * Built by real-slurm.mjs with -DHOLDER_NS=<path of /proc/PID/ns/mnt>
 * -DROOT=<the root>.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  char cwd[PATH_MAX], prog[PATH_MAX];
  const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  (void)argc;
  if (!getcwd(cwd, sizeof cwd)) snprintf(cwd, sizeof cwd, "/");
  int ns = open(HOLDER_NS, O_RDONLY | O_CLOEXEC);
  if (ns < 0 || setns(ns, CLONE_NEWNS) != 0) {
    fprintf(stderr, "in-root: cannot join the Slurm root's namespace (%s): %s\n", HOLDER_NS, strerror(errno));
    return 127;
  }
  if (chroot(ROOT) != 0 || chdir("/") != 0) {
    fprintf(stderr, "in-root: cannot enter %s: %s\n", ROOT, strerror(errno));
    return 127;
  }
  if (chdir(cwd) != 0) {
    fprintf(stderr, "in-root: %s is not inside the root (only /tmp and the repository are): %s\n", cwd, strerror(errno));
    return 127;
  }
  snprintf(prog, sizeof prog, "/usr/bin/%s", name);
  if (access(prog, X_OK) != 0) snprintf(prog, sizeof prog, "/usr/sbin/%s", name);
  argv[0] = (char *)name;
  execv(prog, argv);
  fprintf(stderr, "in-root: %s: %s\n", prog, strerror(errno));
  return 127;
}
