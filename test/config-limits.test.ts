/**
 * plugstack.conf inputs that must not hurt the process reading them (the
 * parser runs inside Node through the addon, and in every host process):
 * deep include chains, paths that are not regular files, huge files and
 * huge globs. Each parse returns at once, with a stable code at the place
 * of the problem. No timing assertions: a hang shows as a test timeout.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, type ConfigDiagnostic, type ConfigPluginLine } from '../lib/config/plugstack-conf.js';
import { Plugstack } from '../lib/plugstack.js';
import { tempDir, writeFile } from './helpers/plugins.js';

const plugins = (items: ReturnType<typeof parseConfig>['items']) =>
  items.filter((i): i is ConfigPluginLine => i.kind === 'plugin');
const diagnostics = (items: ReturnType<typeof parseConfig>['items']) =>
  items.filter((i): i is ConfigDiagnostic => i.kind === 'diagnostic');

// Generous: every case takes milliseconds, but creating 20,000 files on a
// slow disk does not.
const SLOW = 60_000;

/** f0.conf includes f1.conf includes ... f<n-1>.conf; each file also names a plugin. */
function includeChain(n: number): { dir: string; top: string } {
  const dir = tempDir();
  for (let i = 0; i < n; i++) {
    const next = i + 1 < n ? `include f${i + 1}.conf\n` : '';
    writeFile(dir, `f${i}.conf`, `optional /p${i}.so\n${next}`);
  }
  return { dir, top: path.join(dir, 'f0.conf') };
}

describe('include depth', () => {
  it('stops a chain of 1000 nested files at 64, naming the chain, without overflowing the stack', () => {
    const { dir, top } = includeChain(1000);
    const parsed = parseConfig(top);
    expect(parsed.ok).toBe(false);
    expect(plugins(parsed.items)).toHaveLength(64);
    const last = parsed.items.at(-1) as ConfigDiagnostic;
    expect(last).toMatchObject({
      kind: 'diagnostic',
      code: 'CONFIG_INCLUDE_TOO_DEEP',
      severity: 'error',
      file: path.join(dir, 'f63.conf'),
      line: 2,
    });
    // The chain: where it starts, where it ends, the middle shortened.
    expect(last.message).toContain(`${path.join(dir, 'f0.conf')}:2 -> ${path.join(dir, 'f1.conf')}:2`);
    expect(last.message).toContain(`${path.join(dir, 'f63.conf')}:2 -> ${path.join(dir, 'f64.conf')}`);
    expect(last.message).toMatch(/\.\.\. \d+ more \.\.\./);
    expect(last.message).toContain('64');
  });

  it('reads a chain of exactly 64 nested files', () => {
    const { top } = includeChain(64);
    const parsed = parseConfig(top);
    expect(parsed.ok).toBe(true);
    expect(diagnostics(parsed.items)).toEqual([]);
    expect(plugins(parsed.items)).toHaveLength(64);
  });

  it('still reports a loop as a loop, not as a deep chain', () => {
    const dir = tempDir();
    const conf = writeFile(dir, 'a.conf', 'include b.conf\n');
    writeFile(dir, 'b.conf', 'include a.conf\n');
    const parsed = parseConfig(conf);
    expect(diagnostics(parsed.items).map((d) => d.code)).toEqual(['CONFIG_INCLUDE_LOOP']);
  });
});

