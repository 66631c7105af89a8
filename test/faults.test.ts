/**
 * A plugin that crashes, aborts, exits or hangs kills or stalls only its
 * host process. The report names the plugin, the hook and the signal or
 * timeout; no process or file descriptor of the run is left behind.
 */
import { describe, expect, it } from 'vitest';
import { compilePlugin } from './helpers/plugins.js';
import { leftBehind, openDescriptors as openFds, uniqueTag } from './helpers/processes.js';
import { checkContext } from './helpers/stack.js';

describe('faults inside plugins', () => {
  it('a crash in an ELF constructor is reported against the plugin and dlopen', async () => {
    const so = compilePlugin('variant.c', { defines: { CONSTRUCTOR_CRASH: true } });
    const r = await checkContext([`optional ${so}`], 'local');
    expect(r.ok).toBe(false);
    expect(r.problems).toMatchObject([
      { code: 'PLUGIN_CRASHED', severity: 'error', plugin: so, hook: 'dlopen', signal: 'SIGSEGV', line: 1 },
    ]);
  });

  it('a crash or a hang in the generic init() is reported against init()', async () => {
    const crash = compilePlugin('variant.c', { defines: { GENERIC_INIT_CRASH: true } });
    const r = await checkContext([`required ${crash}`], 'slurmd');
    expect(r.problems).toMatchObject([{ code: 'PLUGIN_CRASHED', plugin: crash, hook: 'init()', signal: 'SIGSEGV' }]);
    const hang = compilePlugin('variant.c', { defines: { GENERIC_INIT_HANG: true } });
    const h = await checkContext([`required ${hang}`], 'job_script', { timeoutMs: 300 });
    expect(h.problems).toMatchObject([{ code: 'PLUGIN_TIMEOUT', plugin: hang, hook: 'init()' }]);
  });

  it('a crash in slurm_spank_init is reported with the plugin, hook and signal', async () => {
    const good = compilePlugin('variant.c', { defines: { NAME: 'good' } });
    const bad = compilePlugin('variant.c', { defines: { INIT_CRASH: true } });
    const r = await checkContext([`required ${good}`, `required ${bad}`], 'remote');
    expect(r.ok).toBe(false);
    const p = r.problems.find((x) => x.code === 'PLUGIN_CRASHED');
    expect(p).toMatchObject({ plugin: bad, hook: 'slurm_spank_init', signal: 'SIGSEGV', line: 2 });
    // What happened before the crash is still reported.
    expect(r.plugins.map((x) => x.loaded)).toEqual([true, true]);
    expect(r.plugins[1]!.calls.at(-1)).toEqual({ hook: 'slurm_spank_init' });
  });

  it('abort() is reported as SIGABRT', async () => {
    const so = compilePlugin('variant.c', { defines: { INIT_ABORT: true } });
    const r = await checkContext([`required ${so}`], 'allocator');
    expect(r.problems).toMatchObject([{ code: 'PLUGIN_CRASHED', signal: 'SIGABRT', hook: 'slurm_spank_init' }]);
  });

  it('exit() inside a plugin is reported with its status', async () => {
    const so = compilePlugin('variant.c', { defines: { INIT_EXIT: 3 } });
    const r = await checkContext([`required ${so}`], 'slurmd');
    expect(r.problems).toMatchObject([{ code: 'PLUGIN_EXITED', hook: 'slurm_spank_init', plugin: so }]);
    expect(r.problems[0]!.message).toContain('status 3');
  });

  it('a hanging plugin is killed after the timeout, with the hook named', async () => {
    const so = compilePlugin('variant.c', { defines: { INIT_HANG: true } });
    const started = Date.now();
    const r = await checkContext([`required ${so}`], 'local', { timeoutMs: 500 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(r.problems).toMatchObject([{ code: 'PLUGIN_TIMEOUT', hook: 'slurm_spank_init', plugin: so }]);
    expect(r.problems[0]!.message).toContain('500 ms');
  });

  it('leaves no process and no file descriptor behind, even one the plugin started', async () => {
    const hang = compilePlugin('variant.c', { defines: { INIT_HANG: true, NAME: 'hangs' } });
    const forks = compilePlugin('variant.c', { defines: { INIT_FORKS: true, NAME: 'forks' } });
    const before = openFds();
    const tag = uniqueTag();
    await checkContext([`required ${forks} ${tag}`, `required ${hang}`], 'local', { timeoutMs: 300 });
    const forked = await checkContext([`required ${forks} ${tag}`], 'remote');
    // Slurm loads the stack; the process the plugin left is reported.
    expect(forked.ok).toBe(true);
    expect(forked.problems).toMatchObject([{ code: 'PLUGIN_LEFT_PROCESS', hook: 'slurm_spank_init', plugin: forks }]);
    // Our hosts and the plugin's child are gone (a killed orphan is
    // reaped by init, which may take a moment).
    expect(await leftBehind([tag])).toEqual([]);
    expect(openFds()).toBe(before);
  });
});
