/**
 * Running one plugstack-host process: spawn it, send its request, read
 * and check its events, and make sure nothing of it outlives the run.
 *
 * Every host has a keeper (native/core/lifecycle/containment.h), which
 * runs no plugin code and, when the role ends — however — or Node asks,
 * kills everything below it, daemons that left the process group included:
 * the zygote for the hosts it forks, else the process Node spawned, which
 * forks the process that plays the role (keepers.ts). Keepers die with
 * Node (a parent-death signal), and a Node process that exits ends them. A crash, exit() or hang
 * inside a plugin is attributed to the plugin and hook of the last "enter"
 * without a "leave": the host sends "enter" before calling plugin code.
 *
 * Every frame is checked against the protocol catalogue before use: a
 * malformed frame, or one this role does not send, ends the run as a
 * protocol fault naming the role and the last hook, never an exception.
 */
import { PlugstackError } from '../errors.js';
import { hostExecutable } from '../native/paths.js';
import type { EventSlots } from './event-slots.js';
import { encodeFrame, FrameDecoder } from './frames.js';
import {
  checkCommand,
  checkRequest,
  eventError,
  helloError,
  type DoneEvent,
  type HostCommand,
  type HostEvent,
  type HostRole,
  type RoleRequests,
} from './protocol.js';
import { HostReducer } from './reducer.js';
import { endHost, keeperEnded, keeperStarted, killLeftGroups } from './keepers.js';
import { roleArgs, type SpareHost } from './spare-host.js';
import { writableOf } from './polled-socket.js';
import { startHostProcess, type HostChild, type HostReadable, type HostWritable } from './zygote.js';

export type { HostRole } from './protocol.js';

export interface HostRunOptions {
  /** Who the host plays, for messages: "srun", "node 0 (node0)", "spank prolog on node0". */
  label: string;
  /**
   * Kill the host (and its process group) after this long. Every run has a
   * bound; only a daemon (slurmd), whose phases have their own, may pass 0.
   */
  timeoutMs: number;
  daemon?: boolean;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /**
   * What the host reads on its stdin (default: nothing, /dev/null): bytes,
   * or a stream piped in as the host reads (it is let go when the host ends).
   */
  stdin?: string | Buffer | NodeJS.ReadableStream;
  /** Called for each checked event as it arrives. */
  onEvent?: (event: HostEvent) => void;
  /** Called with the host's own stdout and stderr as they arrive. */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
  /**
   * A process started earlier for this host (spare-host.ts): used when it
   * is alive and has this host's environment, working directory and stdin,
   * else ended and a fresh one started.
   */
  spare?: SpareHost | undefined;
}

/** Why Node ended a host itself. */
export type KillReason = 'timeout' | 'cancel';

/** A running host: commands can be sent while it runs. */
export interface HostHandle {
  readonly role: HostRole;
  readonly label: string;
  /** What the host has reported so far. */
  readonly record: HostReducer;
  send(command: HostCommand): void;
  /** Kills the host (and the process groups it reported) now: a timeout is a fault, a cancel is not. */
  kill(reason?: KillReason): void;
  /**
   * The command asked the host to end its work early (a cancel, or its
   * time bound): whatever then dies inside plugin code below it was killed
   * for that reason, not by the plugin's own doing.
   */
  note(reason: KillReason): void;
  /**
   * Its own process is inside plugin code now: a call it reported open,
   * or one its slot of the memory for unsent events counts (event-slots.ts).
   */
  inPluginCode(): boolean;
  /** Resolves once the host has exited and its pipes are closed; never rejects after the start. */
  finished: Promise<HostRun>;
}

/** How a host run ended when it did not end normally. */
export interface HostFault {
  kind: 'signal' | 'exit' | 'timeout' | 'protocol' | 'cancelled' | 'spawn';
  /** spawn: the system error that kept the host from starting (E2BIG, EAGAIN, ...). */
  errno?: string;
  /** The plugin code the host process was running, if any: its ref and hook. */
  ref?: number;
  hook?: string;
  signal?: NodeJS.Signals;
  exitCode?: number;
  timeoutMs?: number;
  /** What went wrong, in one sentence. */
  message: string;
}

