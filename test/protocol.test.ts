/**
 * The host protocol is declared once (native/core/protocol/messages.json):
 * both sides are generated from it, the C++ core names every message
 * through the generated constants, and Node checks every frame against it.
 * A host that sends anything else — garbage, valid JSON of the wrong shape,
 * another role's events, another protocol version — is a HOST_PROTOCOL
 * problem naming the role, the node and the last hook, never an exception
 * in Node. A fake host (a shell script standing in for plugstack-host,
 * through PLUGSTACK_HOST_DIR) sends what the tests want.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrameDecoder } from '../lib/host/frames.js';
import { runHost } from '../lib/host/host-process.js';
import { eventError, eventVerdicts, PROTOCOL_VERSION, requestVerdicts, type HostRole } from '../lib/host/protocol.js';
import { Plugstack } from '../lib/plugstack.js';
import { compilePlugin, repoRoot, tempDir, writeFile } from './helpers/plugins.js';

const fakeDir = tempDir('plugstack-fake-host-');
const framesFile = path.join(fakeDir, 'frames.bin');

beforeAll(() => {
  // Writes the prepared bytes to the channel (fd 3), then exits.
  writeFile(fakeDir, 'plugstack-host', '#!/bin/sh\ncat "$PLUGSTACK_FAKE_FRAMES" >&3\nexit 0\n');
  fs.chmodSync(path.join(fakeDir, 'plugstack-host'), 0o755);
});
afterAll(() => {
  delete process.env.PLUGSTACK_HOST_DIR;
  fs.rmSync(fakeDir, { recursive: true, force: true });
});

function frame(body: string | Buffer): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const header = Buffer.alloc(4);
  header.writeUInt32LE(bytes.length);
  return Buffer.concat([header, bytes]);
}

const hello = (role: string, protocol = PROTOCOL_VERSION) => frame(JSON.stringify([{ t: 'hello', protocol, pid: 1, role }]));

/** Runs a check of one context against a fake host that sends `bytes`. */
async function checkWith(bytes: Buffer, context: 'local' | 'remote' = 'local') {
  fs.writeFileSync(framesFile, bytes);
  const dir = tempDir();
  const conf = writeFile(dir, 'plugstack.conf', '');
  process.env.PLUGSTACK_HOST_DIR = fakeDir;
  try {
    const stack = await Plugstack.load(conf, { env: { ...process.env, PLUGSTACK_FAKE_FRAMES: framesFile }, timeoutMs: 5000 });
    return (await stack.check({ context })).contexts[0]!;
  } finally {
    delete process.env.PLUGSTACK_HOST_DIR;
  }
}

describe('one catalogue', () => {
  it('the generated C++ names and TypeScript types are those of the catalogue', () => {
    expect(() => execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'gen-protocol.mjs'), '--check'], { stdio: 'pipe' })).not.toThrow();
  });

  it('the C++ core names every message through the generated constants', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(cc|h)$/.test(e.name) && !p.includes(`${path.sep}protocol${path.sep}`)) {
          const text = fs.readFileSync(p, 'utf8');
          if (/\{"t", "|Event(?: ev)?\("[a-z_]+"\)|asString\(\) [!=]= "[a-z_]+"/.test(text)) offenders.push(path.relative(repoRoot, p));
        }
      }
    };
    walk(path.join(repoRoot, 'native', 'core'));
    expect(offenders).toEqual([]);
  });
});

