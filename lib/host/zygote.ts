/**
 * Starting host processes. Spawning one from Node costs a fork of the
 * whole Node process (page tables of tens of megabytes, done on Node's
 * thread, which waits for the exec), then an exec and the dynamic linking
 * of plugstack-host. So each Node process starts one plugstack-host once,
 * the zygote (native/core/lifecycle/zygote.h), which has loaded nothing of
 * anyone's and forks a fresh process for every role: Node hands it the
 * descriptors (socketpairs, as Node's own spawn makes) with the request,
 * and hears back the pid and, later, the exit status.
 *
 * A role started this way is what a spawned one is: the same descriptors
 * 0-4, the environment and working directory asked for, default signals,
 * a session of its own, a keeper's guarantees (everything below it ends
 * with it, and with Node). The differences: the keeper is the zygote (a
 * subreaper that kills what a role leaves, and every role when Node ends
 * or asks it to) rather than a process of the host's own between Node and
 * the role, so the role leads its session itself; the address space
 * layout is the zygote's rather than a fresh exec's (same libraries, same
 * addresses in every role); and /proc/<pid>/environ shows the zygote's
 * start-up environment (environ itself, what getenv and plugins read, is
 * the role's).
 *
 * The zygote has Node's credentials and umask as they were when it
 * started; when Node's change (process.setuid, process.umask...), a new
 * zygote is started for the hosts to come, and the old one ends with the
 * last of its hosts.
 *
 * spawn() is used instead when the environment and arguments are large
 * enough that execve could refuse them (E2BIG is then reported as it
 * always was), when the zygote cannot be started or has died, and when
 * PLUGSTACK_ZYGOTE=0.
 */
import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { childProcess } from '../lazy-modules.js';
import { native } from '../native/binding.js';
import { EventSlots } from './event-slots.js';
import { encodeFrame, FrameDecoder } from './frames.js';
import { errnoNameOf, signalNameOf } from './os-names.js';
import { PolledSocket } from './polled-socket.js';
import { checkCommand, eventError, helloError, type HostEvent } from './protocol.js';

/**
 * What host-process.ts reads of a host's socket: a spawned host's pipe (a
 * net.Socket) or a zygote's host's PolledSocket.
 */
export interface HostReadable {
  readonly destroyed: boolean;
  on(event: 'data', listener: (chunk: Buffer) => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
  on(event: 'close' | 'end', listener: () => void): this;
  destroy(): void;
}

/** What host-process.ts writes to: a host's standard input and its commands. */
export interface HostWritable {
  readonly destroyed: boolean;
  on(event: 'error', listener: (error: Error) => void): this;
  on(event: 'close' | 'drain', listener: () => void): this;
  write(data: Buffer | string): boolean;
  end(data?: Buffer | string): void;
  destroy(): void;
}

/** What host-process.ts uses of a started host, from spawn() or from the zygote. */
export interface HostChild {
  readonly pid?: number | undefined;
  readonly stdin: HostWritable | null;
  readonly stdout: HostReadable | null;
  readonly stderr: HostReadable | null;
  /** 0-2 as above, 3 the events (from a zygote's host, chunks valid only during their 'data' call), 4 the commands (read and written). */
  readonly stdio: readonly (HostReadable | HostWritable | null | undefined)[];
  /**
   * Forked by the zygote, which is then its keeper (keepers.ts): the
   * process is the role's own, with no keeper of its own above it.
   */
  readonly keptByZygote?: boolean;
  /**
   * Forked by a zygote that has said hello: the same executable, whose
   * protocol version Node has checked, so its request may be written at
   * once, before the host's own hello (it is read once the host is ready).
   */
  readonly checkedExecutable?: boolean;
  /** The memory its processes keep their unsent events in (event-slots.ts), when it has one. */
  readonly eventSlots?: EventSlots | undefined;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): this;
  on(event: 'exit' | 'close', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  /** The process runs (its pid is known from then on). */
  on(event: 'spawn', listener: () => void): this;
}

export interface HostSpawnOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Whether the host gets a pipe on stdin (else /dev/null). */
  stdin: boolean;
}

