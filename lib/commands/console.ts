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

/** glibc's strsignal(3) texts, by signal number (1 to 31, as on x86-64 Linux). */
const SIGNAL_TEXTS = [
  'Hangup', 'Interrupt', 'Quit', 'Illegal instruction', 'Trace/breakpoint trap', 'Aborted', 'Bus error',
  'Floating point exception', 'Killed', 'User defined signal 1', 'Segmentation fault', 'User defined signal 2',
  'Broken pipe', 'Alarm clock', 'Terminated', 'Stack fault', 'Child exited', 'Continued', 'Stopped (signal)',
  'Stopped', 'Stopped (tty input)', 'Stopped (tty output)', 'Urgent I/O condition', 'CPU time limit exceeded',
  'File size limit exceeded', 'Virtual timer expired', 'Profiling timer expired', 'Window changed', 'I/O possible',
  'Power failure', 'Bad system call',
];
/** glibc's SIGRTMIN: 32 and 33 are its own threads'. */
const SIGRTMIN = 34;

/** strsignal(3)'s text for a signal (a name or a number), as srun prints it for a killed task. */
export function signalText(signal: NodeJS.Signals | number): string {
  const n = typeof signal === 'number' ? signal : os.constants.signals[signal];
  if (n === undefined) return `Unknown signal ${signal}`;
  if (n >= 1 && n <= SIGNAL_TEXTS.length) return SIGNAL_TEXTS[n - 1]!;
  if (n >= SIGRTMIN && n <= 64) return `Real-time signal ${n - SIGRTMIN}`;
  return `Unknown signal ${n}`;
}
