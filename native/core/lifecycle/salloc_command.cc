#include "lifecycle/salloc_command.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace plugstack::salloc_command {

namespace {

// Makes this process's group the foreground one of the terminal on
// standard input. salloc's parent side does it after the fork; done here,
// before the exec, a command that reads the terminal at once never finds
// itself in the background. Until then this is a background process,
// which may change the terminal only with SIGTTOU blocked.
void takeTerminal() {
  sigset_t terminalSignals, saved;
  sigemptyset(&terminalSignals);
  sigaddset(&terminalSignals, SIGTTOU);
  sigaddset(&terminalSignals, SIGTTIN);
  sigprocmask(SIG_BLOCK, &terminalSignals, &saved);
  tcsetpgrp(STDIN_FILENO, getpgrp());
  sigprocmask(SIG_SETMASK, &saved, nullptr);
}

}  // namespace

int run(int argc, char** argv) {
  if (argc < 6 || (std::strcmp(argv[2], "foreground") != 0 && std::strcmp(argv[2], "group") != 0)) {
    std::fprintf(stderr, "usage: plugstack-host salloc-command <foreground|group> <error_exit> <file> <argv0> [args...]\n");
    return 2;
  }
  bool foreground = std::strcmp(argv[2], "foreground") == 0;
  int errorExit = std::atoi(argv[3]);
  const char* file = argv[4];

  // Its own group in salloc's session, interactive or not: the child calls
  // setpgid(getpid(), 0) and the parent the same for it (Node does not:
  // it signals this pid alone until the group exists).
  setpgid(0, 0);

  if (foreground) {
    takeTerminal();
    // An interactive salloc ignores SIGTSTP, SIGTTIN and SIGTTOU; its
    // child sets INT, QUIT, TTIN and TTOU back to their default and leaves
    // TSTP ignored: "shells with job control override this".
    signal(SIGTSTP, SIG_IGN);
  }
  // Everything else is at its default here already (Node's spawn resets
  // every signal), as salloc's child resets INT, QUIT, TTIN and TTOU.

  // execvp, as salloc: a file without #! runs under /bin/sh.
  execvp(file, argv + 5);
  std::fprintf(stderr, "salloc: error: _fork_command: Unable to exec command \"%s\": %s\n", file, std::strerror(errno));
  return errorExit;
}

}  // namespace plugstack::salloc_command
