// salloc's command (salloc.c's _fork_command, and what its parent does
// around it), which Node starts through plugstack-host:
//
//   plugstack-host salloc-command <foreground|group> <error_exit> <file> <argv0> [args...]
//
// The command always leads a process group of its own in salloc's session
// (setpgid, never setsid: a command that opens /dev/tty finds salloc's
// terminal, as under Slurm). With `foreground` (an interactive salloc) that
// group is also made the terminal's foreground one, so Ctrl-C and Ctrl-Z
// reach the command and not salloc, and SIGTSTP stays ignored as salloc's
// child leaves it. Then it becomes the command.
#pragma once

namespace plugstack::salloc_command {

// Does not return when the command starts; otherwise salloc's error line,
// and error_exit.
int run(int argc, char** argv);

}  // namespace plugstack::salloc_command