describe('frames a host must not send', () => {
  const cases: [string, Buffer, RegExp][] = [
    ['no hello first', frame('[{"t":"conf","path":"x","missing":false}]'), /first event is "conf"/],
    ['another protocol version', hello('inspect', PROTOCOL_VERSION + 1), /speaks protocol/],
    ['a hello of another role', hello('stepd'), /plays "stepd"/],
    ['valid JSON of the wrong shape', Buffer.concat([hello('inspect'), frame('null')]), /must be an object/],
    ['an event without its fields', Buffer.concat([hello('inspect'), frame('[{"t":"enter","hook":"x","pid":1}]')]), /enter\.ref is missing/],
    ['a field of the wrong type', Buffer.concat([hello('inspect'), frame('[{"t":"leave","ref":"0","hook":"x","pid":1,"us":1}]')]), /leave\.ref must be an integer/],
    ['an unknown field', Buffer.concat([hello('inspect'), frame('[{"t":"pass","hook":"x","rc":0,"stoppedBy":null,"extra":1}]')]), /unknown field "extra"/],
    ['an unknown event', Buffer.concat([hello('inspect'), frame('[{"t":"bogus"}]')]), /unknown event type/],
    ['an event of another role', Buffer.concat([hello('inspect'), frame('[{"t":"ready","positional":[],"builtins":[],"options":[],"jobControlEnv":[],"script":"","environ":[]}]')]), /does not send "ready"/],
    ['bytes that are not JSON', Buffer.concat([hello('inspect'), frame('{oops')]), /malformed frame/],
    ['a length past the limit', Buffer.concat([hello('inspect'), Buffer.from([0xff, 0xff, 0xff, 0x7f])]), /malformed frame/],
    ['a stream cut inside a frame', Buffer.concat([hello('inspect'), frame('[{"t":"conf"').subarray(0, 9)]), /ended inside a frame/],
  ];
  for (const [name, bytes, message] of cases) {
    it(`${name}: a HOST_PROTOCOL problem, not an exception`, async () => {
      const report = await checkWith(bytes);
      expect(report.ok).toBe(false);
      const p = report.problems.find((x) => x.code === 'HOST_PROTOCOL');
      expect(p, JSON.stringify(report.problems)).toBeDefined();
      expect(p!.message, JSON.stringify(report.problems)).toMatch(message);
      expect(p!.message).toContain('local context: the inspect host broke the protocol');
    });
  }

  it('names the last hook that was running', async () => {
    const bytes = Buffer.concat([
      hello('inspect'),
      frame('[{"t":"line","ref":0,"file":"/p.conf","line":3,"required":true,"configPath":"x.so","args":[]},{"t":"enter","ref":0,"hook":"slurm_spank_init","pid":1}]'),
      frame('[{"t":"log","source":"plugin","level":"loud","msg":"x"}]'),
    ]);
    const report = await checkWith(bytes);
    const p = report.problems.find((x) => x.code === 'HOST_PROTOCOL')!;
    expect(p.message).toContain('last hook slurm_spank_init');
    expect(p).toMatchObject({ plugin: 'x.so', hook: 'slurm_spank_init', file: '/p.conf', line: 3 });
  });

  it('names the node of a step whose host broke the protocol', async () => {
    fs.writeFileSync(framesFile, Buffer.concat([hello('stepd'), frame('[{"t":"exit","task":"zero"}]')]));
    const dir = tempDir();
    const conf = writeFile(dir, 'plugstack.conf', '');
    process.env.PLUGSTACK_HOST_DIR = fakeDir;
    try {
      const stack = await Plugstack.load(conf, { env: { ...process.env, PLUGSTACK_FAKE_FRAMES: framesFile } });
      const step = await stack.launchStep({ argv: ['true'], nodes: 2, ntasks: 2, timeoutMs: 5000 });
      expect(step.ok).toBe(false);
      const problems = step.problems.filter((p) => p.code === 'HOST_PROTOCOL');
      expect(problems.map((p) => p.node).sort()).toEqual([0, 1]);
      expect(problems[1]!.message).toContain('node 1 (node1): the stepd host broke the protocol');
    } finally {
      delete process.env.PLUGSTACK_HOST_DIR;
    }
  });
});

