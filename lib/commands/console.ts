/**
 * What srun, sbatch and salloc print: their log lines at their default
 * level ("srun: error: ..."), slurmstepd's errors forwarded to srun, task
 * output (srun-output.ts routes and labels it), and srun's lines about
 * task ends.
 */
import os from 'node:os';
import type { HostEvent } from '../host/protocol.js';
import type { CommandName } from './types.js';
import { builtinUsage } from './usage.js';

const LEVELS = ['fatal', 'error', 'info', 'verbose', 'debug', 'debug2', 'debug3'] as const;
const PREFIX: Record<string, string> = {
  fatal: 'fatal: ',
  error: 'error: ',
  warning: 'warning: ',
  info: '',
  verbose: '',
  debug: 'debug:  ',
  debug2: 'debug2: ',
  debug3: 'debug3: ',
};

export class CommandConsole {
  private readonly out: Buffer[] = [];
  private readonly err: Buffer[] = [];
  /** The most verbose level printed: info by default, one step per -v, error only with -Q. */
  private maxLevel = LEVELS.indexOf('info');

  constructor(
    private readonly command: CommandName,
    private readonly sinks: { onStdout?: (c: Buffer) => void; onStderr?: (c: Buffer) => void },
  ) {}

  setVerbosity(verbose: number, quiet: boolean): void {
    this.maxLevel = quiet ? LEVELS.indexOf('error') : Math.min(LEVELS.length - 1, LEVELS.indexOf('info') + verbose);
  }

  stdout(chunk: Buffer | string): void {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.out.push(b);
    this.sinks.onStdout?.(b);
  }

  stderr(chunk: Buffer | string): void {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.err.push(b);
    this.sinks.onStderr?.(b);
  }

  /** A line the command logs itself, as Slurm's log would print it. */
  log(level: string, message: string, program: string = this.command): void {
    // Slurm's warning() prints at the info threshold.
    const index = LEVELS.indexOf((level === 'warning' ? 'info' : level) as (typeof LEVELS)[number]);
    if (index < 0 || index > this.maxLevel) return;
    this.stderr(`${program}: ${PREFIX[level] ?? ''}${message}\n`);
  }

  /** Events of the client process: its log lines, getopt's messages, --help. */
  clientEvent(e: HostEvent): void {
    const ev = e;
    if (ev.t === 'log') {
      // slurm_spank_log: error level, printed bare.
      if (ev.bare) this.stderr(`${ev.msg}\n`);
      else this.log(ev.level, ev.msg);
    } else if (ev.t === 'console' || ev.t === 'print') {
      // --help: the command's own usage, then the plugins' block; srun
      // --mpi=list prints its list alone.
      if (ev.t === 'print' && ev.what !== 'mpi-list') this.stdout(builtinUsage(this.command));
      if (ev.stream === 'stdout') this.stdout(ev.text);
      else this.stderr(ev.text);
    }
  }

  /**
   * A slurmstepd line reaches srun once the step's IO is set up (from
   * user_init on), and only at error level, as slurmstepd logs to task 0's
   * stderr there.
   */
  stepdLog(level: string, message: string, bare: boolean): void {
    if (bare) this.stderr(`${message}\n`);
    else if (level === 'error' || level === 'fatal') this.stderr(`slurmstepd: ${PREFIX[level]}${message}\n`);
  }

  get stdoutText(): string {
    return Buffer.concat(this.out).toString('utf8');
  }

  get stderrText(): string {
    return Buffer.concat(this.err).toString('utf8');
  }
}

/** "0-2,5": task ids as srun lists them. */
export function taskRanges(ids: number[]): string {
  const sorted = [...ids].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(j === i ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** strsignal(3)'s text for a signal name, as srun prints it for a killed task. */
export function signalText(signal: NodeJS.Signals): string {
  const texts: Partial<Record<NodeJS.Signals, string>> = {
    SIGHUP: 'Hangup',
    SIGINT: 'Interrupt',
    SIGQUIT: 'Quit',
    SIGILL: 'Illegal instruction',
    SIGTRAP: 'Trace/breakpoint trap',
    SIGABRT: 'Aborted',
    SIGBUS: 'Bus error',
    SIGFPE: 'Floating point exception',
    SIGKILL: 'Killed',
    SIGUSR1: 'User defined signal 1',
    SIGSEGV: 'Segmentation fault',
    SIGUSR2: 'User defined signal 2',
    SIGPIPE: 'Broken pipe',
    SIGALRM: 'Alarm clock',
    SIGTERM: 'Terminated',
  };
  return texts[signal] ?? `Unknown signal ${os.constants.signals[signal] ?? signal}`;
}
