/**
 * Many steps and commands with faults in one Node process leave nothing
 * behind: no process, no job directory, not one more descriptor. (How its
 * memory behaves over 1000 steps is measured by bench/soak.mjs.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stateDir } from '../lib/cluster/state-dir.js';
import { Plugstack } from '../lib/plugstack.js';
import { tempDir, writeFile } from './helpers/plugins.js';
import { leftBehind, openDescriptors, uniqueTag } from './helpers/processes.js';
import { recorder } from './helpers/step.js';

describe('a soak with faults', () => {
  it('300 steps and 60 sruns leave no process, job directory or descriptor behind', async () => {
    const dir = tempDir();
    const tag = uniqueTag();
    const faults = ['', 'crash=user_init', `daemon=init:${tag}`, 'leakfd=task_init', 'exit=task_exit', 'crash=task_init only=1', 'abort=task_post_fork'];
    const stacks = await Promise.all(
      faults.map((f, i) => Plugstack.load(writeFile(dir, `p${i}.conf`, `required ${recorder()} ${f} context=remote\n`), { pluginDir: [] })),
    );
    const jobs = stateDir('jobs');
    // Warm up: the first runs open what Node keeps open (the addon, ...).
    await stacks[0]!.launchStep({ argv: ['true'] });
    await stacks[0]!.srun({ args: ['true'], cwd: dir });
    const fds = openDescriptors();
    const jobIds: number[] = [];
    for (let i = 0; i < 300; i++) {
      const step = await stacks[i % stacks.length]!.launchStep({ argv: ['true'], ntasks: 2, jobId: 1 + i });
      expect(step.nodes).toHaveLength(1);
      if (i % 5 === 0) {
        const r = await stacks[i % stacks.length]!.srun({ args: ['-N', '2', '-n', '2', 'true'], cwd: dir });
        if (r.job) jobIds.push(r.job.jobId);
      }
    }
    expect(jobIds.length).toBeGreaterThan(50);
    expect(jobIds.filter((id) => fs.existsSync(path.join(jobs, String(id))))).toEqual([]);
    expect(await leftBehind([tag])).toEqual([]);
    expect(openDescriptors()).toBe(fds);
  }, 120_000);
});
