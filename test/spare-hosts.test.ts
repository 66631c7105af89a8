/**
 * Hosts started ahead of their request (lib/host/spare-host.ts): srun
 * starts the prolog's process while its own calls go on, the step's while
 * the prolog runs and the epilog's while it ends. Each gets its request
 * only when Slurm's order allows; one never used (srun failed first, was
 * cancelled, timed out) is gone when the command returns, and one of
 * another shape is never used.
 */
import { describe, expect, it } from 'vitest';
import { runHost } from '../lib/host/host-process.js';
import { prestartHost } from '../lib/host/spare-host.js';
import { recordCommand } from './helpers/command.js';
import { writeFile, tempDir } from './helpers/plugins.js';
import { openDescriptors, ourProcesses } from './helpers/processes.js';
import { recorder } from './helpers/step.js';

const names = (lines: { callback: string }[]) => lines.map((l) => l.callback);

describe('hosts started ahead', () => {
  it('srun with every helper: the prolog ends before the step starts, the step and srun end before the epilog starts', async () => {
    const { result, lines } = await recordCommand('srun', [], ['-N', '2', 'true']);
    expect(result.exitCode).toBe(0);
    const seq = names(lines);
    // The step's first call comes after the last prolog's, the epilog's after srun's exit.
    expect(seq.lastIndexOf('job_prolog')).toBeLessThan(seq.indexOf('init', seq.indexOf('job_prolog')));
    expect(seq.lastIndexOf('exit')).toBeLessThan(seq.indexOf('job_epilog'));
    const prologEnd = Math.max(...result.jobScripts.filter((j) => j.mode === 'prolog').map((j) => j.calls.at(-1)!.at!));
    const stepStart = Math.min(...result.steps[0]!.calls.map((c) => c.at!));
    expect(prologEnd).toBeLessThan(stepStart);
    const clientEnd = result.client.calls.at(-1)!.at!;
    const epilogStart = Math.min(...result.jobScripts.filter((j) => j.mode === 'epilog').map((j) => j.calls[0]!.at!));
    expect(clientEnd).toBeLessThan(epilogStart);
    expect(ourProcesses()).toEqual([]);
  });

  it('srun whose local_user_init fails: the prolog started ahead never runs, and is gone when srun returns', async () => {
    const fds = openDescriptors();
    const { result, lines } = await recordCommand('srun', ['fail=local_user_init'], ['-N', '2', 'true']);
    expect(result.exitCode).not.toBe(0);
    expect(names(lines)).not.toContain('job_prolog');
    expect(result.jobScripts.filter((j) => j.mode === 'prolog')).toEqual([]);
    // Gone (reaped), not going: nothing is waited for here.
    expect(ourProcesses()).toEqual([]);
    expect(openDescriptors()).toBe(fds);
  });

  it('a failing prolog: the step’s hosts started ahead never run and report nothing', async () => {
    const fds = openDescriptors();
    const { result, lines } = await recordCommand('srun', ['fail=job_prolog'], ['-N', '2', 'true']);
    expect(result.exitCode).toBe(182);
    expect(result.steps).toEqual([]);
    expect(names(lines)).not.toContain('user_init');
    expect(result.stderr).not.toMatch(/plugstack/);
    expect(ourProcesses()).toEqual([]);
    expect(openDescriptors()).toBe(fds);
  });

  it('srun ended by its time bound while the prolog hangs: the step’s hosts started ahead go with it, unreported', async () => {
    const fds = openDescriptors();
    const dir = tempDir();
    const log = `${dir}/recorder.log`;
    const conf = writeFile(dir, 'plugstack.conf', `required ${recorder()} log=${log} hang=job_prolog\n`);
    const { Plugstack } = await import('../lib/plugstack.js');
    const stack = await Plugstack.load(conf, { pluginDir: [] });
    const result = await stack.srun({ args: ['-N', '2', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' }, timeoutMs: 1500 });
    expect(result.steps).toEqual([]);
    // The hung prologs are what timed out, nothing else.
    expect(result.jobScripts.map((j) => `${j.mode} ${j.node} ${j.timedOut}`).sort()).toEqual(['prolog node0 true', 'prolog node1 true']);
    expect(result.stderr.match(/PLUGIN_TIMEOUT/g)).toHaveLength(2);
    expect(result.stderr).not.toMatch(/stepd|node \d \(/);
    expect(ourProcesses()).toEqual([]);
    expect(openDescriptors()).toBe(fds);
  });

  it('srun cancelled (AbortSignal) while the prolog hangs: nothing is left behind', async () => {
    const fds = openDescriptors();
    const dir = tempDir();
    const conf = writeFile(dir, 'plugstack.conf', `required ${recorder()} log=${dir}/recorder.log hang=job_prolog\n`);
    const { Plugstack } = await import('../lib/plugstack.js');
    const stack = await Plugstack.load(conf, { pluginDir: [] });
    const result = await stack.srun({ args: ['true'], cwd: dir, env: { PATH: '/usr/bin:/bin' }, signal: AbortSignal.timeout(500) });
    expect(result.exitCode).toBe(143);
    expect(result.steps).toEqual([]);
    expect(ourProcesses()).toEqual([]);
    expect(openDescriptors()).toBe(fds);
  });

  it('a host started ahead with another environment is not used: it is ended, and a fresh host runs', async () => {
    const dir = tempDir();
    const conf = writeFile(dir, 'plugstack.conf', `required ${recorder()} log=${dir}/recorder.log\n`);
    const request = { conf, context: 'slurmd' as const, slurmVersion: '24.11', pluginDirs: [], scanOnly: true };
    const spare = prestartHost('inspect', { env: { PATH: '/usr/bin:/bin', WHICH: 'ahead' }, stdin: false });
    const run = await runHost('inspect', request, { label: 'scan', timeoutMs: 10_000, env: { PATH: '/usr/bin:/bin', WHICH: 'now' }, spare });
    expect(run.fault).toBeUndefined();
    expect(spare.taken).toBe(false);
    await spare.ended;
    expect(ourProcesses()).toEqual([]);
    // One of the same shape is the one that runs.
    const same = prestartHost('inspect', { env: { PATH: '/usr/bin:/bin' }, stdin: false });
    const taken = await runHost('inspect', request, { label: 'scan', timeoutMs: 10_000, env: { PATH: '/usr/bin:/bin' }, spare: same });
    expect(taken.fault).toBeUndefined();
    expect(taken.done).toBeDefined();
    expect(same.taken).toBe(true);
    expect(ourProcesses()).toEqual([]);
  });

  it('a host started ahead before Node changed its umask is not used', async () => {
    const dir = tempDir();
    const conf = writeFile(dir, 'plugstack.conf', `required ${recorder()} log=${dir}/recorder.log\n`);
    const request = { conf, context: 'slurmd' as const, slurmVersion: '24.11', pluginDirs: [], scanOnly: true };
    const spare = prestartHost('inspect', { env: { PATH: '/usr/bin:/bin' }, stdin: false });
    const before = process.umask(0o027);
    try {
      const run = await runHost('inspect', request, { label: 'scan', timeoutMs: 10_000, env: { PATH: '/usr/bin:/bin' }, spare });
      expect(run.fault).toBeUndefined();
    } finally {
      process.umask(before);
    }
    expect(spare.taken).toBe(false);
    await spare.ended;
    expect(ourProcesses()).toEqual([]);
  });

  it('a host started ahead and never taken ends quietly once discarded', async () => {
    const fds = openDescriptors();
    const spare = prestartHost('stepd', { env: { PATH: '/usr/bin:/bin' }, stdin: true });
    spare.discard();
    await spare.ended;
    expect(ourProcesses()).toEqual([]);
    expect(openDescriptors()).toBe(fds);
  });
});