describe('paths that are not regular files', () => {
  // line 0: the top-level file itself (reports then give no line).
  const notAFile = (conf: string, line: number, kind: RegExp) => {
    const parsed = parseConfig(conf);
    expect(parsed.ok).toBe(false);
    const [d] = diagnostics(parsed.items);
    expect(d).toMatchObject({ code: 'CONFIG_NOT_A_FILE', severity: 'error', file: conf });
    expect(d!.line).toBe(line || undefined);
    expect(d!.message).toMatch(kind);
    // Nothing after it: the parse stopped there.
    expect(parsed.items.at(-1)).toBe(d);
    return parsed;
  };

  it('refuses /dev/zero and /dev/urandom instead of reading them forever', () => {
    const dir = tempDir();
    const conf = writeFile(dir, 'plugstack.conf', 'required /a.so\ninclude /dev/zero\nrequired /b.so\n');
    const parsed = notAFile(conf, 2, /\/dev\/zero is a character device/);
    expect(plugins(parsed.items).map((p) => p.path)).toEqual(['/a.so']);
    notAFile(writeFile(dir, 'random.conf', '\n\ninclude /dev/urandom\n'), 3, /character device/);
  });

  it('refuses a FIFO without blocking on it, included or as the top-level file', () => {
    const dir = tempDir();
    const fifo = path.join(dir, 'fifo.conf');
    execFileSync('mkfifo', [fifo]);
    notAFile(writeFile(dir, 'plugstack.conf', 'include *.conf\n'), 1, /fifo\.conf is a FIFO/);
    notAFile(fifo, 0, /FIFO/);
  });

  it('refuses /proc/<pid>/fd/N pointing to a pipe or a socket', () => {
    const dir = tempDir();
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    // A descriptor of this process that is a pipe: /proc/self/fd/N.
    const fd = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    // A child's standard input: a pipe or a socketpair, depending on libuv.
    // cat holds it open until we close it (no name other tests look for).
    const child = spawn('cat', [], { stdio: ['pipe', 'ignore', 'ignore'] });
    try {
      notAFile(writeFile(dir, 'self.conf', `include /proc/self/fd/${fd}\n`), 1, /FIFO/);
      notAFile(writeFile(dir, 'child.conf', `include /proc/${child.pid}/fd/0\n`), 1, /FIFO|socket/);
    } finally {
      fs.closeSync(fd);
      child.stdin!.end();
    }
  });

  it('reads /dev/null as an empty file, as Slurm does', () => {
    const dir = tempDir();
    const conf = writeFile(dir, 'plugstack.conf', 'include /dev/null\nrequired /a.so\n');
    const parsed = parseConfig(conf);
    expect(parsed.ok).toBe(true);
    expect(diagnostics(parsed.items)).toEqual([]);
    expect(plugins(parsed.items)).toHaveLength(1);
    expect(parseConfig('/dev/null')).toEqual({ ok: true, missing: false, items: [] });
  });

  it('warns about a directory, which Slurm reads as an empty file, and carries on', () => {
    const dir = tempDir();
    writeFile(dir, 'conf.d/a.conf', 'required /a.so\n');
    const conf = writeFile(dir, 'plugstack.conf', 'include conf.d\nrequired /b.so\n');
    const parsed = parseConfig(conf);
    expect(parsed.ok).toBe(true);
    expect(diagnostics(parsed.items)).toMatchObject([
      { code: 'CONFIG_NOT_A_FILE', severity: 'warning', file: conf, line: 1 },
    ]);
    expect(diagnostics(parsed.items)[0]!.message).toContain('is a directory');
    expect(plugins(parsed.items).map((p) => p.path)).toEqual(['/b.so']);
    const top = parseConfig(path.join(dir, 'conf.d'));
    expect(top.ok).toBe(true);
    expect(diagnostics(top.items)).toMatchObject([{ code: 'CONFIG_NOT_A_FILE', severity: 'warning' }]);
    expect(diagnostics(top.items)[0]!.line).toBeUndefined();
  });

  it('reports the problem end to end, from the host process, with file and line', async () => {
    const dir = tempDir();
    const fifo = path.join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const conf = writeFile(dir, 'plugstack.conf', `# a comment\ninclude ${fifo}\n`);
    const stack = await Plugstack.load(conf);
    const report = await stack.check({ context: 'local' });
    expect(report.ok).toBe(false);
    expect(report.contexts[0]!.problems).toMatchObject([
      { code: 'CONFIG_NOT_A_FILE', severity: 'error', file: conf, line: 2 },
    ]);
  });
});

