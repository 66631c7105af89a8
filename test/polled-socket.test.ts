/**
 * The sockets Node shares with its hosts (lib/host/polled-socket.ts over
 * native/addon/polled_socket.cc), against real processes at the other end:
 * what the peer writes arrives in order and then the end; what was read
 * before anyone listened is held and handed on; a write larger than the
 * socket's buffer is queued and all of it arrives, with 'drain'; a write to
 * a peer that is gone is an error, not a crash; destroy() closes the
 * descriptor and nothing is reported after it, and the socket can then be
 * collected.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { PolledSocket } from '../lib/host/polled-socket.js';
import { native } from '../lib/native/binding.js';

const openDescriptors = () => fs.readdirSync('/proc/self/fd').length;

/** A socketpair: Node's end in a PolledSocket, the other end given to a process and closed here. */
function withPeer(readable: boolean, command: string, peerFd: 0 | 1): { socket: PolledSocket; exited: Promise<string> } {
  const [mine, theirs] = native().socketPair();
  const stdio: ('ignore' | 'pipe' | number)[] = ['ignore', 'pipe', 'inherit'];
  stdio[peerFd] = theirs;
  const child = spawn('sh', ['-c', command], { stdio: stdio as never });
  native().closeDescriptor(theirs);
  let out = '';
  if (peerFd === 0) child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<string>((resolve) => child.on('close', () => resolve(out)));
  return { socket: new PolledSocket(mine, readable), exited };
}

const collect = (socket: PolledSocket) =>
  new Promise<{ data: string; order: string[] }>((resolve) => {
    let data = '';
    const order: string[] = [];
    socket.on('data', (c: Buffer) => {
      data += c.toString();
      if (order.at(-1) !== 'data') order.push('data');
    });
    socket.on('end', () => order.push('end'));
    socket.on('close', () => {
      order.push('close');
      resolve({ data, order });
    });
  });

describe('PolledSocket', () => {
  it('reads what the peer writes, in order, then its end; and closes its descriptor', async () => {
    const before = openDescriptors();
    const { socket, exited } = withPeer(true, 'i=0; while [ $i -lt 200 ]; do printf "%05d\\n" $i; i=$((i+1)); done', 1);
    const { data, order } = await collect(socket);
    await exited;
    const expected = Array.from({ length: 200 }, (_, i) => String(i).padStart(5, '0') + '\n').join('');
    expect(data).toBe(expected);
    expect(order).toEqual(['data', 'end', 'close']);
    expect(socket.destroyed).toBe(true);
    expect(openDescriptors()).toBe(before);
  });

  it('holds what was read before anyone listened, and its end, then hands them on', async () => {
    const { socket, exited } = withPeer(true, 'printf early; printf " bytes"', 1);
    await exited;
    // Turns of the event loop with nobody listening: the bytes and the end are read and held.
    await new Promise((r) => setTimeout(r, 50));
    expect(socket.destroyed).toBe(false);
    const { data, order } = await collect(socket);
    expect(data).toBe('early bytes');
    expect(order).toEqual(['data', 'end', 'close']);
  });

  it('queues a write larger than the socket takes, drains it, and the peer reads all of it and the end', async () => {
    const { socket, exited } = withPeer(false, 'sleep 0.2; wc -c', 0);
    const big = Buffer.alloc(4 << 20, 'x');
    const drained = new Promise<void>((r) => socket.once('drain', () => r()));
    expect(socket.write(big)).toBe(false);
    socket.end();
    await drained;
    expect((await exited).trim()).toBe(String(big.length));
    socket.destroy();
  });

  it('a write to a peer that has gone is an error event with its errno, then close', async () => {
    const { socket, exited } = withPeer(false, 'exit 0', 0);
    await exited;
    const failed = new Promise<NodeJS.ErrnoException>((r) => socket.once('error', (e) => r(e as NodeJS.ErrnoException)));
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    expect(socket.write('nobody reads this')).toBe(false);
    const error = await failed;
    expect(['EPIPE', 'ECONNRESET']).toContain(error.code);
    expect(error.syscall).toBe('write');
    await closed;
    expect(socket.destroyed).toBe(true);
    // Not thrown when nobody listens.
    const second = withPeer(false, 'exit 0', 0);
    await second.exited;
    second.socket.write('again');
    await new Promise<void>((r) => second.socket.once('close', () => r()));
  });

  it('a peer that closes with our writes unread: what it wrote before is still read, then its end', async () => {
    const [mine, theirs] = native().socketPair();
    const socket = new PolledSocket(mine, true);
    const errors: string[] = [];
    socket.on('error', (e: NodeJS.ErrnoException) => errors.push(`${e.syscall} ${e.code}`));
    const got = collect(socket);
    expect(socket.write('never read')).toBe(true);
    fs.writeSync(theirs, 'last words');
    native().closeDescriptor(theirs);
    const { data, order } = await got;
    expect(data).toBe('last words');
    expect(order.at(-1)).toBe('close');
    // The reset is the read's error (as a net.Socket has it), or the end.
    expect(errors.every((e) => e === 'read ECONNRESET')).toBe(true);
  });

  it('reports nothing after destroy(), and closes the descriptor at once', async () => {
    const before = openDescriptors();
    const { socket, exited } = withPeer(true, 'sleep 0.1; printf late', 1);
    const seen: string[] = [];
    socket.on('data', () => seen.push('data'));
    socket.on('end', () => seen.push('end'));
    socket.destroy();
    expect(openDescriptors()).toBe(before);
    await exited;
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toEqual([]);
  });

  it('is collected once destroyed: its callback no longer holds it (nor what its listeners hold)', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const collected: string[] = [];
    const registry = new FinalizationRegistry<string>((tag) => collected.push(tag));
    (() => {
      const [mine, theirs] = native().socketPair();
      const socket = new PolledSocket(mine, true);
      const kept = Buffer.alloc(1 << 20);
      socket.on('data', () => kept.length);
      registry.register(socket, 'socket');
      registry.register(kept, 'what a listener holds');
      socket.destroy();
      native().closeDescriptor(theirs);
    })();
    for (let i = 0; i < 20 && collected.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 10));
      gc();
    }
    expect(collected.sort()).toEqual(['socket', 'what a listener holds']);
  });
});