export interface HostRun {
  role: HostRole;
  label: string;
  /** Why the command ended the host's work early, if it did (see HostHandle.note). */
  endedBy?: KillReason;
  events: HostEvent[];
  /** What the host did in plugin code, folded from its events. */
  record: HostReducer;
  done?: DoneEvent;
  fault?: HostFault;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** How long to wait for the pipes to close once the host has exited. */
const CLOSE_GRACE_MS = 2000;

/** Output kept per stream; the rest is dropped with a marker. */
const MAX_CAPTURE = 1 << 20;

/** How long a host's keeper may take to end everything below it before its whole group is killed. */
const KEEPER_GRACE_MS = 1000;

function capture(stream: HostReadable | null, onChunk?: (chunk: Buffer) => void): { text: () => string } {
  const chunks: Buffer[] = [];
  let size = 0;
  let dropped = false;
  stream?.on('data', (chunk: Buffer) => {
    onChunk?.(chunk);
    if (size >= MAX_CAPTURE) {
      dropped = true;
      return;
    }
    chunks.push(chunk);
    size += chunk.length;
  });
  return { text: () => Buffer.concat(chunks).toString('utf8') + (dropped ? '\n[output truncated]\n' : '') };
}

export function runHost<R extends HostRole>(role: R, request: RoleRequests[R], options: HostRunOptions): Promise<HostRun> {
  return startHost(role, request, options).finished;
}

export function startHost<R extends HostRole>(role: R, request: RoleRequests[R], options: HostRunOptions): HostHandle {
  if (!(options.timeoutMs > 0) && !options.daemon)
    throw new PlugstackError('INVALID_ARGUMENT', `the ${role} host of ${options.label} needs a time limit`);
  checkRequest(role, request);
  const executable = hostExecutable();
  let handle: Pick<HostHandle, 'send' | 'kill'> = { send: () => {}, kill: () => {} };
  const record = new HostReducer();
  let endedBy: KillReason | undefined;
  /** The memory its processes keep their unsent events in, when it has one. */
  let slots: EventSlots | undefined;
  const finished = new Promise<HostRun>((resolve) => {
    // The host never running (an environment too large for execve, no more
    // processes) is a fault of the run, not an exception: spawn() throws
    // some of these (E2BIG) and emits others ('error' below).
    const notStarted = (error: NodeJS.ErrnoException) => ({
      role,
      label: options.label,
      events: [],
      record,
      fault: {
        kind: 'spawn' as const,
        ...(error.code ? { errno: error.code } : {}),
        message: `cannot start ${executable}: ${error.message}`,
      },
      exitCode: null,
      signal: null,
      stdout: '',
      stderr: '',
    });
    let child: HostChild;
    try {
      // Events come on fd 3; the request and commands go on fd 4. A command
      // written to a host that has just exited fails (EPIPE) and ends fd 4
      // only: the events it wrote last are still read from fd 3. The
      // process comes from the zygote when it can (zygote.ts).
      const spawnOptions = {
        stdin: options.stdin !== undefined,
        env: options.env ?? process.env,
        ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      };
      child = options.spare?.take(role, executable, spawnOptions) ?? startHostProcess(executable, role, roleArgs(), spawnOptions);
    } catch (error) {
      resolve(notStarted(error as NodeJS.ErrnoException));
      return;
    }
    slots = child.eventSlots;
    const channel = child.stdio[3] as HostReadable;
    const commands = child.stdio[4] as HostReadable & HostWritable;
    // The host never writes here; reading lets its end of the stream close.
    commands.on('data', () => {});
    commands.on('error', () => {});
    // A host forked by a zygote that said hello runs the executable whose
    // protocol Node has checked: its request goes now, and the host finds
    // it waiting once it has said its own hello (one round trip less per
    // host). Any other host gets it only after its hello (below).
    let requestSent = false;
    if (child.checkedExecutable) {
      commands.write(encodeFrame(request));
      requestSent = true;
    }
    if (options.stdin !== undefined && child.stdin) {
      // A host that stops reading early must not fail the run.
      child.stdin.on('error', () => {});
      const input = options.stdin;
      if (typeof input === 'string' || Buffer.isBuffer(input)) child.stdin.end(input);
      else {
        const sink = writableOf(child.stdin);
        sink.on('error', () => {});
        input.pipe(sink);
        // Once the host is gone the stream is let go: what follows in it is not for anyone.
        child.on('exit', () => {
          input.unpipe(sink);
          sink.destroy();
        });
      }
    }
    const stdout = capture(child.stdout, options.onOutput && ((c) => options.onOutput!('stdout', c)));
    const stderr = capture(child.stderr, options.onOutput && ((c) => options.onOutput!('stderr', c)));
    const events: HostEvent[] = [];
    // Process groups the host created (a step's tasks): they do not die
    // with the host's own group, so they are killed by name at the end.
    const groups = new Set<number>();
    keeperStarted(child);
    // A host from the zygote has its pid once it runs: an end asked for
    // before then is carried out then.
    let endAsked = false;
    child.on('spawn', () => {
      if (!exited) keeperStarted(child);
      if (endAsked) cleanup();
    });
    const decoder = new FrameDecoder();
    let done: DoneEvent | undefined;
    let fault: HostFault | undefined;
    let settled = false;
    let greeted = false;

    const running = (): { ref?: number; hook?: string } => {
      const top = record.running();
      return top ? { ref: top.ref, hook: top.hook } : {};
    };
    // The host's keeper (the zygote, or the process Node started) kills
    // everything below it, daemons that left the process group included
    // (keepers.ts). Should it not manage, the groups go by SIGKILL.
    let backstop: NodeJS.Timeout | undefined;
    const cleanup = (): void => {
      if (child.pid === undefined) {
        endAsked = true;
        return;
      }
      if (exited) {
        killLeftGroups(child, groups);
        return;
      }
      endHost(child);
      backstop ??= setTimeout(() => killLeftGroups(child, groups), KEEPER_GRACE_MS);
      backstop.unref();
    };
    let exited = false;
    const protocolFault = (what: string): void => {
      if (!fault) {
        const where = running();
        fault = {
          kind: 'protocol',
          ...where,
          message: `${options.label}: the ${role} host broke the protocol${where.hook ? ` (last hook ${where.hook})` : ''}: ${what}`,
        };
      }
      cleanup();
    };

    const timer = options.timeoutMs
      ? setTimeout(() => {
          fault ??= { kind: 'timeout', timeoutMs: options.timeoutMs, ...running(), message: `no result after ${options.timeoutMs} ms` };
          cleanup();
        }, options.timeoutMs)
      : undefined;

    /** One event of a frame; false once the run has a protocol fault. */
    const take = (value: unknown): boolean => {
      const error = eventError(role, value);
      if (error) return (protocolFault(error), false);
      const event = value as HostEvent;
      if (!greeted) {
        const bad = helloError(role, event);
        if (bad) return (protocolFault(bad), false);
        greeted = true;
        // Otherwise the request goes out once the host has said hello:
        // a host of another build may speak another protocol, a write
        // to a host that died before reading fails (EPIPE), and a failed
        // write destroys the socket with whatever it had not read yet.
        if (!requestSent) commands.write(encodeFrame(request));
      }
      events.push(event);
      record.add(event);
      if (event.t === 'done') done = event;
      else if (event.t === 'pgid') groups.add(event.pgid);
      if (options.onEvent) {
        try {
          options.onEvent(event);
        } catch (error) {
          // A consumer's bug must not leave the host running unread.
          protocolFault(`event "${event.t}" could not be handled: ${(error as Error).message}`);
          return false;
        }
      }
      return true;
    };
    const read = (chunk: Buffer): void => {
      if (fault?.kind === 'protocol') return;
      let frames: unknown[];
      try {
        frames = decoder.push(chunk);
      } catch (error) {
        protocolFault(`malformed frame: ${(error as Error).message}`);
        return;
      }
      // A frame holds one event or a batch of them.
      for (const frame of frames) {
        if (!Array.isArray(frame)) {
          if (!take(frame)) return;
        } else for (const value of frame) if (!take(value)) return;
      }
    };
    channel.on('data', read);
    // The host may die before reading the request; that is reported from
    // its exit status, not as a write error.
    channel.on('error', () => {});

    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      slots?.release();
      if (settled) return;
      settled = true;
      keeperEnded(child);
      resolve(notStarted(error));
    });

    child.on('exit', () => {
      exited = true;
      clearTimeout(timer);
      clearTimeout(backstop);
      keeperEnded(child);
      // Anything the plugin left running goes with the group; that also
      // closes the pipes it inherited, so 'close' can follow.
      cleanup();
      // A process that escaped the group (setsid) may still hold a pipe:
      // stop waiting for it after a grace period.
      grace = setTimeout(() => {
        for (const stream of [channel, commands, child.stdout, child.stderr]) stream?.destroy();
      }, CLOSE_GRACE_MS).unref();
    });
    // Cleared at 'close': a pending timer would keep the whole run (every
    // event) alive for its grace period after the run is over.
    let grace: NodeJS.Timeout | undefined;

    // Judged on 'close', not 'exit': only then has every frame the host
    // wrote been read.
    child.on('close', (code, signal) => {
      clearTimeout(grace);
      if (settled) return;
      settled = true;
      // What its processes never sent (one died, or was killed, inside
      // plugin code): read from their slots, now that none of them runs,
      // as if it had come last on the socket.
      if (slots) {
        for (const unsent of slots.takeUnsent()) {
          let values: unknown;
          try {
            values = JSON.parse(unsent.toString('utf8'));
          } catch (error) {
            protocolFault(`malformed events left in its memory: ${(error as Error).message}`);
            break;
          }
          if (!Array.isArray(values)) {
            protocolFault('malformed events left in its memory');
            break;
          }
          if (!values.every(take)) break;
        }
        slots.release();
      }
      if (!fault && decoder.leftover > 0) protocolFault(`the stream ended inside a frame (${decoder.leftover} bytes)`);
      if (!fault && signal) {
        fault = { kind: 'signal', signal, ...running(), message: `killed by ${signal}` };
      } else if (!fault && (!done || code !== 0)) {
        fault = {
          kind: 'exit',
          exitCode: code ?? undefined,
          ...running(),
          message: done ? `exited with status ${code} after its report` : `exited with status ${code} before finishing`,
        };
      }
      resolve({ role, label: options.label, ...(endedBy ? { endedBy } : {}), events, record, done, fault, exitCode: code, signal, stdout: stdout.text(), stderr: stderr.text() });
    });

    handle = {
      send: (command) => {
        checkCommand(role, command);
        if (!commands.destroyed && !exited) commands.write(encodeFrame(command));
      },
      kill: (reason = 'cancel') => {
        endedBy ??= reason;
        if (reason === 'timeout')
          fault ??= { kind: 'timeout', timeoutMs: options.timeoutMs, ...running(), message: `still running after its time limit` };
        else fault ??= { kind: 'cancelled', ...running(), message: 'ended by plugstack' };
        cleanup();
      },
    };
  });
  return {
    role,
    label: options.label,
    record,
    send: (m) => handle.send(m),
    kill: (r) => handle.kill(r),
    note: (r) => {
      endedBy ??= r;
    },
    inPluginCode: () => record.running() !== undefined || (slots?.openCalls() ?? 0) > 0,
    finished,
  };
}