/**
 * Below this many bytes of environment and arguments execve can never
 * fail with E2BIG (each string may have 128 KiB, all of them a quarter of
 * the stack limit, at least 128 KiB): larger ones are spawned, so that the
 * failure stays the kernel's.
 */
const ZYGOTE_MAX_ENV_BYTES = 96 * 1024;

/** Makes room in the zygote's command line for a role's (written over it). */
const TITLE_ROOM = '-'.repeat(32);


function envList(env: NodeJS.ProcessEnv): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out.push(`${k}=${v}`);
  return out;
}

function statusOf(raw: number): { code: number | null; signal: NodeJS.Signals | null } {
  const sig = raw & 0x7f;
  return sig === 0 ? { code: (raw >> 8) & 0xff, signal: null } : { code: null, signal: signalNameOf(sig) ?? null };
}

/** A host the zygote forked, looking to host-process.ts like a ChildProcess. */
class ZygoteChild extends EventEmitter implements HostChild {
  pid: number | undefined;
  readonly stdin: PolledSocket | null;
  readonly stdout: PolledSocket;
  readonly stderr: PolledSocket;
  readonly stdio: readonly (PolledSocket | null)[];
  checkedExecutable = false;
  keptByZygote = false;
  eventSlots: EventSlots | undefined;
  private exitStatus: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private open: number;

  constructor(sockets: { stdin: PolledSocket | null; stdout: PolledSocket; stderr: PolledSocket; events: PolledSocket; commands: PolledSocket }) {
    super();
    this.stdin = sockets.stdin;
    this.stdout = sockets.stdout;
    this.stderr = sockets.stderr;
    this.stdio = [sockets.stdin, sockets.stdout, sockets.stderr, sockets.events, sockets.commands];
    // 'close' comes once the process has exited and its output streams are closed, as for a ChildProcess.
    const readable = [sockets.stdout, sockets.stderr, sockets.events, sockets.commands];
    this.open = readable.length;
    for (const s of readable)
      s.once('close', () => {
        this.open--;
        this.maybeClose();
      });
  }

  /** Running, as pid: forked by the zygote (its keeper), or spawned (with a keeper of its own). */
  started(pid: number, keptByZygote: boolean): void {
    this.pid = pid;
    this.keptByZygote = keptByZygote;
    this.emit('spawn');
  }

  failed(error: NodeJS.ErrnoException): void {
    for (const s of this.stdio) s?.destroy();
    this.emit('error', error);
  }

  exited(raw: number | null): void {
    this.ended(raw === null ? { code: null, signal: 'SIGKILL' } : statusOf(raw));
  }

  /** A process spawned on this child's descriptors instead (the zygote ended before its hello). */
  adopt(process: ChildProcess): void {
    process.on('spawn', () => this.started(process.pid!, false));
    process.on('error', (error) => this.failed(error));
    process.on('exit', (code, signal) => this.ended({ code, signal }));
  }

  private ended(status: { code: number | null; signal: NodeJS.Signals | null }): void {
    this.exitStatus = status;
    this.stdin?.destroy();
    this.emit('exit', status.code, status.signal);
    this.maybeClose();
  }

  private maybeClose(): void {
    if (this.open === 0 && this.exitStatus) this.emit('close', this.exitStatus.code, this.exitStatus.signal);
  }
}

