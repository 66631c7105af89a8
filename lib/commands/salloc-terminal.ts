/**
 * salloc's job control on a terminal (salloc.c, 22.05 and 24.11 alike).
 *
 * salloc is interactive when its standard input is a terminal (tcgetattr
 * works) whose foreground process group is salloc's own, and --no-shell is
 * not given. Then it saves the terminal's mode, ignores SIGTSTP, SIGTTIN
 * and SIGTTOU, leads a process group and takes the terminal; its command
 * leads a group of its own, which is made the foreground one, with SIGTSTP
 * still ignored. So Ctrl-C reaches the command alone (which dies of it, and
 * salloc relinquishes the allocation as for any end of its command), and
 * Ctrl-Z stops nothing. Once the command has ended salloc takes the
 * terminal back; at its exit it puts the saved mode back and hands the
 * terminal to its parent's process group.
 *
 * A terminal that is not salloc's controlling one (no foreground group)
 * ends salloc before the allocation: "no controlling terminal: please set
 * --no-shell".
 */
import { native } from '../native/binding.js';

export interface SallocTerminal {
  /** After the command: the terminal back to salloc's group. */
  commandEnded(): void;
  /** At salloc's end (once: the command's close): the saved mode back, the terminal to the parent's group. */
  restore(): void;
}

/** What salloc's check makes of its standard input (descriptor fd). */
export function checkTerminal(fd: number): 'interactive' | 'not interactive' | 'no controlling terminal' {
  const state = native().terminalState(fd);
  if (state === null) return 'not interactive';
  if (state.foreground < 0) return 'no controlling terminal';
  return state.foreground === state.own ? 'interactive' : 'not interactive';
}

/** salloc takes the terminal, before it starts its command. */
export function takeTerminal(fd: number): SallocTerminal {
  const binding = native();
  // Saved first: _reset_input_mode puts it back at exit, in case the
  // command died leaving the terminal in another mode.
  const saved = binding.terminalMode(fd);
  binding.ignoreJobControlSignals();
  binding.leadProcessGroup();
  // Its own group now (a session leader's setpgid fails, its group being its pid already).
  const own = binding.terminalState(fd)?.own ?? process.pid;
  binding.setForegroundGroup(fd, own);
  return {
    commandEnded: () => {
      binding.setForegroundGroup(fd, own);
    },
    restore: () => {
      if (saved) binding.setTerminalMode(fd, saved);
      const state = binding.terminalState(fd);
      if (state && state.parent > 0) binding.setForegroundGroup(fd, state.parent);
    },
  };
}
