#include "lifecycle/terminal_command.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace plugstack::terminal_command {

int run(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: plugstack-host foreground <error_exit> <file> <argv0> [args...]\n");
    return 2;
  }
  int errorExit = std::atoi(argv[2]);
  const char* file = argv[3];

  // Its own group (salloc's child calls setpgid(getpid(), 0); the parent
  // does the same for it), then the terminal's foreground: salloc's parent
  // side does that after the fork; done here, before the exec, a command
  // that reads the terminal at once never finds itself in the background.
  // Until then this is a background process, which may change the terminal
  // only with SIGTTOU blocked.
  setpgid(0, 0);
  sigset_t terminalSignals, saved;
  sigemptyset(&terminalSignals);
  sigaddset(&terminalSignals, SIGTTOU);
  sigaddset(&terminalSignals, SIGTTIN);
  sigprocmask(SIG_BLOCK, &terminalSignals, &saved);
  tcsetpgrp(STDIN_FILENO, getpgrp());
  sigprocmask(SIG_SETMASK, &saved, nullptr);

  // salloc ignores SIGTSTP, SIGTTIN and SIGTTOU; its child sets INT, QUIT,
  // TTIN and TTOU back to their default and leaves TSTP ignored: "shells
  // with job control override this". Everything else is at its default
  // here already (Node's spawn resets every signal).
  signal(SIGTSTP, SIG_IGN);

  // execvp, as salloc: a file without #! runs under /bin/sh.
  execvp(file, argv + 4);
  std::fprintf(stderr, "salloc: error: _fork_command: Unable to exec command \"%s\": %s\n", file, std::strerror(errno));
  return errorExit;
}

}  // namespace plugstack::terminal_command