class Zygote {
  private readonly ctl: PolledSocket;
  private readonly ctlFd: number;
  get descriptor(): number {
    return this.ctlFd;
  }
  /** The zygote's pid: Node's child, started by the addon (not a ChildProcess: Node does not reap it). */
  private readonly pid: number;
  private readonly decoder = new FrameDecoder();
  private nextId = 1;
  /** Asked for before the hello: sent once it comes, spawned if it never does. */
  private readonly queued: { id: number; child: ZygoteChild; request: Buffer; theirs: number[]; spawnArgs: [string, string[], HostSpawnOptions] }[] = [];
  /** Asked for, not yet started (by request id). */
  private readonly starting = new Map<number, ZygoteChild>();
  /** Started, not yet reported ended (by pid). */
  private readonly running = new Map<number, ZygoteChild>();
  dead = false;
  /** Its exit status has been collected (Node does not wait for a child it did not spawn). */
  private reaped = false;
  /** It has said hello: until then hosts are asked for and wait. */
  ready = false;
  /** Node's credentials and umask when it started, which its hosts get. */
  readonly identity = processIdentity();
  /** A newer zygote takes the new hosts: this one ends with its last. */
  private retired = false;

  constructor(readonly executable: string) {
    const [mine, theirs] = native().socketPair();
    try {
      // posix_spawn from the addon, not spawn(): that forks all of Node (native/addon/spawn.cc).
      this.pid = native().spawnDetached(executable, [executable, 'zygote', '--parent', String(process.pid), '--fd', '3', '--room', TITLE_ROOM], envList(process.env), theirs);
    } catch (error) {
      native().closeDescriptor(mine);
      throw error;
    } finally {
      native().closeDescriptor(theirs);
    }
    this.ctlFd = mine;
    living.add(this);
    this.ctl = new PolledSocket(mine, true);
    this.ctl.on('data', (chunk: Buffer) => {
      let frames: unknown[];
      try {
        frames = this.decoder.push(chunk);
      } catch {
        return this.die();
      }
      // Checked against the catalogue like a host's: anything else ends the zygote.
      for (const frame of frames)
        for (const value of Array.isArray(frame) ? frame : [frame]) {
          if (eventError('zygote', value)) return this.die();
          const event = value as HostEvent;
          if (!this.ready) {
            if (helloError('zygote', event)) return this.die();
            this.ready = true;
            this.flush();
            continue;
          }
          this.handle(event);
        }
    });
    // Its end closes the control socket: that is how Node learns of it.
    this.ctl.on('error', () => this.die());
    this.ctl.on('close', () => this.die());
    this.ctl.unref();
  }

  private handle(m: HostEvent): void {
    if (m.t === 'forked') {
      const child = this.starting.get(m.id);
      if (!child) return;
      this.starting.delete(m.id);
      child.started(m.pid, true);
      this.running.set(m.pid, child);
    } else if (m.t === 'fork_failed') {
      const child = this.starting.get(m.id);
      if (!child) return;
      this.starting.delete(m.id);
      // As Node's spawn reports it: "spawn <file> EAGAIN", code EAGAIN.
      const name = errnoNameOf(m.errno) ?? `errno ${m.errno}`;
      const error = Object.assign(new Error(`spawn ${this.executable} ${name}`), { code: name, errno: -m.errno, syscall: `spawn ${m.syscall}` });
      setImmediate(() => child.failed(error));
    } else if (m.t === 'reaped') {
      const child = this.running.get(m.pid);
      if (!child) return;
      this.running.delete(m.pid);
      child.exited(m.status);
    }
    this.holdNode();
  }

  /** The control socket keeps Node alive only while a host's start or end is awaited. */
  private holdNode(): void {
    const busy = this.queued.length || this.starting.size || this.running.size;
    if (busy) this.ctl.ref();
    else this.ctl.unref();
    // die() ends and reaps it.
    if (!busy && this.retired) this.die();
  }

  /** No new hosts: ends once the ones it has are gone. */
  retire(): void {
    this.retired = true;
    this.holdNode();
  }

  private send(request: Buffer, theirs: number[]): void {
    try {
      native().sendWithDescriptors(this.ctlFd, request, theirs);
    } finally {
      for (const fd of theirs) native().closeDescriptor(fd);
    }
  }

  /** The hello came: what was asked for before goes to the zygote. */
  private flush(): void {
    while (this.queued.length) {
      const q = this.queued.shift()!;
      this.starting.set(q.id, q.child);
      try {
        this.send(q.request, q.theirs);
      } catch {
        // This one fails with the zygote; those still queued are spawned by die().
        this.die();
        return;
      }
    }
  }

