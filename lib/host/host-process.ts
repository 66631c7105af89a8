/**
 * Running one plugstack-host process: spawn it, send the request, collect
 * its events, and make sure nothing of it outlives the run.
 *
 * The host leads its own process group (spawned detached), so when the run
 * ends, for whatever reason, one kill of the group takes any process a
 * plugin started along with it. A crash, exit() or hang inside a plugin is
 * attributed to the plugin and hook of the last "enter" event that has no
 * "leave": the host sends "enter" before calling plugin code.
 */
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { PlugstackError } from '../errors.js';
import { hostExecutable } from '../native/paths.js';
import type { DoneEvent, EnterEvent, HostEvent } from './events.js';
import { encodeFrame, FrameDecoder } from './frames.js';

export type HostRole = 'inspect' | 'stepd' | 'client' | 'slurmd' | 'job_script';

export interface HostRunOptions {
  /** Kill the host (and its process group) after this long. */
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** What the host reads on its stdin (default: nothing, /dev/null). */
  stdin?: string | Buffer;
  /** Called for each event as it arrives. */
  onEvent?: (event: HostEvent) => void;
  /** Called with the host's own stdout and stderr as they arrive. */
  onOutput?: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
}

/** A running host: further requests can be sent while it runs. */
export interface HostHandle {
  send(message: object): void;
  /** Kills the host (and the process groups it reported) now. */
  kill(): void;
  /** Resolves once the host has exited and its pipes are closed. */
  finished: Promise<HostRun>;
}

/** How a host run ended when it did not end normally. */
export interface HostFault {
  kind: 'signal' | 'exit' | 'timeout' | 'protocol';
  /** The plugin code that was running, if any: its ref and hook. */
  ref?: number;
  hook?: string;
  signal?: NodeJS.Signals;
  exitCode?: number;
  timeoutMs?: number;
  /** What went wrong, in one sentence. */
  message: string;
}

export interface HostRun {
  events: HostEvent[];
  /** Hooks entered and never left, per process: what was running when a process died. */
  openHooks: Map<number, EnterEvent[]>;
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

function capture(stream: NodeJS.ReadableStream | null, onChunk?: (chunk: Buffer) => void): { text: () => string } {
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

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

export function runHost(role: HostRole, request: object, options: HostRunOptions): Promise<HostRun> {
  return startHost(role, request, options).finished;
}

export function startHost(role: HostRole, request: object, options: HostRunOptions): HostHandle {
  const executable = hostExecutable();
  let handle: Omit<HostHandle, 'finished'> = { send: () => {}, kill: () => {} };
  const finished = new Promise<HostRun>((resolve, reject) => {
    const child = spawn(executable, [role, '--fd', '3'], {
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe', 'pipe'],
      detached: true,
      env: options.env ?? process.env,
      cwd: options.cwd,
    });
    const channel = child.stdio[3] as Socket;
    if (options.stdin !== undefined && child.stdin) {
      // A host that stops reading early must not fail the run.
      child.stdin.on('error', () => {});
      child.stdin.end(options.stdin);
    }
    const stdout = capture(child.stdout, options.onOutput && ((c) => options.onOutput!('stdout', c)));
    const stderr = capture(child.stderr, options.onOutput && ((c) => options.onOutput!('stderr', c)));
    const events: HostEvent[] = [];
    const openHooks = new Map<number, EnterEvent[]>();
    // Process groups the host created (a step's tasks): they do not die
    // with the host's own group, so they are killed by name at the end.
    const groups = new Set<number>();
    let hostPid = child.pid;
    const decoder = new FrameDecoder();
    let done: DoneEvent | undefined;
    let fault: HostFault | undefined;
    let settled = false;

    const running = (): { ref?: number; hook?: string } => {
      const open = hostPid === undefined ? undefined : openHooks.get(hostPid);
      const top = open?.[open.length - 1];
      return top ? { ref: top.ref, hook: top.hook } : {};
    };
    const cleanup = (): void => {
      killGroup(child.pid);
      for (const g of groups) killGroup(g);
    };

    const timer = options.timeoutMs ? setTimeout(() => {
      fault = {
        kind: 'timeout',
        timeoutMs: options.timeoutMs,
        ...running(),
        message: `no result after ${options.timeoutMs} ms`,
      };
      cleanup();
    }, options.timeoutMs) : undefined;

    channel.on('data', (chunk: Buffer) => {
      let frames: unknown[];
      try {
        frames = decoder.push(chunk);
      } catch (error) {
        fault ??= { kind: 'protocol', ...running(), message: `malformed frame: ${(error as Error).message}` };
        cleanup();
        return;
      }
      // A frame holds one event or a batch of them.
      for (const event of frames.flatMap((f) => (Array.isArray(f) ? f : [f])) as HostEvent[]) {
        events.push(event);
        if (event.t === 'enter') {
          const list = openHooks.get(event.pid) ?? [];
          list.push(event);
          openHooks.set(event.pid, list);
        } else if (event.t === 'leave') openHooks.get(event.pid)?.pop();
        else if (event.t === 'done') done = event;
        else if (event.t === 'hello') hostPid = event.pid;
        else if (event.t === 'pgid') groups.add(event.pgid);
        options.onEvent?.(event);
      }
    });
    // The host may die before reading the request; that is reported from
    // its exit status, not as a write error.
    channel.on('error', () => {});

    child.on('error', (error) => {
      clearTimeout(timer);
      if (settled) return;
      settled = true;
      reject(new PlugstackError('HOST_FAILED', `cannot start ${executable}: ${error.message}`, { cause: error }));
    });

    child.on('exit', () => {
      clearTimeout(timer);
      // Anything the plugin left running goes with the group; that also
      // closes the pipes it inherited, so 'close' can follow.
      cleanup();
      // A process that escaped the group (setsid) may still hold a pipe:
      // stop waiting for it after a grace period.
      setTimeout(() => {
        for (const stream of [channel, child.stdout, child.stderr]) stream?.destroy();
      }, CLOSE_GRACE_MS).unref();
    });

    // Judged on 'close', not 'exit': only then has every frame the host
    // wrote been read.
    child.on('close', (code, signal) => {
      if (settled) return;
      settled = true;
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
      resolve({
        events,
        openHooks,
        done,
        fault,
        exitCode: code,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
      });
    });

    handle = {
      send: (message) => {
        if (!channel.destroyed) channel.write(encodeFrame(message));
      },
      kill: () => cleanup(),
    };
    channel.write(encodeFrame(request));
  });
  return { send: (m) => handle.send(m), kill: () => handle.kill(), finished };
}
