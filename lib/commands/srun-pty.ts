/**
 * srun --pty (srun.c, set_winsize): before local_user_init srun reads the
 * size of its terminal, on standard output (22.05) or on standard input or
 * the descriptor --pty=N names (24.11). Without a terminal there it says
 * so twice and launches the step without a pseudo-terminal, as every run
 * of plugstack does: with one, a real srun would give task 0 a
 * pseudo-terminal and put its own terminal in raw mode, which plugstack
 * does not emulate and says so. Where the value names a descriptor (24.11),
 * one that does not start with a digit is fatal, its job and step already
 * made.
 */
import os from 'node:os';
import { native } from '../native/binding.js';
import { releaseRules } from '../releases.generated.js';
import type { CommandConsole } from './console.js';

/**
 * pty: the option's value ('' bare); ownDescriptors: srun's standard
 * descriptors are this process's (the CLI's), else it has no terminal.
 */
export function checkPty(slurmVersion: string, pty: string, ownDescriptors: boolean, console: CommandConsole): 'fatal' | undefined {
  const { ptyDescriptor } = releaseRules(slurmVersion).client;
  const named = ptyDescriptor === 'stdin' && pty !== '';
  // isdigit of its first character, then atoi: "3x" is descriptor 3.
  if (named && !/^[0-9]/.test(pty)) {
    console.log('fatal', `--pty=${pty} must be numeric file descriptor`);
    return 'fatal';
  }
  const fd = named ? Number.parseInt(pty, 10) : ptyDescriptor === 'stdin' ? 0 : 1;
  const size = ownDescriptors ? native().terminalSize(fd) : os.constants.errno.ENOTTY;
  if (typeof size === 'number') {
    // %m: strerror's text.
    console.log('error', `ioctl(TIOCGWINSZ): ${native().slurmStrerror(size)}`);
    console.log('error', `Not using a pseudo-terminal, disregarding --pty${named ? `=${pty}` : ''} option`);
    return undefined;
  }
  console.log('warning', 'srun --pty: task 0 runs without a pseudo-terminal (plugstack does not emulate one)', 'plugstack');
  return undefined;
}