  private die(): void {
    if (this.dead) return;
    this.dead = true;
    living.delete(this);
    this.ctl.destroy();
    // Gone or misbehaving: it ends either way, and is reaped.
    this.end();
    this.reap();
    // Not a zygote (it ended before its hello): what was asked of it is
    // spawned, on the descriptors already made for it.
    for (const q of this.queued.splice(0)) {
      const [role, args, options] = q.spawnArgs;
      const [stdin, ...rest] = options.stdin ? q.theirs : [undefined, ...q.theirs];
      try {
        q.child.adopt(
          childProcess().spawn(this.executable, [role, ...args], {
            stdio: [stdin ?? 'ignore', ...rest],
            detached: true,
            env: options.env,
            ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
          }),
        );
      } catch (error) {
        setImmediate(() => q.child.failed(error as NodeJS.ErrnoException));
      } finally {
        for (const fd of q.theirs) native().closeDescriptor(fd);
      }
    }
    // Its hosts end with it, and everything below them.
    for (const child of this.starting.values())
      setImmediate(() => child.failed(Object.assign(new Error(`spawn ${this.executable}: the zygote ended`), { code: 'ECHILD' })));
    for (const child of this.running.values()) child.exited(null);
    this.starting.clear();
    this.running.clear();
  }

  /** Ends the zygote: it kills its hosts and everything below them, then exits. */
  end(): void {
    if (!this.reaped) native().signalProcess(this.pid, os.constants.signals.SIGTERM);
  }

  /**
   * Waits for the ended zygote without blocking Node: a few tries a
   * millisecond apart, then every 100 ms; one that has not ended after a
   * second (it answers nothing, so it cannot be trusted to) is killed.
   */
  private reap(tries = 0): void {
    let status: number | null;
    try {
      status = native().reapProcess(this.pid);
    } catch {
      status = 0; // not ours to wait for any more
    }
    if (status !== null) {
      this.reaped = true;
      return;
    }
    if (tries === 30) native().signalProcess(this.pid, os.constants.signals.SIGKILL);
    setTimeout(() => this.reap(tries + 1), tries < 20 ? 1 : 100).unref();
  }

  start(role: string, args: string[], options: HostSpawnOptions): ZygoteChild {
    const pairs = (options.stdin ? 5 : 4);
    const made: [number, number][] = [];
    try {
      for (let i = 0; i < pairs; i++) made.push(native().socketPair());
    } catch (error) {
      for (const [a, b] of made) {
        native().closeDescriptor(a);
        native().closeDescriptor(b);
      }
      throw error;
    }
    const ours = made.map(([a]) => a);
    const theirs = made.map(([, b]) => b);
    // Last, on the host's descriptor 5 (the catalogue's eventSlots.fd).
    const slots = EventSlots.create();
    if (slots) theirs.push(slots.hostFd);
    let k = 0;
    // Node's ends: its host's standard input is only written, the rest read
    // (the commands socket too, for its end), from the event loop, after
    // this returns.
    const sockets: PolledSocket[] = [];
    const socket = (readable: boolean, into?: Buffer): PolledSocket => {
      const s = new PolledSocket(ours[k]!, readable, into);
      k++;
      sockets.push(s);
      return s;
    };
    let child: ZygoteChild;
    try {
      const stdin = options.stdin ? socket(false) : null;
      const stdout = socket(true);
      const stderr = socket(true);
      const events = socket(true, eventsBuffer);
      child = new ZygoteChild({ stdin, stdout, stderr, events, commands: socket(true) });
    } catch (error) {
      // The one that failed has closed its descriptor; the rest are closed here.
      for (const s of sockets) s.destroy();
      for (const fd of [...ours.slice(k + 1), ...theirs]) native().closeDescriptor(fd);
      slots?.release();
      throw error;
    }
    child.eventSlots = slots;
    const id = this.nextId++;
    const request = checkCommand('zygote', {
      t: 'fork',
      id,
      role,
      env: envList(options.env),
      cwd: path.resolve(options.cwd ?? process.cwd()),
      stdin: options.stdin,
      slots: slots !== undefined,
    });
    if (!this.ready) this.queued.push({ id, child, request: encodeFrame(request), theirs, spawnArgs: [role, args, options] });
    else {
      child.checkedExecutable = true;
      this.starting.set(id, child);
      try {
        this.send(encodeFrame(request), theirs);
      } catch (error) {
        this.starting.delete(id);
        for (const s of child.stdio) s?.destroy();
        slots?.release();
        this.die();
        throw error;
      }
    }
    this.holdNode();
    return child;
  }
}

