/**
 * A command's hold on everything it starts. srun, sbatch and salloc each
 * run under one CommandControl: every host process (the client, each
 * node's slurmstepd, prolog and epilog helpers, slurmd's scan) is tracked
 * here, signals and the command's time bound arrive here, and close() —
 * called in a finally — ends whatever is still running, whatever happened.
 *
 * Signals come from the CLI (the process's own SIGINT, SIGTERM, ...) or
 * from an AbortSignal given to the API, which counts as a SIGTERM; the
 * command decides what each means, as srun, sbatch and salloc do.
 */
import os from 'node:os';
import type { HostHandle, HostRun } from '../host/host-process.js';
import type { CommandName } from '../commands/types.js';
import type { HostRole, SignalCommand } from '../host/protocol.js';
import { prestartHost, type SpareHost } from '../host/spare-host.js';
import type { HostSpawnOptions } from '../host/zygote.js';

/**
 * The signals a command takes as Slurm's does (srun's signal thread,
 * salloc's and sbatch's handlers). SIGUSR1 and SIGUSR2 are srun's to
 * forward to the tasks; left to Node, the first would open its inspector
 * and the second end the process. SIGALRM would end it too, and Node
 * ignores SIGPIPE.
 */
export type CommandSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP' | 'SIGQUIT' | 'SIGUSR1' | 'SIGUSR2' | 'SIGCONT' | 'SIGALRM' | 'SIGPIPE';

/**
 * Which signals each command takes from its process. srun's are its
 * sig_array, all waited for by its signal thread (srun.c). salloc's
 * sig_array has no SIGCONT or SIGALRM: SIGCONT only resumes it, SIGALRM
 * kills it, which plugstack takes so as to end what it started. sbatch
 * has no handlers: every signal but SIGCONT would kill `sbatch -W`, which
 * plugstack takes as a cancel of the job it runs.
 */
const COMMAND_SIGNALS: Record<CommandName, readonly CommandSignal[]> = {
  srun: ['SIGINT', 'SIGQUIT', 'SIGCONT', 'SIGTERM', 'SIGHUP', 'SIGALRM', 'SIGUSR1', 'SIGUSR2', 'SIGPIPE'],
  salloc: ['SIGHUP', 'SIGINT', 'SIGQUIT', 'SIGPIPE', 'SIGTERM', 'SIGUSR1', 'SIGUSR2', 'SIGALRM'],
  sbatch: ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2', 'SIGALRM', 'SIGPIPE'],
};

/** Where signals for a command come from (the CLI passes its process's). */
export interface SignalSource {
  /** Calls handler for each signal; returns a function that stops it. */
  subscribe(handler: (signal: CommandSignal) => void): () => void;
}

/** How long close() waits for killed hosts to be gone. */
const CLOSE_WAIT_MS = 5_000;
/**
 * A time limit's sequence (slurmd's _rpc_timelimit): every step of the job
 * logs SIG_TIME_LIMIT first, then the tasks get SIGTERM, then, after
 * KillWait (30 s by default), SIGKILL. The steps of one job live in
 * several plugstack processes (the sruns inside a batch script), each
 * keeping the job's end time: the pause lets every step log before any
 * task dies.
 */
const TIME_LIMIT_TERM_AFTER_MS = 100;
const { SIGCONT, SIGTERM, SIGKILL } = os.constants.signals;
const KILL_WAIT_MS = 30_000;

export class CommandControl {
  private readonly hosts = new Set<HostHandle>();
  private readonly running = new Set<Promise<HostRun>>();
  private stepHosts = new Set<HostHandle>();
  /** Hosts started ahead of their request, by what the command calls them (spare-host.ts). */
  private readonly spares = new Map<string, SpareHost>();
  /** Every spare started: close() waits until the unused ones are gone. */
  private readonly allSpares: SpareHost[] = [];
  private readonly unsubscribe: (() => void)[] = [];
  private readonly closers: (() => void)[] = [];
  /** Processes the command waits for itself (trackProcess): how to kill each. */
  private readonly processes = new Set<() => void>();
  private readonly timer: NodeJS.Timeout;
  private signalHandler: ((signal: CommandSignal) => void) | undefined;
  private timeoutHandler: (() => void) | undefined;
  private readonly pending: CommandSignal[] = [];
  /** Set once the command's time bound has passed. */
  timedOut = false;
  private closed = false;
  /** When the command must be over, in ms since the epoch. */
  readonly deadline: number;