describe('file sizes', () => {
  it('refuses a 20 MB file without parsing any of it', () => {
    const dir = tempDir();
    const big = writeFile(dir, 'big.conf', 'optional /x.so arg\n'.repeat(Math.floor((20 * 1024 * 1024) / 19)));
    const conf = writeFile(dir, 'plugstack.conf', 'required /a.so\ninclude big.conf\n');
    const parsed = parseConfig(conf);
    expect(parsed.ok).toBe(false);
    expect(plugins(parsed.items)).toHaveLength(1);
    expect(diagnostics(parsed.items)).toMatchObject([
      { code: 'CONFIG_FILE_TOO_LARGE', severity: 'error', file: conf, line: 2 },
    ]);
    expect(diagnostics(parsed.items)[0]!.message).toContain(big);
    // As the top-level file: at the file itself.
    const top = parseConfig(big);
    expect(top.items).toMatchObject([{ code: 'CONFIG_FILE_TOO_LARGE', file: big }]);
    expect(top.ok).toBe(false);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads a file of just under 1 MiB', () => {
    const dir = tempDir();
    const line = `optional /x.so ${'a'.repeat(4000)}\n`;
    const conf = writeFile(dir, 'plugstack.conf', line.repeat(Math.floor((1 << 20) / line.length)));
    const parsed = parseConfig(conf);
    expect(parsed.ok).toBe(true);
    expect(diagnostics(parsed.items)).toEqual([]);
  });

  it('stops after 10,000 lines in all, at the line past the limit', () => {
    const dir = tempDir();
    writeFile(dir, 'more.conf', 'optional /y.so\n'.repeat(6000));
    const conf = writeFile(dir, 'plugstack.conf', `${'optional /x.so\n'.repeat(5000)}include more.conf\n`);
    const parsed = parseConfig(conf);
    expect(parsed.ok).toBe(false);
    // 5000 + the include line + 4999 lines of more.conf.
    expect(plugins(parsed.items)).toHaveLength(9999);
    expect(parsed.items.at(-1)).toMatchObject({
      code: 'CONFIG_TOTAL_TOO_LARGE',
      file: path.join(dir, 'more.conf'),
      line: 5000,
    });
  });

  it('stops when the files together pass 4 MiB, at the include that would pass it', () => {
    const dir = tempDir();
    const line = `optional /x.so ${'a'.repeat(4000)}\n`;
    writeFile(dir, 'part.conf', line.repeat(225)); // about 900 KB, 225 lines
    const conf = writeFile(dir, 'plugstack.conf', 'include part.conf\n'.repeat(6));
    const parsed = parseConfig(conf);
    expect(parsed.ok).toBe(false);
    expect(plugins(parsed.items)).toHaveLength(4 * 225);
    expect(diagnostics(parsed.items)).toMatchObject([{ code: 'CONFIG_TOTAL_TOO_LARGE', file: conf, line: 5 }]);
  });
});

describe('large globs', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir();
    const d = path.join(dir, 'many');
    fs.mkdirSync(d);
    for (let i = 0; i < 20000; i++) fs.writeFileSync(path.join(d, `${String(i).padStart(5, '0')}.conf`), `optional /p${i}.so\n`);
    const some = path.join(dir, 'some');
    fs.mkdirSync(some);
    for (let i = 0; i < 1000; i++) fs.writeFileSync(path.join(some, `${String(i).padStart(4, '0')}.conf`), `optional /q${i}.so\n`);
  }, SLOW);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('loads the first 1024 of 20,000 matches in glob order, then stops with an error', () => {
    const conf = writeFile(dir, 'plugstack.conf', 'required /first.so\ninclude many/*.conf\nrequired /never.so\n');
    const parsed = parseConfig(conf);
    expect(parsed.ok).toBe(false);
    const lines = plugins(parsed.items);
    expect(lines).toHaveLength(1 + 1024);
    expect(lines[1]!.file).toBe(path.join(dir, 'many', '00000.conf'));
    expect(lines[1024]!.file).toBe(path.join(dir, 'many', '01023.conf'));
    const [d] = diagnostics(parsed.items);
    expect(d).toMatchObject({ code: 'CONFIG_INCLUDE_TOO_MANY', severity: 'error', file: conf, line: 2 });
    expect(d!.message).toContain('20000');
    expect(parsed.items.at(-1)).toBe(d);
  }, SLOW);

  it('stops after 4096 files read in all', () => {
    const conf = writeFile(dir, 'fivefold.conf', 'include some/*.conf\n'.repeat(5)); // 1000 files each
    const parsed = parseConfig(conf);
    expect(parsed.ok).toBe(false);
    // The top-level file and 4095 included ones.
    expect(plugins(parsed.items)).toHaveLength(4095);
    expect(diagnostics(parsed.items)).toMatchObject([{ code: 'CONFIG_INCLUDE_TOO_MANY', file: conf, line: 5 }]);
  }, SLOW);

  it('bounds the directory entries read by many includes of a huge directory', () => {
    const conf = writeFile(dir, 'scan.conf', 'include many/nothing-*.conf\n'.repeat(100));
    const parsed = parseConfig(conf);
    expect(parsed.ok).toBe(false);
    const codes = diagnostics(parsed.items).map((d) => d.code);
    // Each include reads the 20,000 entries: the fifth goes past 100,000.
    expect(codes).toEqual([...Array(4).fill('CONFIG_INCLUDE_NO_MATCH'), 'CONFIG_INCLUDE_TOO_MANY']);
    expect(parsed.items.at(-1)).toMatchObject({ file: conf, line: 5 });
  }, SLOW);
});
