/**
 * A bounded fuzz of the plugstack.conf parser, in-process through the
 * addon: thousands of random configurations (miscased keywords, comments,
 * carriage returns, NUL and non-UTF-8 bytes, over-long lines, includes of
 * each other with loops and globs, paths that are not files). Each parse
 * must return (a hang shows as the test timeout), never throw, and give a
 * well-formed result. The generator is seeded: FUZZ_SEED=<n> replays a
 * run, FUZZ_CASES=<n> makes it longer.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig, type ParsedConfig } from '../lib/config/plugstack-conf.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20240611);
const CASES = Number(process.env.FUZZ_CASES ?? 5000);

/** mulberry32: small, fast, and the same sequence everywhere for a seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Gen {
  constructor(private readonly next: () => number) {}
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }
  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }
}

// The files of one case: plugstack.conf, a.conf, b.conf, sub/c.conf and a
// directory sub/d.conf; ../fifo is a FIFO shared by all cases. Cases take
// turns in a few directories, rewriting them: creating and removing
// thousands of directories costs more than all the parsing on a slow disk.
const CASE_FILES = ['plugstack.conf', 'a.conf', 'b.conf', 'sub/c.conf'];
const SLOTS = 32;
// Real keywords three times as often as near misses.
const KEYWORDS = [
  ...['required', 'optional', 'include'].flatMap((k) => [k, k, k, k, k, k, k, k, k]),
  ...['Required', 'OPTIONAL', 'Include', 'includes', 'requiredx', '#required', 'include#', '\0include', ''],
];
const INCLUDES = [
  'a.conf', 'b.conf', 'plugstack.conf', '*.conf', 'sub/*.conf', 'sub/*', 'sub', 'sub/d.conf', '[ab].conf', '?.conf',
  '../fifo', '/dev/null', '/dev/zero', '/dev/urandom', 'nothing/*.conf', 'missing.conf', '/proc/self/fd/0', '/',
  'sub/../a.conf', 'a.conf\r', '*', '**/*.conf',
];
const PLUGINS = ['/x.so', 'rel.so', 'dir/y.so', '/a b.so', 'z.so#c', '', '\u00e9.so'];
const WORDS = ['x=1', 'arg', '#', 'a#b', '\r', '\t', '--flag', 'k=v\r', '"quoted word"', "'q'", '\\', '%s%n'];

function word(g: Gen): Buffer {
  if (g.chance(0.08)) return g.bytes(1 + g.int(8)); // NUL and non-UTF-8 bytes
  if (g.chance(0.02)) return Buffer.from('w'.repeat(4000 + g.int(5000))); // past fgets' 4095 bytes
  return Buffer.from(g.pick(WORDS));
}

function line(g: Gen): Buffer {
  const parts: Buffer[] = [];
  const keyword = g.pick(KEYWORDS);
  if (g.chance(0.1)) parts.push(Buffer.from(g.pick([' ', '\t', '  \t'])));
  parts.push(Buffer.from(keyword));
  if (g.chance(0.9)) {
    parts.push(Buffer.from(g.pick([' ', '\t', '   '])));
    parts.push(Buffer.from(keyword.toLowerCase().includes('include') ? g.pick(INCLUDES) : g.pick(PLUGINS)));
  }
  for (let n = g.int(4); n > 0; n--) parts.push(Buffer.from(' '), word(g));
  if (g.chance(0.1)) parts.push(Buffer.from(' # comment'));
  parts.push(Buffer.from(g.pick(['\n', '\n', '\n', '\r\n', '\r', ''])));
  return Buffer.concat(parts);
}

function file(g: Gen): Buffer {
  if (g.chance(0.03)) return g.bytes(g.int(3000));
  const lines: Buffer[] = [];
  for (let n = g.int(10); n > 0; n--) lines.push(g.chance(0.1) ? Buffer.from(g.pick(['\n', '# only a comment\n', '\0\n'])) : line(g));
  return Buffer.concat(lines);
}

