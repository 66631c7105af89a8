/**
 * What srun and salloc print and do differently in Slurm 22.05 and 24.11
 * (native/core/rules/releases.json), and the built-in behaviours both
 * releases share that a plugin meets: --x11 reading DISPLAY, a task's
 * "(core dumped)", spank_prepend_task_argv's absence from Debian's 22.05.
 * Each was measured on the real releases (test/conformance/scenarios.ts
 * compares them there).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { compilePlugin, fixturesDir, tempDir, writeFile } from './helpers/plugins.js';

const PATH = '/usr/bin:/bin';

async function stackOf(fixture: string, release: '22.05' | '24.11', args: string[] = []): Promise<{ stack: Plugstack; dir: string }> {
  const dir = tempDir();
  const so = compilePlugin(fixture, release === '22.05' ? { defines: { PLUGIN_VERSION: 0x160508, SLURM_VERSION_NUMBER: 0x160508 } } : {});
  const conf = writeFile(dir, 'plugstack.conf', `required ${so} log=${path.join(dir, 'trace.log')} ${args.join(' ')}\n`);
  return { stack: await Plugstack.load(conf, { slurmVersion: release, pluginDir: [] }), dir };
}

const lines = (s: string) => s.split('\n').filter(Boolean);

describe.each(['22.05', '24.11'] as const)('Slurm %s', (release) => {
  it(`salloc ${release === '24.11' ? 'says' : 'does not say'} that its nodes are ready for the job`, async () => {
    const { stack, dir } = await stackOf('trace.c', release);
    const r = await stack.salloc({ args: ['-N', '2', 'true'], cwd: dir, env: { PATH } });
    expect(r.exitCode).toBe(0);
    const ready = lines(r.stderr).filter((l) => / are ready for job$/.test(l));
    expect(ready).toEqual(release === '24.11' ? ['salloc: Nodes node[0-1] are ready for job'] : []);
    // Right after the grant, as 24.11's _wait_nodes_ready says it.
    if (release === '24.11') expect(lines(r.stderr).indexOf(ready[0]!)).toBe(lines(r.stderr).findIndex((l) => l.startsWith('salloc: Granted job allocation')) + 1);
  });

  it(`prints a failed user_init's task exit line ${release === '24.11' ? 'before' : 'after'} the launch failures`, async () => {
    const { stack, dir } = await stackOf('trace.c', release, ['fail=user_init@2']);
    const r = await stack.srun({ args: ['-n', '2', '-O', 'true'], cwd: dir, env: { PATH } });
    const srunLines = lines(r.stderr).filter((l) => /^srun: error: .*(launch failed|Exited with exit code)/.test(l));
    const exited = ['srun: error: node0: task 0: Exited with exit code 1'];
    const failed = ['srun: error: task 0 launch failed: Slurmd could not execve job', 'srun: error: task 1 launch failed: Slurmd could not execve job'];
    // 22.05's slurmstepd does not mark task 0: no exit line at all.
    expect(srunLines).toEqual(release === '24.11' ? [...exited, ...failed] : failed);
  });

  it(`ends the launch a failed prolog stops with ${release === '24.11' ? 'Job prolog failed, status 182' : 'EAGAIN, status 139'}`, async () => {
    const { stack, dir } = await stackOf('trace.c', release, ['fail=job_prolog@5']);
    const r = await stack.srun({ args: ['true'], cwd: dir, env: { PATH } });
    expect(lines(r.stderr)).toContain(`srun: error: Application launch failed: ${release === '24.11' ? 'Job prolog failed' : 'Resource temporarily unavailable'}`);
    expect(r.exitCode).toBe(release === '24.11' ? 182 : 139);
  });

  it(`ends srun with ${release === '24.11' ? '1' : '0'} when the stack of a node fails at init`, async () => {
    const { stack, dir } = await stackOf('trace.c', release, ['fail=init@2']);
    const r = await stack.srun({ args: ['true'], cwd: dir, env: { PATH } });
    expect(lines(r.stderr)).toContain('srun: error: task 0 launch failed: Plugin initialization failed');
    expect(r.exitCode).toBe(release === '24.11' ? 1 : 0);
  });

  it('says (core dumped) for a task whose status says it dumped core', async () => {
    const { stack, dir } = await stackOf('trace.c', release);
    // The task raises its own core limit as far as the hard limit allows.
    const r = await stack.srun({ args: ['sh', '-c', 'ulimit -c unlimited 2>/dev/null; kill -SEGV $$'], cwd: dir, env: { PATH } });
    const status = r.steps[0]!.tasks[0]!.status!;
    expect(status & 0x7f).toBe(11);
    const dumped = (status & 0x80) !== 0;
    expect(lines(r.stderr)).toContain(`srun: error: node0: task 0: Segmentation fault${dumped ? ' (core dumped)' : ''}`);
    expect(r.exitCode).toBe(128 + 11);
  });

  it("keeps srun's and salloc's built-in --x11 over a plugin's, and reads DISPLAY as Slurm does", async () => {
    const { stack, dir } = await stackOf('x11_option.c', release);
    const noDisplay = await stack.srun({ args: ['--x11', 'true'], cwd: dir, env: { PATH } });
    expect(noDisplay.exitCode).toBe(255);
    expect(lines(noDisplay.stderr)).toEqual([
      'srun: error: Ignoring conflicting option "x11" in plugin "x11opt"',
      'srun: error: No DISPLAY variable set, cannot setup x11 forwarding.',
    ]);
    const noSocket = await stack.srun({ args: ['--x11', 'true'], cwd: dir, env: { PATH, DISPLAY: ':4242.0' } });
    expect(noSocket.exitCode).toBe(255);
    expect(lines(noSocket.stderr)).toContain('srun: error: Cannot stat() local X11 socket `/tmp/.X11-unix/X4242`');
    const badDisplay = await stack.salloc({ args: ['--x11', 'true'], cwd: dir, env: { PATH, DISPLAY: 'nocolon' } });
    expect(badDisplay.exitCode).toBe(255);
    expect(lines(badDisplay.stderr)).toEqual(['salloc: error: Error parsing DISPLAY environment variable. Cannot use X11 forwarding.']);
    // sbatch has no --x11, and does not take the plugin's either (as the
    // real sbatch of both releases, with this plugin).
    const sbatch = await stack.sbatch({ args: ['--x11', '--wrap', 'true'], cwd: dir, env: { PATH } });
    expect(sbatch.exitCode).toBe(255);
    expect(lines(sbatch.stderr)[0]).toBe("sbatch: unrecognized option '--x11'");
  });

  it("is not ended by a plugin's killpg(0, SIGTERM) in task_exit, as slurmstepd is not", async () => {
    const { stack, dir } = await stackOf('killpg_task_exit.c', release);
    const r = await stack.srun({ args: ['-n', '2', '-O', 'sh', '-c', 'echo ok $SLURM_PROCID'], cwd: dir, env: { PATH } });
    expect(r.exitCode).toBe(0);
    expect(lines(r.stdout).sort()).toEqual(['ok 0', 'ok 1']);
    expect(r.stderr).toBe('');
    const step = r.steps[0]!;
    expect(step.problems).toEqual([]);
    // Both task_exit calls and the exit callback ran in the same slurmstepd.
    expect(step.calls.filter((c) => c.hook === 'slurm_spank_task_exit' && c.rc === 0)).toHaveLength(2);
    expect(step.log.map((l) => l.message)).toContain('killpg: exit reached');
  });

  it(`${release === '24.11' ? 'runs' : 'dies in'} spank_prepend_task_argv`, async () => {
    const { stack, dir } = await stackOf('prepend_argv.c', release);
    const r = await stack.srun({ args: ['-n', '2', '-O', '-l', 'sh', '-c', 'echo task $SLURM_PROCID PREPENDED=$PREPENDED'], cwd: dir, env: { PATH } });
    if (release === '24.11') {
      expect(r.exitCode).toBe(0);
      expect(lines(r.stdout).sort()).toEqual(['0: task 0 PREPENDED=1', '1: task 1 PREPENDED=1']);
      return;
    }
    // Debian's 22.05 has no such function: the call fails to bind in the
    // task, with the loader's message under slurmstepd's process title.
    expect(r.exitCode).toBe(127);
    const so = compilePlugin('prepend_argv.c', { defines: { PLUGIN_VERSION: 0x160508, SLURM_VERSION_NUMBER: 0x160508 } });
    const step = `${r.steps[0]!.jobId}.${r.steps[0]!.stepId}`;
    const message = `slurmstepd: [${step}]: symbol lookup error: ${so}: undefined symbol: spank_prepend_task_argv`;
    expect(lines(r.stdout + r.stderr).filter((l) => l.includes('symbol lookup error')).sort()).toEqual([`0: ${message}`, `1: ${message}`]);
    expect(lines(r.stderr)).toContain('srun: error: node0: tasks 0-1: Exited with exit code 127');
    expect(path.dirname(so).startsWith(fixturesDir)).toBe(false);
  });
});
