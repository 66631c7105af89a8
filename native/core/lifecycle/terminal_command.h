// salloc's command on a terminal, when salloc is interactive (salloc.c
// _fork_command and what its parent does around it):
//
//   plugstack-host foreground <error_exit> <file> <argv0> [args...]
//
// Node starts this in its place: it leads a process group of its own,
// makes that group the terminal's foreground one (so Ctrl-C and Ctrl-Z
// reach the command, not salloc), keeps SIGTSTP ignored as salloc's child
// does, and becomes the command.
#pragma once

namespace plugstack::terminal_command {

// Does not return when the command starts; otherwise salloc's error line,
// and error_exit.
int run(int argc, char** argv);

}  // namespace plugstack::terminal_command
