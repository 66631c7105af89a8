/*
 * The physical floor of a step: fork and execve N copies of a command,
 * then wait for all of them. No plugin, no protocol, no environment work.
 *
 *   floor N command [args...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: floor N command [args...]\n");
    return 2;
  }
  int n = atoi(argv[1]);
  for (int i = 0; i < n; i++) {
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
      execve(argv[2], argv + 2, environ);
      _exit(127);
    }
  }
  int status, failed = 0;
  while (wait(&status) > 0) failed |= status != 0;
  return failed;
}
