/**
 * A host process started before its request can go (issue 17): the
 * zygote forks it (or Node spawns it, with a keeper of its own), it says hello, and it
 * waits, running no plugin code, until startHost hands it its request. A
 * command asks for one while the role before it still runs (the step's
 * hosts while the prolog runs, the epilog's while srun ends), and the
 * request still goes only when Slurm's order allows; what costs time in a
 * host's start (the fork, the hello, Node's sockets) is then
 * off the path.
 *
 * Only a host of exactly the same shape can be taken: the same executable,
 * role, environment (in the same order), working directory and standard
 * input, started while Node had the same ids, groups and umask. One that differs, or has ended, is not used (and a fresh host
 * starts as before). One never taken — the command failed, was cancelled
 * or timed out before it — is ended by its owner (the command's control)
 * and awaited until its process is reaped: it leaves nothing behind and
 * reports nothing.
 */
import { hostExecutable } from '../native/paths.js';
import { endHost, keeperEnded, keeperStarted, killLeftGroups } from './keepers.js';
import type { HostRole } from './protocol.js';
import { processIdentity, startHostProcess, type HostChild, type HostSpawnOptions } from './zygote.js';

/** The arguments of every host's role process: events on fd 3, requests on fd 4, dying with this process. */
export function roleArgs(): string[] {
  return ['--fd', '3:4', '--parent', String(process.pid)];
}

/** How long a keeper may take to end an unused host before its whole group is killed. */
const KEEPER_GRACE_MS = 1000;

/** What must match for a spare to be taken (Node's ids, groups and umask too: the host has them). */
function shapeOf(role: HostRole, executable: string, options: HostSpawnOptions): string {
  const parts = [executable, role, processIdentity(), options.cwd ?? '', options.stdin ? 'stdin' : ''];
  for (const [k, v] of Object.entries(options.env)) if (v !== undefined) parts.push(`${k}=${v}`);
  return parts.join('\0');
}

export class SpareHost {
  private readonly child: HostChild | undefined;
  private readonly shape: string;
  private state: 'waiting' | 'taken' | 'discarded' | 'gone' = 'waiting';
  private resolveEnded!: () => void;
  /** Resolves once the spare is taken, or its process is gone (reaped). */
  readonly ended = new Promise<void>((r) => (this.resolveEnded = r));

  constructor(
    readonly role: HostRole,
    options: HostSpawnOptions,
  ) {
    let executable: string;
    let child: HostChild;
    try {
      executable = hostExecutable();
      child = startHostProcess(executable, role, roleArgs(), options);
    } catch {
      // Nothing started: the host will be started when it is needed, and say why then.
      this.shape = '';
      this.child = undefined;
      this.state = 'gone';
      this.resolveEnded();
      return;
    }
    this.shape = shapeOf(role, executable, options);
    this.child = child;
    keeperStarted(child);
    child.on('spawn', () => {
      if (this.state === 'taken') return;
      keeperStarted(child);
      if (this.state === 'discarded') this.end();
    });
    child.on('error', () => this.gone());
    child.on('exit', () => this.gone());
    // A stdin stream ended before it is taken fails quietly.
    child.stdin?.on('error', () => {});
  }

  /** Whether a host took its process. */
  get taken(): boolean {
    return this.state === 'taken';
  }

  /** Its process, when it is alive and of this shape; otherwise undefined, and it is ended. */
  take(role: HostRole, executable: string, options: HostSpawnOptions): HostChild | undefined {
    if (this.state !== 'waiting') return undefined;
    if (shapeOf(role, executable, options) !== this.shape) {
      this.discard();
      return undefined;
    }
    this.state = 'taken';
    this.resolveEnded();
    return this.child;
  }

  /** Ends it unused; `ended` resolves once its process is reaped. */
  discard(): void {
    if (this.state !== 'waiting') return;
    this.state = 'discarded';
    for (const s of this.child!.stdio) s?.destroy();
    this.child!.eventSlots?.release();
    this.end();
  }

  private end(): void {
    const pid = this.child!.pid;
    // A fork the zygote has not reported yet is ended when it is (above).
    if (pid === undefined) return;
    endHost(this.child!);
    setTimeout(() => {
      if (this.state === 'discarded') killLeftGroups(this.child!);
    }, KEEPER_GRACE_MS).unref();
  }

  private gone(): void {
    if (this.state === 'taken' || this.state === 'gone') return;
    this.state = 'gone';
    keeperEnded(this.child);
    for (const s of this.child?.stdio ?? []) s?.destroy();
    this.child?.eventSlots?.release();
    this.resolveEnded();
  }
}

/** Starts a host's process now, for a request that goes later (startHost's `spare`). */
export function prestartHost(role: HostRole, options: HostSpawnOptions): SpareHost {
  return new SpareHost(role, options);
}
