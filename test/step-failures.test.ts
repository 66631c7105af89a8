/**
 * What a failing required plugin does to a step, callback by callback, in
 * 24.11 and in 22.05 (spank-facts §3.7, §3.11; the man page's error table
 * and Slurm's test7.24).
 */
import { describe, expect, it } from 'vitest';
import { callbacks, recordStep } from './helpers/step.js';

const step = { ntasks: 2, argv: ['sh', '-c', 'echo ran'] };
const ran = (r: Awaited<ReturnType<typeof recordStep>>) => r.result.tasks.filter((t) => t.stdout === 'ran\n').length;

for (const version of ['24.11', '22.05'] as const) {
  describe(`Slurm ${version}`, () => {
    const record = (args: string[], extra = {}) => recordStep(args, { ...step, ...extra }, { slurmVersion: version });

    it('init fails: no task runs and no other callback, not even exit', async () => {
      const r = await record(['fail=init']);
      expect(callbacks(r.lines)).toEqual(['init']);
      expect(ran(r)).toBe(0);
      expect(r.result.nodes[0]).toMatchObject({ failedAt: 'init', launchRc: 1011, exitCallbacksRan: false });
      expect(r.result.ok).toBe(false);
      expect(r.result.log.map((l) => l.message)).toContain('Plugin stack initialization failed.');
      expect(r.result.problems).toContainEqual(expect.objectContaining({ code: 'HOOK_FAILED', hook: 'slurm_spank_init', rc: -1 }));
    });

    it('init_post_opt fails: the same', async () => {
      const r = await record(['fail=init_post_opt']);
      expect(callbacks(r.lines)).toEqual(['init', 'init_post_opt']);
      expect(r.result.nodes[0]).toMatchObject({ failedAt: 'init_post_opt', launchRc: 1011 });
      expect(r.result.ok).toBe(false);
    });

    it(`user_init fails: no task is forked, exit still runs, and the step ${version === '24.11' ? 'fails' : 'does not fail'}`, async () => {
      const r = await record(['fail=user_init']);
      expect(callbacks(r.lines)).toEqual(['init', 'init_post_opt', 'user_init', 'exit']);
      expect(r.result.tasks.every((t) => t.pid === -1)).toBe(true);
      expect(r.result.log.map((l) => l.message)).toContain('spank_user failed.');
      expect(r.result.nodes[0]!.failedAt).toBe('user_init');
      // 24.11 reports task 0 as exited with status 1; 22.05 reports nothing.
      expect(r.result.tasks[0]!.status).toBe(version === '24.11' ? 256 : null);
      expect(r.result.ok).toBe(version === '22.05');
    });

    it('task_init_privileged fails in one task: that child exits 1 before exec, task_exit still runs for it, the others run', async () => {
      const r = await record(['fail=task_init_privileged', 'only=1']);
      expect(ran(r)).toBe(1);
      expect(r.result.tasks.map((t) => t.status)).toEqual([0, 256]);
      const exits = r.lines.filter((l) => l.callback === 'task_exit').map((l) => [l.fields.task, l.fields.status]).sort();
      expect(exits).toEqual([['0', '0'], ['1', '256']]);
      expect(r.result.log.map((l) => l.message)).toContain('spank_task_init_privileged failed');
      // The failed child is mostly gone when slurmstepd releases the tasks (a race in Slurm too):
      // the write to its barrier fails, in the release's words.
      for (const m of r.result.log.map((l) => l.message).filter((x) => x.includes('to unblock task')))
        expect(m).toMatch(version === '24.11' ? /^exec_wait_signal_child: write\(fd:\d+\) to unblock task 1 failed$/ : /^write to unblock task 1 failed: Broken pipe$/);
      expect(r.result.ok).toBe(false);
      expect(callbacks(r.lines).at(-1)).toBe('exit');
    });

    it(`task_post_fork fails: no task execs, no task_exit, exit runs, the step ${version === '24.11' ? 'fails' : 'does not fail'}`, async () => {
      const r = await record(['fail=task_post_fork']);
      expect(ran(r)).toBe(0);
      expect(callbacks(r.lines).filter((c) => c === 'task_exit' || c === 'task_init')).toEqual([]);
      expect(callbacks(r.lines).at(-1)).toBe('exit');
      expect(r.result.log.map((l) => l.message)).toContain('spank task 0 post-fork failed');
      expect(r.result.nodes[0]!.failedAt).toBe('task_post_fork');
      expect(r.result.ok).toBe(version === '22.05');
      expect(r.result.tasks.map((t) => t.status)).toEqual(version === '24.11' ? [256, null] : [null, null]);
    });

    it('task_init fails in one task: that child exits 1 before exec, task_exit runs for it', async () => {
      const r = await record(['fail=task_init', 'only=0']);
      expect(r.result.tasks.map((t) => [t.status, t.stdout])).toEqual([
        [256, ''],
        [0, 'ran\n'],
      ]);
      expect(r.result.log.map((l) => l.message)).toContain('Failed to invoke spank plugin stack');
      expect(r.lines.filter((l) => l.callback === 'task_exit')).toHaveLength(2);
      expect(r.result.ok).toBe(false);
    });

    it('task_exit and exit failures are only logged', async () => {
      const r = await record(['fail=task_exit', 'fail=exit']);
      expect(ran(r)).toBe(2);
      expect(r.result.ok).toBe(true);
      expect(r.result.log.map((l) => l.message)).toContain('Unable to spank task 0 at exit');
    });

    it('a positive rc from a required plugin stops the pass but fails nothing', async () => {
      const r = await record(['fail=user_init:1'], {});
      expect(ran(r)).toBe(2);
      expect(r.result.ok).toBe(true);
      expect(r.result.problems).toContainEqual(expect.objectContaining({ code: 'HOOK_STOPPED_PASS', rc: 1 }));
    });
  });
}

describe('optional plugins', () => {
  it('a failing optional plugin is ignored and the plugins after it still run', async () => {
    const { recorder } = await import('./helpers/step.js');
    const r = await recordStep([], step, {
      extraLines: [`optional ${recorder()} fail=user_init`],
    });
    expect(r.result.ok).toBe(true);
    expect(ran(r)).toBe(2);
    expect(r.result.problems).toContainEqual(expect.objectContaining({ code: 'HOOK_RC_IGNORED', severity: 'warning' }));
  });

  it('a failing required plugin stops the pass: the plugins after it are not called', async () => {
    const { recorder } = await import('./helpers/step.js');
    const r = await recordStep(['fail=user_init:1'], step, { extraLines: [`required ${recorder()} log=/dev/null`] });
    const userInits = r.result.calls.filter((c) => c.hook === 'slurm_spank_user_init');
    expect(userInits).toHaveLength(1);
  });
});
