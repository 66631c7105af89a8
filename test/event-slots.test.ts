/**
 * What a host's processes keep in the memory Node shares with them
 * (lib/host/event-slots.ts) instead of writing at once: it still reaches
 * Node when it must. A task's output goes on while slurmstepd runs slow
 * exit callbacks (slurmstepd's IO thread does not wait for them either),
 * and the step's calls come out in the order they ran, though the host
 * and each task child send theirs in batches of their own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { compilePlugin, tempDir, writeFile } from './helpers/plugins.js';
import { leftBehind } from './helpers/processes.js';
import { recorder } from './helpers/step.js';

describe("a host's unsent events", () => {
  it("a task's output reaches srun before slurmstepd runs that task's exit callbacks", async () => {
    const dir = tempDir();
    const flag = path.join(dir, 'output-seen');
    // Task 1 ends at once and its task_exit takes a second; meanwhile task 0
    // prints and ends, so slurmstepd finds its output and its end together.
    // Task 0's task_exit then waits for the flag, which this test makes once
    // srun has printed the output: output held back behind the callback
    // would leave it waiting its 10 s, and it says so.
    const conf = `required ${compilePlugin('wait_file.c')} sleep=1:1000 wait=0:${flag}\n`;
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', conf), { pluginDir: [] });
    let printed = '';
    const r = await stack.srun({
      args: ['-n', '2', 'sh', '-c', 'if [ $SLURM_PROCID = 0 ]; then sleep 0.2; echo hello from task 0; fi'],
      cwd: dir,
      env: { PATH: '/usr/bin:/bin' },
      onStdout: (chunk) => {
        printed += chunk.toString();
        if (printed.includes('hello from task 0')) fs.writeFileSync(flag, '');
      },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const said = r.steps[0]!.log.filter((l) => l.message.startsWith('wait_file:')).map((l) => l.message);
    expect(said).toEqual(['wait_file: task 0: seen']);
    expect(await leftBehind()).toEqual([]);
  });

  it('lines a plugin logs from threads of its own, while slurmstepd goes on, all reach Node whole', async () => {
    const dir = tempDir();
    const so = compilePlugin('threads_log.c', { args: ['-pthread'] });
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', `required ${so} n=2000\n`), { pluginDir: [] });
    const r = await stack.launchStep({ argv: ['true'], ntasks: 2, env: { PATH: '/usr/bin:/bin' } });
    expect(r.ok, JSON.stringify(r.problems)).toBe(true);
    const lines = r.log.map((l) => l.message).filter((m) => m.startsWith('threads_log:'));
    for (const who of ['thread 0', 'thread 1', 'main']) {
      const mine = lines.filter((m) => m.startsWith(`threads_log: ${who} line `));
      expect(mine.map((m) => Number(m.split(' ').pop())), who).toEqual(Array.from({ length: 2000 }, (_, i) => i));
    }
    expect(lines).toHaveLength(6000);
  });

  it("the step's calls come in the order they ran: every task's task_post_fork (slurmstepd) before its task_init (the task)", async () => {
    const dir = tempDir();
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', `required ${recorder()}\n`), { pluginDir: [] });
    for (let round = 0; round < 5; round++) {
      const r = await stack.launchStep({ argv: ['true'], ntasks: 8, env: { PATH: '/usr/bin:/bin' } });
      expect(r.ok, JSON.stringify(r.problems)).toBe(true);
      const order = r.calls.map((c) => `${c.hook}:${c.task ?? ''}`);
      for (let task = 0; task < 8; task++) {
        const postFork = order.indexOf(`slurm_spank_task_post_fork:${task}`);
        const init = order.indexOf(`slurm_spank_task_init:${task}`);
        expect(postFork, `round ${round}, task ${task}: ${order.join(' ')}`).toBeGreaterThanOrEqual(0);
        expect(postFork, `round ${round}, task ${task}: ${order.join(' ')}`).toBeLessThan(init);
      }
      const starts = r.calls.map((c) => c.at!);
      expect(starts).toEqual([...starts].sort((a, b) => a - b));
    }
  });
});