function writeCase(base: string, index: number, g: Gen): string {
  const dir = path.join(base, `c${index % SLOTS}`);
  fs.mkdirSync(path.join(dir, 'sub', 'd.conf'), { recursive: true });
  for (const name of CASE_FILES) {
    if (name === 'plugstack.conf' || g.chance(0.7)) fs.writeFileSync(path.join(dir, name), file(g));
    else fs.rmSync(path.join(dir, name), { force: true });
  }
  return path.join(dir, 'plugstack.conf');
}

/** What every result must look like, whatever the input. */
function checkWellFormed(parsed: ParsedConfig): void {
  expect(typeof parsed.ok).toBe('boolean');
  expect(typeof parsed.missing).toBe('boolean');
  expect(Array.isArray(parsed.items)).toBe(true);
  let ref = 0;
  let errors = 0;
  for (const item of parsed.items) {
    if (item.kind === 'plugin') {
      expect(item.ref).toBe(ref++);
      expect(typeof item.file).toBe('string');
      expect(item.file.length).toBeGreaterThan(0);
      expect(Number.isInteger(item.line) && item.line >= 1).toBe(true);
      expect(typeof item.path).toBe('string');
      expect(item.path.length).toBeGreaterThan(0);
      expect(typeof item.required).toBe('boolean');
      expect(item.args.every((a) => typeof a === 'string' && a.length > 0)).toBe(true);
    } else {
      expect(item.kind).toBe('diagnostic');
      expect(item.code).toMatch(/^CONFIG_[A-Z_]+$/);
      expect(['error', 'warning']).toContain(item.severity);
      expect(typeof item.message).toBe('string');
      expect(Array.isArray(item.slurmLog)).toBe(true);
      if (item.line !== undefined) expect(Number.isInteger(item.line) && item.line >= 1).toBe(true);
      if (item.severity === 'error') errors++;
    }
  }
  // An error stops the parse: it is the last item, and the only way to
  // fail the stack.
  expect(errors).toBe(parsed.ok ? 0 : 1);
  if (!parsed.ok) expect(parsed.items.at(-1)).toMatchObject({ kind: 'diagnostic', severity: 'error' });
}

describe('plugstack.conf fuzz', () => {
  // tmpfs when there is one: the cases write some 10,000 files, which on a
  // slow disk takes far longer than parsing them.
  const root = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const base = fs.mkdtempSync(path.join(root, 'plugstack-fuzz-'));
  let failed = false;
  // Kept after a failure, for a look at the case.
  afterAll(() => {
    if (!failed) fs.rmSync(base, { recursive: true, force: true });
  });

  it(`parses ${CASES} random configurations (seed ${SEED}) without throwing or hanging`, () => {
    execFileSync('mkfifo', [path.join(base, 'fifo')]);
    const codes = new Set<string>();
    for (let i = 0; i < CASES; i++) {
      // One generator per case: a failing case replays without the others.
      const g = new Gen(prng(SEED + i));
      const conf = writeCase(base, i, g);
      try {
        const parsed = parseConfig(conf);
        checkWellFormed(parsed);
        for (const item of parsed.items) if (item.kind === 'diagnostic') codes.add(item.code);
      } catch (err) {
        const where = `fuzz case ${i} failed: FUZZ_SEED=${SEED} (case seed ${SEED + i}), its files in ${path.dirname(conf)}`;
        console.error(where);
        failed = true;
        throw new Error(`${where}\n${(err as Error).message}`);
      }
    }
    // The generator reaches the interesting paths, not just invalid lines.
    for (const code of ['CONFIG_INVALID_LINE', 'CONFIG_INCLUDE_LOOP', 'CONFIG_NOT_A_FILE', 'CONFIG_LINE_TOO_LONG'])
      expect([...codes]).toContain(code);
  }, 60_000);
});