  constructor(options: { timeoutMs: number; abort?: AbortSignal; signals?: SignalSource }) {
    this.deadline = Date.now() + options.timeoutMs;
    this.timer = setTimeout(() => {
      this.timedOut = true;
      if (this.timeoutHandler) this.timeoutHandler();
      else this.killAll();
    }, options.timeoutMs);
    if (options.signals) this.unsubscribe.push(options.signals.subscribe((s) => this.deliver(s)));
    if (options.abort) {
      const onAbort = () => this.deliver('SIGTERM');
      if (options.abort.aborted) queueMicrotask(onAbort);
      else {
        options.abort.addEventListener('abort', onAbort, { once: true });
        this.unsubscribe.push(() => options.abort!.removeEventListener('abort', onAbort));
      }
    }
  }

  /** Time left before the command's bound, for a host's own backstop. */
  remainingMs(): number {
    return Math.max(1, this.deadline - Date.now());
  }

  /** A host this command started: it ends with the command at the latest. */
  track<H extends HostHandle>(handle: H): H {
    this.hosts.add(handle);
    const done = handle.finished.finally(() => {
      this.hosts.delete(handle);
      this.stepHosts.delete(handle);
      this.running.delete(done);
    });
    this.running.add(done);
    return handle;
  }

  /**
   * Starts a host's process now, for a request that can only go later
   * (spare-host.ts); `spare(key)` hands it to the host that takes it. One
   * never taken is ended by killAll() and close().
   */
  prestart(key: string, role: HostRole, options: HostSpawnOptions): void {
    if (this.closed) return;
    this.spares.get(key)?.discard();
    const spare = prestartHost(role, options);
    this.spares.set(key, spare);
    this.allSpares.push(spare);
  }

  /** The host started ahead under this name, if any (given once). */
  spare(key: string): SpareHost | undefined {
    const spare = this.spares.get(key);
    this.spares.delete(key);
    return spare;
  }

  /** The slurmstepd hosts of the step now running: signals go to them. */
  trackStepHost(handle: HostHandle): void {
    this.track(handle);
    this.stepHosts.add(handle);
  }

  /** Sends every running slurmstepd of the step a signal request. */
  signalStep(signal: number, why: SignalCommand['why'] = 'forward'): void {
    for (const h of this.stepHosts) {
      // A kill request ends the step early: plugin code it kills was cancelled.
      if (why === 'cancel') h.note(this.timedOut ? 'timeout' : 'cancel');
      h.send({ t: 'signal', signal, why });
    }
  }

  /**
   * srun's SIG_TERM_KILL to its step (-K): slurmstepd logs the cancellation,
   * sends SIGCONT and SIGTERM, and SIGKILL after KillWait (req.c).
   */
  terminateStep(): void {
    this.signalStep(0, 'cancel');
    this.signalStep(SIGCONT);
    this.signalStep(SIGTERM);
    setTimeout(() => this.signalStep(SIGKILL), KILL_WAIT_MS).unref();
  }

  /** The job's time limit has passed: the step is cancelled as slurmd does it. */
  timeLimit(): void {
    this.signalStep(0, 'time_limit');
    setTimeout(() => this.signalStep(SIGTERM), TIME_LIMIT_TERM_AFTER_MS).unref();
    setTimeout(() => this.signalStep(SIGKILL), KILL_WAIT_MS).unref();
  }

  /** Kills the hosts caught in plugin code (they cannot take a request): a timeout. */
  killHung(): void {
    for (const h of this.hosts) if (h.inPluginCode()) h.kill('timeout');
  }