/** A small seeded generator, so that a failing case can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x100000000;
  };
}

function randomValue(r: () => number, depth = 0): unknown {
  const k = Math.floor(r() * (depth > 2 ? 6 : 8));
  switch (k) {
    case 0:
      return null;
    case 1:
      return r() < 0.5;
    case 2:
      return Math.floor(r() * 2 ** 33) - 2 ** 32;
    case 3:
      return r() * 1e6;
    case 4:
      return ['', 'x', '\u00e9', '\udc80', 'slurm_spank_init', 'a'.repeat(Math.floor(r() * 300))][Math.floor(r() * 6)];
    case 5:
      return Math.floor(r() * 10);
    case 6:
      return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      const keys = ['t', 'ref', 'hook', 'pid', 'task', 'msg', 'level', 'source', 'rc', 'us', 'status', 'data', 'stream', 'protocol', 'role', '__proto__', 'constructor'];
      for (let i = Math.floor(r() * 6); i > 0; i--) o[keys[Math.floor(r() * keys.length)]!] = randomValue(r, depth + 1);
      if (r() < 0.7) o.t = ['hello', 'enter', 'leave', 'log', 'exit', 'output', 'done', 'tasks', 'left', 'spawned', 'bogus'][Math.floor(r() * 11)];
      return o;
    }
  }
}

function randomFrameBytes(r: () => number): Buffer {
  const choice = r();
  if (choice < 0.1) return Buffer.from(Array.from({ length: Math.floor(r() * 40) }, () => Math.floor(r() * 256)));
  const body = JSON.stringify(r() < 0.5 ? [randomValue(r)] : randomValue(r)) ?? 'null';
  const bytes = frame(body);
  if (choice < 0.2) return bytes.subarray(0, Math.floor(r() * bytes.length));
  return bytes;
}

describe('the generated validators', () => {
  it('agree with the checks on the events of a real host and on every one-field change of them', async () => {
    const so = compilePlugin('recorder.c');
    const conf = writeFile(tempDir(), 'plugstack.conf', `required ${so}\noptional /nonexistent/missing.so\n`);
    const run = await runHost('inspect', { conf, context: 'remote', slurmVersion: '24.11', pluginDirs: [] }, { label: 'remote context', timeoutMs: 20000 });
    expect(run.events.length).toBeGreaterThan(10);
    const odd: unknown[] = [undefined, null, -1, 1.5, 'x', true, [], {}, [1], { a: 1 }];
    let compared = 0;
    const agree = (event: Record<string, unknown> & { t: string }, what: string) => {
      const v = eventVerdicts(event)!;
      expect(v.valid, `${what}: ${v.error}`).toBe(v.error === undefined);
      compared++;
    };
    for (const event of run.events as unknown as (Record<string, unknown> & { t: string })[]) {
      agree(event, event.t);
      for (const key of Object.keys(event)) {
        if (key === 't') continue;
        for (const value of odd) agree({ ...event, [key]: value }, `${event.t}.${key} = ${JSON.stringify(value)}`);
        const { [key]: _gone, ...rest } = event;
        agree(rest as typeof event, `${event.t} without ${key}`);
      }
      agree({ ...event, surplus: 1 }, `${event.t} with an unknown field`);
    }
    expect(compared).toBeGreaterThan(500);
  });
});

describe('the generated request validators', () => {
  it('agree with the checks on requests and on every one-field change of them', () => {
    const base = { conf: '/etc/slurm/plugstack.conf', context: 'remote', slurmVersion: '24.11', pluginDirs: ['/usr/lib/slurm'] };
    const requests: [HostRole, Record<string, unknown>][] = [
      ['inspect', base],
      ['job_script', { ...base, context: 'job_script', mode: 'prolog' }],
      [
        'stepd',
        {
          ...base,
          step: {
            jobId: 1,
            stepId: 0,
            nnodes: 1,
            nodeId: 0,
            nodeName: 'node0',
            ntasks: 2,
            tasks: [{ gtid: 0 }, { gtid: 1 }],
            uid: 0,
            gid: 0,
            argv: ['true'],
            env: ['A=1'],
            cwd: '/',
            options: [{ plugin: 'hello', name: 'greeting', value: null }],
            stdin: [null, 'x'],
            mpi: { type: 'pmi2', nodeList: 'node0', layout: [[0, 1]] },
          },
        },
      ],
    ];
    const odd: unknown[] = [undefined, null, -1, 1.5, 'x', true, [], {}, [1], { a: 1 }];
    let compared = 0;
    const agree = (role: HostRole, value: Record<string, unknown>, what: string) => {
      const v = requestVerdicts(role, value);
      expect(v.valid, `${role} ${what}: ${v.error}`).toBe(v.error === undefined);
      compared++;
    };
    for (const [role, request] of requests) {
      agree(role, request, 'as made');
      expect(requestVerdicts(role, request).error).toBeUndefined();
      const step = request.step as Record<string, unknown> | undefined;
      for (const key of Object.keys(request)) {
        for (const value of odd) agree(role, { ...request, [key]: value }, `${key} = ${JSON.stringify(value)}`);
        const { [key]: _gone, ...rest } = request;
        agree(role, rest, `without ${key}`);
      }
      if (step)
        for (const key of Object.keys(step)) {
          for (const value of odd) agree(role, { ...request, step: { ...step, [key]: value } }, `step.${key} = ${JSON.stringify(value)}`);
          const { [key]: _gone, ...rest } = step;
          agree(role, { ...request, step: rest }, `without step.${key}`);
        }
      agree(role, { ...request, surplus: 1 }, 'with an unknown field');
    }
    expect(compared).toBeGreaterThan(100);
  });
});

describe('the frame decoder', () => {
  // Frames of several sizes (one over 64 KB, as a socket read never
  // delivers whole), some with multi-byte UTF-8, in one stream.
  const messages: unknown[] = [
    { t: 'hello', protocol: PROTOCOL_VERSION, pid: 1, role: 'stepd' },
    [{ t: 'log', source: 'plugin', level: 'info', msg: 'héllo wörld ✓' }, { t: 'io' }],
    { t: 'log', source: 'plugin', level: 'info', msg: 'x'.repeat(200_000) },
    { t: 'io_end' },
  ];
  const stream = Buffer.concat(messages.map((m) => frame(JSON.stringify(m))));

  it('gives the same frames however the stream is cut into chunks', () => {
    const r = rng(7);
    for (let round = 0; round < 200; round++) {
      const decoder = new FrameDecoder();
      const out: unknown[] = [];
      let at = 0;
      while (at < stream.length) {
        // Cuts of 1 byte (inside a header), a few, or thousands.
        const size = round === 0 ? 1 : 1 + Math.floor(r() ** 3 * 70_000);
        out.push(...decoder.push(stream.subarray(at, at + size)));
        at += size;
      }
      expect(out).toEqual(messages);
      expect(decoder.leftover).toBe(0);
    }
  });

  it('counts the bytes of a frame cut off at the end, and refuses a length over the limit in a partial header', () => {
    const decoder = new FrameDecoder();
    expect(decoder.push(stream.subarray(0, stream.length - 3))).toHaveLength(3);
    expect(decoder.leftover).toBe(frame('{"t":"io_end"}').length - 3);
    const huge = Buffer.alloc(4);
    huge.writeUInt32LE(16 * 1024 * 1024 + 1);
    const fresh = new FrameDecoder();
    expect(fresh.push(huge.subarray(0, 2))).toEqual([]);
    expect(() => fresh.push(huge.subarray(2))).toThrow(/exceeds the limit/);
  });
});

describe('fuzzed frames', () => {
  const seed = Number(process.env.FUZZ_SEED ?? 20261122);

  it('thousands of generated frames are decoded and judged without an exception', () => {
    const r = rng(seed);
    let judged = 0;
    for (let i = 0; i < 5000; i++) {
      const decoder = new FrameDecoder();
      try {
        for (const f of decoder.push(Buffer.concat([randomFrameBytes(r), randomFrameBytes(r)])))
          for (const v of Array.isArray(f) ? f : [f]) {
            const e = eventError(r() < 0.5 ? 'stepd' : 'client', v);
            expect(e === undefined || typeof e === 'string').toBe(true);
            judged++;
          }
      } catch (error) {
        // The decoder throws on a malformed stream; the host reader turns
        // that into a protocol fault. Anything but an Error is a bug.
        expect(error, `seed ${seed}, case ${i}`).toBeInstanceOf(Error);
      }
    }
    expect(judged).toBeGreaterThan(1000);
  });

  it('hosts that send generated frames end as reports, every one', async () => {
    const r = rng(seed + 1);
    for (let i = 0; i < 60; i++) {
      const bytes = Buffer.concat([hello('inspect'), ...Array.from({ length: 1 + Math.floor(r() * 4) }, () => randomFrameBytes(r))]);
      const report = await checkWith(bytes);
      expect(report.ok, `seed ${seed + 1}, case ${i}`).toBe(false);
      expect(report.problems.length).toBeGreaterThan(0);
    }
  });
});
