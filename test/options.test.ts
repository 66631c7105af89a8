/**
 * Option registration (spank-facts §2f): the static table at load (except in
 * allocator context), spank_option_register from init, copies of every
 * string, the duplicate and length rules, clashes with the commands' own
 * options, and the --help block byte for byte.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compilePlugin, readLog, tempDir } from './helpers/plugins.js';
import { checkContext, codes, stackOf } from './helpers/stack.js';

const A75 = 'a'.repeat(75);
const B76 = 'b'.repeat(76);
const pad30 = ' '.repeat(30);

describe('registering options', () => {
  it('registers the static table at load and options from init, copying their strings', async () => {
    const dir = tempDir();
    const log = path.join(dir, 'options.log');
    const so = compilePlugin('options_probe.c');
    const r = await checkContext([`required ${so}`], 'local', { env: { OPTIONS_LOG: log } });
    expect(r.ok).toBe(true);
    expect(r.options.map((o) => [o.name, o.source, o.arginfo, o.hasArg, o.disabled])).toEqual([
      ['static-opt', 'static', 'path', 1, false],
      ['reg-opt', 'registered', '[level]', 2, false],
      [A75, 'registered', null, 0, false],
    ]);
    // The plugin overwrote its buffers after each call: these are our copies.
    expect(r.options[1]!.usage).toBe('A registered option with a usage text long enough to be wrapped over two lines.');
    // NULL usage and NULL name: BAD_ARG; 76 bytes: NOSPACE; exactly 75: fine.
    expect(readLog(log)).toEqual(['options_probe register 0 3001 3005 0 3001']);
    expect(r.log.map((l) => l.message)).toContain(`spank: option "${B76}" provided by options_probe too long. Ignoring.`);
  });

  it('does not load the static table in allocator context', async () => {
    const so = compilePlugin('options_probe.c');
    const r = await checkContext([`required ${so}`], 'allocator');
    expect(r.options.map((o) => o.name)).toEqual(['reg-opt', A75]);
  });

  it('disables the second option of a name, from whichever plugin, with Slurm’s message', async () => {
    const a = compilePlugin('options_probe.c', { defines: { NAME: 'first', ONLY_MAIN: true } });
    const b = compilePlugin('options_probe.c', { defines: { NAME: 'second', ONLY_MAIN: true } });
    const r = await checkContext([`required ${a}`, `required ${b}`], 'local');
    expect(r.ok).toBe(true);
    expect(r.options.map((o) => [o.name, o.pluginName, o.disabled])).toEqual([
      ['static-opt', 'first', false],
      ['static-opt', 'second', true],
      ['reg-opt', 'first', false],
      ['reg-opt', 'second', true],
    ]);
    const messages = r.log.map((l) => l.message);
    expect(messages).toContain(`spank: option "static-opt" provided by both ${path.basename(b)} and ${path.basename(a)}`);
    expect(messages).toContain(`spank: option "reg-opt" provided by both ${path.basename(b)} and ${path.basename(a)}`);
  });

  it('disables options named like one of the command’s own, per command', async () => {
    const so = compilePlugin('options_probe.c', {
      defines: { STATIC_OPT: '"ntasks"', REG_OPT: '"label"', ONLY_MAIN: true },
    });
    const local = await checkContext([`required ${so}`], 'local');
    expect(local.options.map((o) => [o.name, o.conflicts])).toEqual([
      ['ntasks', ['srun']],
      ['label', ['srun']],
    ]);
    expect(local.log.map((l) => l.message)).toContain('Ignoring conflicting option "ntasks" in plugin "options_probe"');
    expect(codes(local)).toEqual(['OPTION_CONFLICT', 'OPTION_CONFLICT']);
    // Every option is disabled, yet srun still prints the heading.
    expect(local.help.srun).toBe('\nOptions provided by plugins:\n');
    // --label exists only in srun: sbatch and salloc keep the plugin's.
    const alloc = await checkContext([`required ${so}`], 'allocator');
    expect(alloc.options.map((o) => [o.name, o.conflicts])).toEqual([['label', []]]);
    expect(alloc.help.sbatch).toContain('--label=[level]');
    expect(alloc.help.salloc).toContain('--label=[level]');
  });

  it('warns that a NULL usage in the static table crashes srun --help', async () => {
    const so = compilePlugin('options_probe.c', { defines: { STATIC_NULL_USAGE: true, ONLY_MAIN: true } });
    const r = await checkContext([`required ${so}`], 'local');
    expect(r.problems).toMatchObject([{ code: 'OPTION_NULL_USAGE', severity: 'warning', option: 'static-opt' }]);
  });
});

describe('the --help block', () => {
  it('is byte-identical to srun’s: padding to column 30, wrapping at 80, long names on their own line', async () => {
    const so = compilePlugin('options_probe.c');
    const { stack } = await stackOf([`required ${so}`], { env: {} });
    expect(await stack.help()).toBe(
      '\nOptions provided by plugins:\n' +
        '      --static-opt=path       An option from the static table of options_probe.\n' +
        '      --reg-opt=[level]       A registered option with a usage text long enough\n' +
        `${pad30}to be wrapped over two lines.\n` +
        `\n      --${'a'.repeat(70)}+\n${pad30}just fits\n`,
    );
    expect(await stack.help({ command: 'sbatch' })).toBe(
      '\nOptions provided by plugins:\n' +
        '      --reg-opt=[level]       A registered option with a usage text long enough\n' +
        `${pad30}to be wrapped over two lines.\n` +
        `\n      --${'a'.repeat(70)}+\n${pad30}just fits\n`,
    );
  });

  it('follows COLUMNS as Slurm parses it', async () => {
    const so = compilePlugin('options_probe.c', { defines: { ONLY_MAIN: true } });
    const wide = await stackOf([`required ${so}`], { env: { COLUMNS: '120' } });
    expect(await wide.stack.help()).toBe(
      '\nOptions provided by plugins:\n' +
        '      --static-opt=path       An option from the static table of options_probe.\n' +
        '      --reg-opt=[level]       A registered option with a usage text long enough to be wrapped over two lines.\n',
    );
    const narrow = await stackOf([`required ${so}`], { env: { COLUMNS: '60' } });
    expect(await narrow.stack.help()).toBe(
      '\nOptions provided by plugins:\n' +
        '      --static-opt=path       An option from the static\n' +
        `${pad30}table of options_probe.\n` +
        '      --reg-opt=[level]       A registered option with a\n' +
        `${pad30}usage text long enough to be\n` +
        `${pad30}wrapped over two lines.\n`,
    );
    // Not entirely a number: the default 80.
    const junk = await stackOf([`required ${so}`], { env: { COLUMNS: '100x' } });
    expect(await junk.stack.help()).toContain('long enough\n');
  });

  it('is empty when no plugin offers an option', async () => {
    const so = compilePlugin('variant.c');
    const { stack } = await stackOf([`required ${so}`]);
    expect(await stack.help()).toBe('');
  });

  it('is refused when srun would fail before printing it', async () => {
    const so = compilePlugin('variant.c', { defines: { INIT_RC: -1 } });
    const { stack } = await stackOf([`required ${so}`]);
    await expect(stack.help()).rejects.toMatchObject({ code: 'HOST_FAILED' });
  });
});
