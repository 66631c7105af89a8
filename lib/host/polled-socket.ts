/**
 * A socket Node shares with a host, read and written through the addon
 * (native/addon/polled_socket.cc: libuv's poll on the descriptor) rather
 * than a net.Socket: a host forked by the zygote has four or five of them,
 * and a net.Socket costs ~80 µs of Node's CPU to make and tear down, and
 * loading node:net ~2.5 ms of every command. It behaves as host-process.ts
 * needs of a stream, as a net.Socket would: 'data' per read, 'end' at end of
 * stream (then it closes: no half-open sockets), 'error' with Node's errno
 * fields, when someone listens (then it closes), 'close' once, after destroy(); write() returns
 * false when the socket's buffer is full, and 'drain' follows.
 */
import { EventEmitter } from 'node:events';
import type { Writable } from 'node:stream';
import { stream } from '../lazy-modules.js';
import { native, type NativePolledSocket } from '../native/binding.js';
import { errnoNameOf } from './os-names.js';
import type { HostWritable } from './zygote.js';

/** The events of native/addon/polled_socket.cc. */
const DATA = 0;
const END = 1;
const READ_ERROR = 2;
const DRAIN = 3;
const WRITE_ERROR = 4;

function systemError(errno: number, syscall: string): NodeJS.ErrnoException {
  const code = errnoNameOf(errno) ?? `E${errno}`;
  return Object.assign(new Error(`${syscall} ${code}`), { errno: -errno, code, syscall });
}

export class PolledSocket extends EventEmitter {
  destroyed = false;
  private readonly handle: NativePolledSocket;
  /**
   * What was read before anyone listened to 'data' (a host started ahead
   * of its request: its output is read from the start, so that it never
   * blocks on a full socket, and handed on once it is taken), and whether
   * the end came too.
   */
  private held: Buffer[] | undefined;
  private endHeld = false;

  /**
   * fd is the socket's from now on; readable: whether what the peer writes
   * is read. With `into`, reads go into that buffer, and each 'data' chunk
   * is a view of it, valid only while its listeners run (a host's events:
   * the frame decoder copies what it keeps); otherwise each is a new buffer.
   */
  constructor(
    fd: number,
    readable: boolean,
    private readonly into?: Buffer,
  ) {
    super();
    // A socket only written (a host's input) reads nothing to hold.
    if (readable) this.held = [];
    this.handle = new (native().PolledSocket)(fd, readable, (kind, value) => this.onEvent(kind, value), into);
  }

  /** The first 'data' listener gets what was held, from the next tick. */
  override on(event: string | symbol, listener: Parameters<EventEmitter['on']>[1]): this {
    super.on(event, listener);
    if (event === 'data' && this.held) process.nextTick(() => this.release());
    return this;
  }

  override addListener(event: string | symbol, listener: Parameters<EventEmitter['on']>[1]): this {
    return this.on(event, listener);
  }

  private onEvent(kind: number, value: Buffer | number | undefined): void {
    if (kind === DATA) {
      const chunk = this.into ? this.into.subarray(0, value as number) : (value as Buffer);
      if (this.held) this.held.push(this.into ? Buffer.from(chunk) : chunk);
      else this.emit('data', chunk);
    } else if (kind === DRAIN) this.emit('drain');
    else if (kind === END) {
      if (this.held) this.endHeld = true;
      else this.ended();
    } else if (kind === READ_ERROR) this.fail(systemError(value as number, 'read'));
    else if (kind === WRITE_ERROR) this.fail(systemError(value as number, 'write'));
  }

  private release(): void {
    const held = this.held;
    if (!held) return;
    this.held = undefined;
    try {
      for (const chunk of held) if (!this.destroyed) this.emit('data', chunk);
    } finally {
      // A listener that throws does not keep the end from coming.
      if (this.endHeld) this.ended();
    }
  }

  private ended(): void {
    if (this.destroyed) return;
    try {
      this.emit('end');
    } finally {
      this.destroy();
    }
  }

  private fail(error: NodeJS.ErrnoException): void {
    if (this.destroyed) return;
    // Unlike a stream's, an 'error' nobody listens to is not thrown: a
    // host's output socket reset by its end is that socket's end, not
    // Node's.
    if (this.listenerCount('error') > 0) this.emit('error', error);
    this.destroy();
  }

  /** False when some of it waits for the socket to take it ('drain' follows) or could not be written. */
  write(data: Buffer | string): boolean {
    if (this.destroyed) return false;
    const r = this.handle.write(typeof data === 'string' ? Buffer.from(data) : data);
    if (r < 0) {
      // Reported after the call, as a stream reports a failed write.
      process.nextTick(() => this.fail(systemError(-r, 'write')));
      return false;
    }
    return r === 0;
  }

  end(data?: Buffer | string): void {
    if (data !== undefined) this.write(data);
    if (!this.destroyed) this.handle.end();
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.held = undefined;
    this.handle.close();
    process.nextTick(() => this.emit('close'));
  }

  ref(): this {
    if (!this.destroyed) this.handle.ref();
    return this;
  }

  unref(): this {
    if (!this.destroyed) this.handle.unref();
    return this;
  }
}

/**
 * A Writable stream onto a host's standard input, for a stream to be piped
 * into (a spawned host's pipe already is one): written as the socket takes
 * it, ended when the stream ends, destroyed with it.
 */
export function writableOf(sink: HostWritable): Writable {
  const { Writable } = stream();
  if (sink instanceof Writable) return sink;
  // The write waiting for the socket to take what it queued. (A failed
  // write destroys the stream instead, below.)
  let waiting: (() => void) | undefined;
  sink.on('drain', () => {
    const done = waiting;
    waiting = undefined;
    done?.();
  });
  const writable = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (sink.destroyed) done(Object.assign(new Error("the host's input is closed"), { code: 'ERR_STREAM_DESTROYED' }));
      else if (sink.write(chunk)) done();
      else waiting = done;
    },
    final(done) {
      sink.end();
      done();
    },
    destroy(error, done) {
      sink.destroy();
      done(error);
    },
  });
  sink.on('error', (error) => writable.destroy(error));
  // A host that never started, or has gone: the stream piped in is let go.
  sink.on('close', () => writable.destroy());
  return writable;
}
