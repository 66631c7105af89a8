/**
 * Loading plugins as Slurm's plugin.c and spank.c do (spank-facts §2a, §2b):
 * the symbol and version checks, generic init()/fini(), the callback lookup,
 * required versus optional failures, PluginDir, and which plugins each
 * context keeps.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SPANK_CALLBACKS } from '../lib/spank.js';
import { compilePlugin, readLog, tempDir, writeFile } from './helpers/plugins.js';
import { checkContext, codes, stackOf } from './helpers/stack.js';

const V2411 = 0x180b05;
const V2205 = 0x160508;

describe('plugin symbols and version', () => {
  it('loads a plugin built against our headers and reports name, type, version and callbacks', async () => {
    const so = compilePlugin('variant.c', { defines: { NAME: 'hello', WITH_PROLOG: true } });
    const r = await checkContext([`required ${so}`], 'local');
    expect(r.ok).toBe(true);
    expect(r.plugins).toHaveLength(1);
    expect(r.plugins[0]).toMatchObject({
      loaded: true,
      kept: true,
      required: true,
      name: 'hello',
      type: 'spank',
      version: V2411,
      versionText: '24.11.5',
      callbacks: ['init', 'job_prolog', 'exit'],
    });
    expect(r.plugins[0]!.calls.map((c) => c.hook)).toEqual(['dlopen', 'slurm_spank_init', 'dlclose']);
  });

  it('finds all twelve callbacks, listed in Slurm’s order', async () => {
    const so = compilePlugin('variant.c', { defines: { ALL_CALLBACKS: true } });
    const r = await checkContext([`required ${so}`], 'job_script');
    expect(r.plugins[0]!.callbacks).toEqual([...SPANK_CALLBACKS]);
    expect(r.plugins[0]!.kept).toBe(true);
  });

  for (const missing of ['NO_NAME', 'NO_TYPE', 'NO_VERSION']) {
    it(`refuses a plugin without ${missing.slice(3).toLowerCase()} (plugin_${missing.slice(3).toLowerCase()})`, async () => {
      const so = compilePlugin('variant.c', { defines: { [missing]: true } });
      const r = await checkContext([`required ${so}`], 'local');
      expect(r.ok).toBe(false);
      expect(r.plugins[0]).toMatchObject({ loaded: false });
      expect(r.problems[0]).toMatchObject({ code: 'PLUGIN_MISSING_SYMBOL', severity: 'error', line: 1 });
      expect(r.problems[0]!.message).toMatch(/undefined symbol: plugin_/);
      expect(r.log.map((l) => l.message)).toContain(`spank: ${so}: Plugin name/type/version symbol missing`);
    });
  }

  it('compares major.minor only for type "spank": 24.11.0 loads on 24.11.5, 22.05 and 24.05 do not', async () => {
    const micro = compilePlugin('variant.c', { defines: { VERSION: 0x180b00 } });
    const older = compilePlugin('variant.c', { defines: { VERSION: V2205 } });
    const minor = compilePlugin('variant.c', { defines: { VERSION: 0x180500 } });
    expect((await checkContext([`required ${micro}`], 'local')).ok).toBe(true);
    for (const so of [older, minor]) {
      const r = await checkContext([`required ${so}`], 'local');
      expect(r.ok).toBe(false);
      expect(r.problems[0]!.code).toBe('PLUGIN_VERSION_MISMATCH');
      expect(r.log.map((l) => l.message)).toContain(
        `plugin_load_from_file: Incompatible Slurm plugin ${so} version (${so === older ? '22.05.8' : '24.05.0'})`,
      );
    }
  });

  it('emulates 22.05: a 22.05 plugin loads, one built against our 24.11 header does not', async () => {
    const old = compilePlugin('variant.c', { defines: { VERSION: 0x160501 } });
    const current = compilePlugin('variant.c');
    expect((await checkContext([`required ${old}`], 'remote', { slurmVersion: '22.05' })).ok).toBe(true);
    const r = await checkContext([`required ${current}`], 'remote', { slurmVersion: '22.05' });
    expect(r.problems.map((p) => p.code)).toEqual(['PLUGIN_VERSION_MISMATCH']);
    expect(r.problems[0]!.message).toContain('24.11.5');
  });

  it('compares all three numbers for any other plugin_type', async () => {
    const exact = compilePlugin('variant.c', { defines: { TYPE: '"spank/other"', VERSION: V2411 } });
    const micro = compilePlugin('variant.c', { defines: { TYPE: '"spank/other"', VERSION: 0x180b04 } });
    expect((await checkContext([`required ${exact}`], 'local')).ok).toBe(true);
    expect(codes(await checkContext([`required ${micro}`], 'local'))).toEqual(['PLUGIN_VERSION_MISMATCH']);
  });

  it('refuses a plugin that defines none of the twelve callbacks', async () => {
    const so = compilePlugin('variant.c', { defines: { NO_CALLBACKS: true } });
    const r = await checkContext([`optional ${so}`], 'local');
    expect(r.ok).toBe(true);
    expect(r.problems).toMatchObject([{ code: 'PLUGIN_NO_CALLBACKS', severity: 'warning' }]);
    expect(r.log.map((l) => l.message)).toContain(`spank: "${so}" exports 0 symbols`);
  });
});

describe('generic init() and fini()', () => {
  it('calls init() after loading and fini() when the stack goes away', async () => {
    const dir = tempDir();
    const log = path.join(dir, 'calls.log');
    const so = compilePlugin('variant.c', { defines: { GENERIC_INIT: 0, GENERIC_FINI: true } });
    const r = await checkContext([`required ${so}`], 'remote', { env: { VARIANT_LOG: log } });
    expect(r.ok).toBe(true);
    expect(readLog(log)).toEqual(['variant constructor', 'variant init()', 'variant slurm_spank_init', 'variant fini()']);
    expect(r.plugins[0]!.calls.map((c) => c.hook)).toEqual(['dlopen', 'init()', 'slurm_spank_init', 'fini()', 'dlclose']);
  });

  it('unloads a plugin whose init() fails, without calling fini()', async () => {
    const dir = tempDir();
    const log = path.join(dir, 'calls.log');
    const so = compilePlugin('variant.c', { defines: { GENERIC_INIT: 1, GENERIC_FINI: true } });
    const r = await checkContext([`required ${so}`], 'local', { env: { VARIANT_LOG: log } });
    expect(r.ok).toBe(false);
    expect(codes(r)).toEqual(['PLUGIN_INIT_FAILED']);
    expect(readLog(log)).toEqual(['variant constructor', 'variant init()']);
    expect(r.log.map((l) => l.message)).toContain(`spank: ${so}: Plugin init() callback failed`);
  });
});

describe('required and optional plugins', () => {
  it('a required plugin that fails to load aborts the stack: later lines are never read', async () => {
    const good = compilePlugin('variant.c', { defines: { NAME: 'good' } });
    const r = await checkContext([`required ${good}`, 'required /nonexistent/x.so', `required ${good}`], 'local');
    expect(r.ok).toBe(false);
    expect(r.plugins.map((p) => [p.line, p.loaded])).toEqual([
      [1, true],
      [2, false],
    ]);
    expect(r.problems[0]).toMatchObject({ code: 'PLUGIN_DLOPEN_FAILED', severity: 'error', line: 2 });
    expect(r.problems[0]!.message).toContain('cannot open shared object file');
    const messages = r.log.map((l) => l.message);
    expect(messages).toContain('plugin_load_from_file: dlopen(/nonexistent/x.so): /nonexistent/x.so: cannot open shared object file: No such file or directory');
    expect(messages).toContain(`spank: ${r.plugins[1]!.file}:2: Failed to load plugin /nonexistent/x.so. Aborting.`);
    // Slurm never calls init on a stack it failed to build.
    expect(r.plugins[0]!.calls.map((c) => c.hook)).not.toContain('slurm_spank_init');
  });

  it('an optional plugin that fails to load is skipped and loading carries on', async () => {
    const good = compilePlugin('variant.c', { defines: { NAME: 'good' } });
    const r = await checkContext(['optional /nonexistent/x.so', `required ${good}`], 'local');
    expect(r.ok).toBe(true);
    expect(r.plugins.map((p) => p.loaded)).toEqual([false, true]);
    expect(r.problems).toMatchObject([{ code: 'PLUGIN_DLOPEN_FAILED', severity: 'warning' }]);
    expect(r.log.map((l) => l.message)).toContain(
      `spank: ${r.plugins[0]!.file}:1:Failed to load optional plugin /nonexistent/x.so. Ignored.`,
    );
  });

  it('a required plugin failing inside an include aborts the whole load', async () => {
    const dir = tempDir();
    const good = compilePlugin('variant.c', { defines: { NAME: 'good' } });
    writeFile(dir, 'inc.conf', 'required /nonexistent/y.so\n');
    const conf = writeFile(dir, 'plugstack.conf', `include inc.conf\nrequired ${good}\n`);
    const { Plugstack } = await import('../lib/plugstack.js');
    const report = await (await Plugstack.load(conf, { pluginDir: [] })).check({ context: 'local' });
    expect(report.ok).toBe(false);
    expect(report.contexts[0]!.plugins.map((p) => p.configPath)).toEqual(['/nonexistent/y.so']);
  });

  it('loads the same file twice when it is listed twice (Slurm does not detect duplicates)', async () => {
    const so = compilePlugin('variant.c');
    const r = await checkContext([`required ${so}`, `optional ${so} again`], 'local');
    expect(r.plugins.map((p) => p.loaded && p.kept)).toEqual([true, true]);
    expect(r.plugins.map((p) => p.calls.filter((c) => c.hook === 'slurm_spank_init').length)).toEqual([1, 1]);
  });
});

describe('relative paths and PluginDir', () => {
  it('tries each PluginDir entry in turn, then hands the name to dlopen', async () => {
    const so = compilePlugin('variant.c', { defines: { NAME: 'indir' } });
    const dir = tempDir();
    const empty = tempDir();
    const r = await checkContext([`required ${path.basename(so)} x`], 'local', { pluginDir: [empty, path.dirname(so)] });
    expect(r.ok).toBe(true);
    expect(r.plugins[0]).toMatchObject({ configPath: path.basename(so), path: so, name: 'indir', args: ['x'] });
    // Both candidates were peeked at (a full dlopen each), the second matched.
    const peeks = r.plugins[0]!.calls.filter((c) => c.hook === 'dlopen');
    expect(peeks.length).toBe(3);
    const missing = await checkContext(['required notthere.so'], 'local', { pluginDir: [dir] });
    expect(missing.plugins[0]!.path).toBe('notthere.so');
    expect(missing.problems[0]!.code).toBe('PLUGIN_DLOPEN_FAILED');
  });

  it('runs constructors during the PluginDir search, as plugin_peek does', async () => {
    const dir = tempDir();
    const log = path.join(dir, 'calls.log');
    const so = compilePlugin('variant.c', { defines: { NAME: 'peeked' } });
    await checkContext([`required ${path.basename(so)}`], 'local', { pluginDir: path.dirname(so), env: { VARIANT_LOG: log } });
    expect(readLog(log).filter((l) => l.endsWith('constructor'))).toHaveLength(2);
  });
});

describe('which plugins each context keeps', () => {
  const initOnly = () => compilePlugin('variant.c', { defines: { NAME: 'initonly' } });
  const prologOnly = () => compilePlugin('variant.c', { defines: { NAME: 'prologonly', NO_INIT: true, WITH_PROLOG: true } });
  const slurmdExit = () => compilePlugin('variant.c', { defines: { NAME: 'slurmdexit', NO_INIT: true, WITH_SLURMD_EXIT: true, WITH_EPILOG: true } });

  it('slurmd keeps plugins with init or slurmd_exit, and notes prolog/epilog callbacks of all', async () => {
    const r = await checkContext([`required ${initOnly()}`, `required ${prologOnly()}`, `required ${slurmdExit()}`], 'slurmd');
    expect(r.plugins.map((p) => [p.name, p.loaded, p.kept])).toEqual([
      ['initonly', true, true],
      ['prologonly', true, false],
      ['slurmdexit', true, true],
    ]);
    expect(r.anyJobProlog).toBe(true);
    expect(r.anyJobEpilog).toBe(true);
    expect(r.log.map((l) => l.message)).toContain(`spank: ${prologOnly()}: no callbacks in this context`);
  });

  it('job_script keeps only plugins with job_prolog or job_epilog, and runs no init', async () => {
    const r = await checkContext([`required ${initOnly()}`, `required ${prologOnly()}`], 'job_script');
    expect(r.plugins.map((p) => p.kept)).toEqual([false, true]);
    expect(r.plugins.flatMap((p) => p.calls.map((c) => c.hook))).not.toContain('slurm_spank_init');
    expect(r.initRc).toBeUndefined();
  });

  it('local, remote and allocator keep every plugin that loads', async () => {
    for (const context of ['local', 'remote', 'allocator'] as const) {
      const r = await checkContext([`required ${initOnly()}`, `required ${prologOnly()}`], context);
      expect(r.plugins.map((p) => p.kept), context).toEqual([true, true]);
    }
  });
});

describe('undefined symbols', () => {
  it('loads a plugin with an undefined function on a path it never takes (RTLD_LAZY)', async () => {
    const so = compilePlugin('variant.c', { defines: { RARE_UNDEFINED: true } });
    const r = await checkContext([`required ${so}`], 'local');
    expect(r.ok).toBe(true);
    expect(r.problems).toEqual([]);
  });

  it('reports the plugin and hook when the undefined function is called', async () => {
    const so = compilePlugin('variant.c', { defines: { CALL_UNDEFINED: true } });
    const r = await checkContext([`required ${so}`], 'local');
    expect(r.ok).toBe(false);
    const p = r.problems.find((x) => x.code === 'PLUGIN_UNDEFINED_SYMBOL');
    expect(p).toMatchObject({ plugin: so, hook: 'slurm_spank_init', severity: 'error' });
    expect(p!.message).toContain('plugstack_test_function_nobody_defines');
  });

  it("binds a plugin's error() to Slurm's logging error(), not glibc's error(3)", async () => {
    const so = compilePlugin('variant.c', { defines: { CALL_ERROR: true } });
    const r = await checkContext([`required ${so}`], 'local');
    expect(r.ok).toBe(true);
    expect(r.log).toContainEqual({
      source: 'plugin',
      level: 'error',
      message: 'variant says hello from error()',
      plugin: so,
      hook: 'slurm_spank_init',
    });
  });
});
