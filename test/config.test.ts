/**
 * plugstack.conf parsing with Slurm's rules (spank-facts §2a), checked
 * in-process through the addon, and end to end where the plugin must see
 * what Slurm hands it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig, type ConfigDiagnostic, type ConfigPluginLine } from '../lib/config/plugstack-conf.js';
import { Plugstack } from '../lib/plugstack.js';
import { compilePlugin, readLog, tempDir, writeFile } from './helpers/plugins.js';

const plugins = (items: ReturnType<typeof parseConfig>['items']) =>
  items.filter((i): i is ConfigPluginLine => i.kind === 'plugin');
const diagnostics = (items: ReturnType<typeof parseConfig>['items']) =>
  items.filter((i): i is ConfigDiagnostic => i.kind === 'diagnostic');

describe('plugstack.conf parsing', () => {
  it('cuts comments at the first # anywhere on the line and splits on spaces and tabs', () => {
    const dir = tempDir();
    const conf = writeFile(
      dir,
      'plugstack.conf',
      '# a comment\n\n   \nrequired /a.so  x=1\targ#x more\n\toptional\t/b#c.so\n',
    );
    const parsed = parseConfig(conf);
    expect(parsed.ok).toBe(true);
    expect(plugins(parsed.items).map((p) => [p.line, p.required, p.path, p.args])).toEqual([
      [4, true, '/a.so', ['x=1', 'arg']],
      [5, false, '/b', []],
    ]);
    expect(diagnostics(parsed.items)).toEqual([]);
  });

  it('skips a line with an unknown or miscased keyword, logging what Slurm logs with file:line', () => {
    const dir = tempDir();
    const conf = writeFile(dir, 'plugstack.conf', 'Required /a.so\nrequired\noptional /b.so\n');
    const parsed = parseConfig(conf);
    expect(plugins(parsed.items).map((p) => p.path)).toEqual(['/b.so']);
    const [bad, missingPath] = diagnostics(parsed.items);
    expect(bad).toMatchObject({ severity: 'warning', code: 'CONFIG_INVALID_LINE', file: conf, line: 1 });
    expect(bad!.slurmLog.map((l) => l.text)).toEqual([
      'spank: Invalid option "Required". Must be required, optional or include',
      `spank: ${conf}:1: Invalid line. Ignoring.`,
    ]);
    expect(missingPath).toMatchObject({ code: 'CONFIG_INVALID_LINE', line: 2 });
    expect(missingPath!.slurmLog.map((l) => l.text)).toEqual([`spank: ${conf}:2: Invalid line. Ignoring.`]);
    expect(parsed.ok).toBe(true);
  });

  it('expands includes relative to the including file, depth-first, in sorted glob order', () => {
    const dir = tempDir();
    writeFile(dir, 'conf.d/20-b.conf', 'required /b.so\ninclude sub/*.conf\n');
    writeFile(dir, 'conf.d/10-a.conf', 'required /a.so\n');
    writeFile(dir, 'conf.d/sub/x.conf', 'optional /x.so\n');
    writeFile(dir, 'conf.d/ignored.txt', 'required /never.so\n');
    const conf = writeFile(dir, 'etc/plugstack.conf', 'required /first.so\ninclude ../conf.d/*.conf\nrequired /last.so\n');
    const parsed = parseConfig(conf);
    expect(plugins(parsed.items).map((p) => [p.ref, p.path, path.relative(dir, p.file), p.line])).toEqual([
      [0, '/first.so', 'etc/plugstack.conf', 1],
      [1, '/a.so', 'conf.d/10-a.conf', 1],
      [2, '/b.so', 'conf.d/20-b.conf', 1],
      [3, '/x.so', 'conf.d/sub/x.conf', 1],
      [4, '/last.so', 'etc/plugstack.conf', 3],
    ]);
  });

  it('ignores an include that matches nothing, with a warning Slurm does not give', () => {
    const dir = tempDir();
    const conf = writeFile(dir, 'plugstack.conf', 'include nothing/*.conf\nrequired /a.so\n');
    const parsed = parseConfig(conf);
    expect(parsed.ok).toBe(true);
    expect(diagnostics(parsed.items)).toMatchObject([{ code: 'CONFIG_INCLUDE_NO_MATCH', severity: 'warning', line: 1 }]);
    expect(plugins(parsed.items)).toHaveLength(1);
  });

  it('reports an include loop at the include line instead of recursing forever', () => {
    const dir = tempDir();
    const conf = writeFile(dir, 'plugstack.conf', 'required /a.so\ninclude more.conf\n');
    writeFile(dir, 'more.conf', 'optional /b.so\n\ninclude plugstack.conf\n');
    const parsed = parseConfig(conf);
    expect(parsed.ok).toBe(false);
    const loop = diagnostics(parsed.items).find((d) => d.code === 'CONFIG_INCLUDE_LOOP');
    expect(loop).toMatchObject({ severity: 'error', file: path.join(dir, 'more.conf'), line: 3 });
    expect(loop!.message).toContain('plugstack.conf');
  });

  it('treats a missing file as an empty stack, and an unreadable one as a failure', () => {
    const dir = tempDir();
    const missing = parseConfig(path.join(dir, 'nope.conf'));
    expect(missing).toEqual({ ok: true, missing: true, items: [] });
    // Any open error other than ENOENT fails the stack (here ENOTDIR).
    const file = writeFile(dir, 'plain', '');
    const parsed = parseConfig(path.join(file, 'plugstack.conf'));
    expect(parsed.ok).toBe(false);
    expect(parsed.missing).toBe(false);
    expect(diagnostics(parsed.items)).toMatchObject([{ code: 'CONFIG_OPEN_FAILED', severity: 'error' }]);
    expect(diagnostics(parsed.items)[0]!.slurmLog[0]!.text).toBe(
      `spank: Failed to open ${path.join(file, 'plugstack.conf')}: Not a directory`,
    );
  });

  it('reads an over-long line in 4095-byte pieces like fgets, and counts each piece as a line', () => {
    const dir = tempDir();
    const long = `required /a.so ${'x'.repeat(5000)}`;
    const conf = writeFile(dir, 'plugstack.conf', `${long}\nrequired /b.so\n`);
    const parsed = parseConfig(conf);
    const lines = plugins(parsed.items);
    expect(lines[0]!.path).toBe('/a.so');
    expect(lines[0]!.args[0]!.length).toBe(4095 - '/a.so '.length - 'required '.length);
    // The rest of the long line starts with "xxx...", not a keyword: invalid.
    expect(diagnostics(parsed.items).map((d) => [d.code, d.line])).toEqual([
      ['CONFIG_LINE_TOO_LONG', 1],
      ['CONFIG_INVALID_LINE', 2],
    ]);
    expect(lines[1]).toMatchObject({ path: '/b.so', line: 3 });
  });

  it('does not call a last line of exactly 4095 bytes too long: nothing follows it', () => {
    const dir = tempDir();
    const last = `required /a.so ${'x'.repeat(4095 - '/a.so '.length - 'required '.length)}`;
    const conf = writeFile(dir, 'plugstack.conf', `required /b.so\n${last}`);
    const parsed = parseConfig(conf);
    expect(diagnostics(parsed.items)).toEqual([]);
    expect(plugins(parsed.items).map((p) => [p.path, p.line])).toEqual([
      ['/b.so', 1],
      ['/a.so', 2],
    ]);
  });

  it('ends a line at a NUL byte, as Slurm parses the C string, and keeps counting lines', () => {
    const dir = tempDir();
    const conf = path.join(dir, 'plugstack.conf');
    fs.writeFileSync(conf, Buffer.from('required /a.so one\0two\n\0required /never.so\noptional /b.so\n', 'latin1'));
    const parsed = parseConfig(conf);
    expect(plugins(parsed.items).map((p) => [p.path, p.args, p.line])).toEqual([
      ['/a.so', ['one'], 1],
      ['/b.so', [], 3],
    ]);
    expect(diagnostics(parsed.items)).toEqual([]);
  });

  it('warns about CRLF line endings, which Slurm keeps in the last word', () => {
    const dir = tempDir();
    const conf = writeFile(dir, 'plugstack.conf', 'required /a.so arg\r\n');
    const parsed = parseConfig(conf);
    expect(plugins(parsed.items)[0]!.args).toEqual(['arg\r']);
    expect(diagnostics(parsed.items).map((d) => d.code)).toEqual(['CONFIG_CARRIAGE_RETURN']);
  });
});

describe('plugstack.conf arguments reach the plugin as Slurm passes them', () => {
  it('gives ac == 0 and argv == NULL without arguments, and the words otherwise', async () => {
    const dir = tempDir();
    const so = compilePlugin('init_probe.c');
    const log = path.join(dir, 'probe.log');
    const conf = writeFile(dir, 'plugstack.conf', `required ${so}\nrequired ${so} one two#three\n`);
    const stack = await Plugstack.load(conf, { env: { PROBE_LOG: log } });
    const report = await stack.check({ context: 'local' });
    expect(report.ok).toBe(true);
    const lines = readLog(log);
    expect(lines.filter((l) => l.startsWith('ac ') || l.startsWith('arg '))).toEqual([
      'ac 0 argv NULL',
      'ac 2 argv array',
      'arg 0 one',
      'arg 1 two',
    ]);
    expect(fs.existsSync(log)).toBe(true);
  });
});