/** What a forked host inherits from Node that Node can change: ids, groups, umask. */
export function processIdentity(): string {
  return [process.getuid?.(), process.geteuid?.(), process.getgid?.(), process.getegid?.(), process.getgroups?.().join(','), process.umask()].join(' ');
}

/**
 * What every zygote-forked host's events are read into: each read is handed
 * on (and what is kept of it copied) before the next, on Node's one thread.
 */
const eventsBuffer = Buffer.allocUnsafe(64 * 1024);

let zygote: Zygote | undefined;
/** Every zygote not yet ended: the current one, and retired ones whose hosts still run. */
const living = new Set<Zygote>();
/** Executables whose zygote ended before it said hello (not a plugstack-host that has one): always spawned. */
const refused = new Set<string>();

/** The zygote for this executable (started now if need be), unless it cannot have one. */
function zygoteFor(executable: string): Zygote | undefined {
  if (process.env.PLUGSTACK_ZYGOTE === '0' || refused.has(executable)) return undefined;
  if (zygote && (zygote.dead || zygote.executable !== executable || zygote.identity !== processIdentity())) {
    if (zygote.dead && !zygote.ready) refused.add(zygote.executable);
    // Its hosts still running keep it until they end.
    zygote.retire();
    zygote = undefined;
    if (refused.has(executable)) return undefined;
  }
  if (!zygote) {
    try {
      zygote = new Zygote(executable);
    } catch {
      refused.add(executable);
      return undefined;
    }
    if (!exitHooked) {
      exitHooked = true;
      // A zygote dies with Node anyway (a parent-death signal); this is
      // sooner, for a retired one still keeping hosts too.
      process.once('exit', () => {
        for (const z of living) z.end();
      });
    }
  }
  return zygote;
}
let exitHooked = false;

/** The descriptors the zygote keeps open in this process (its control socket), for tests that count descriptors. */
export function zygoteDescriptors(): number[] {
  return zygote && !zygote.dead ? [zygote.descriptor] : [];
}

/** Starts plugstack-host in a role: through the zygote when it can, spawned otherwise. */
export function startHostProcess(executable: string, role: string, args: string[], options: HostSpawnOptions): HostChild {
  const env = envList(options.env);
  const bytes = env.reduce((n, e) => n + Buffer.byteLength(e) + 1, 0) + args.reduce((n, a) => n + Buffer.byteLength(a) + 1, 0);
  const z = bytes < ZYGOTE_MAX_ENV_BYTES ? zygoteFor(executable) : undefined;
  if (z) {
    try {
      return z.start(role, args, options);
    } catch {
      // the zygote is gone: spawn this one
    }
  }
  // On descriptor 5, as from the zygote; Node's copy is closed once the host has its own.
  const slots = EventSlots.create();
  try {
    const child = childProcess().spawn(executable, [role, ...args], {
      stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', 'pipe', 'pipe', ...(slots ? [slots.hostFd] : [])],
      detached: true,
      env: options.env,
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    });
    return Object.assign(child, { eventSlots: slots });
  } catch (error) {
    slots?.release();
    throw error;
  } finally {
    if (slots) native().closeDescriptor(slots.hostFd);
  }
}