  get stepRunning(): boolean {
    return this.stepHosts.size > 0;
  }

  /** What the command does on a signal; signals that came before are replayed. */
  onSignal(handler: (signal: CommandSignal) => void): void {
    this.signalHandler = handler;
    for (const s of this.pending.splice(0)) handler(s);
  }

  /**
   * The command has ended and so has its job: what runs now (the job's
   * epilog) is slurmd's, which on a cluster no signal to the command
   * reaches, since the command has returned. It runs to its end; the first
   * signal says so, a second stops it.
   */
  jobEnding(jobId: number, say: (line: string) => void): void {
    let told = false;
    this.onSignal((signal) => {
      if (signal === 'SIGCONT') return;
      if (!told) {
        told = true;
        return say(`job ${jobId} has ended; its epilog runs to its end, as slurmd runs it (a second signal stops it)`);
      }
      say(`job ${jobId}'s epilog stopped by ${signal}`);
      this.killAll();
    });
  }

  /** What the command does when its time bound passes (default: end everything). */
  onTimeout(handler: () => void): void {
    this.timeoutHandler = handler;
  }

  private deliver(signal: CommandSignal): void {
    if (this.signalHandler) this.signalHandler(signal);
    else this.pending.push(signal);
  }

  /**
   * Kills every host now. A cancel is not their fault; at a timeout, a host
   * caught in plugin code is the one that timed out, the others are only
   * cancelled with it.
   */
  killAll(reason: 'cancel' | 'timeout' = 'cancel'): void {
    for (const h of this.hosts) h.kill(reason === 'timeout' && h.inPluginCode() ? 'timeout' : 'cancel');
    for (const kill of this.processes) kill();
    for (const s of this.spares.values()) s.discard();
    this.spares.clear();
  }

  /**
   * A process the command runs itself while it waits for it (srun's own
   * prolog and epilog): killed with the hosts (a timeout, a cancel). The
   * returned function forgets it once it has ended.
   */
  trackProcess(kill: () => void): () => void {
    this.processes.add(kill);
    return () => this.processes.delete(kill);
  }

  /** Something else the command started (salloc's command): ended by close(). */
  atClose(end: () => void): void {
    this.closers.push(end);
  }

  /** Ends everything still running and waits (bounded) until it is gone. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    for (const u of this.unsubscribe.splice(0)) u();
    for (const end of this.closers.splice(0)) end();
    this.killAll();
    const spares = this.allSpares.splice(0).map((s) => s.ended);
    if (this.running.size || spares.length) {
      let bound: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.running, ...spares]),
        new Promise((r) => {
          bound = setTimeout(r, CLOSE_WAIT_MS);
          bound.unref();
        }),
      ]);
      clearTimeout(bound);
    }
  }
}

/**
 * SIGPIPEs the kernel raised at plugstack's own writes to a reader that went
 * away, not yet seen. srun's output thread gets such a signal in the thread
 * that wrote, where it stays blocked: a real srun whose output pipe closes
 * goes on (its tasks run to their end, exit 0); only a SIGPIPE sent to it
 * reaches its signal thread.
 */
let ownPipeSignals = 0;

/** One of plugstack's writes failed with EPIPE: the SIGPIPE that came with it is not the command's. */
export function ownWriteBrokePipe(): void {
  ownPipeSignals++;
}

/** The CLI's signals: the process's own that `command` takes, for as long as it runs. */
export function processSignals(command: CommandName): SignalSource {
  return {
    subscribe(handler) {
      const listeners = COMMAND_SIGNALS[command].map((s) => {
        const l = () => {
          if (s === 'SIGPIPE' && ownPipeSignals > 0) ownPipeSignals--;
          else handler(s);
        };
        process.on(s, l);
        return [s, l] as const;
      });
      return () => {
        for (const [s, l] of listeners) process.off(s, l);
      };
    },
  };
}
