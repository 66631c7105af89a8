/**
 * The result table of the SPANK man page, as Slurm's test7.24 checks it for
 * 24.11 and 22.05 (spank-facts §3.7, §3.11, §5.3): a required plugin that
 * returns -ESPANK_ERROR in one callback of one context, and what srun,
 * salloc and sbatch make of it — their exit status, Slurm's message, the
 * job's state and whether the node drains.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandResult } from '../lib/commands/types.js';
import { Plugstack } from '../lib/plugstack.js';
import { compilePlugin, tempDir, writeFile } from './helpers/plugins.js';

type Version = '24.11' | '22.05';

async function failIn(version: Version, command: 'srun' | 'salloc' | 'sbatch', fn: string, ctx: string) {
  const so = compilePlugin('fail_where.c', version === '22.05' ? { defines: { PLUGIN_VERSION: 0x160508 } } : {});
  const dir = tempDir();
  const conf = writeFile(dir, 'plugstack.conf', `required ${so}\n`);
  const stack = await Plugstack.load(conf, { slurmVersion: version, pluginDir: [] });
  const env = { PATH: '/usr/bin:/bin', TEST_FUNC: fn, TEST_CTXT: ctx };
  const args =
    command === 'srun'
      ? ['true']
      : command === 'salloc'
        ? ['srun', 'true']
        : ['-W', '-o', 'out', writeFile(dir, 'job.sh', '#!/bin/sh\nsrun echo IT_RAN\n')];
  const result = await stack[command]({ args, env, cwd: dir });
  const short = fn.replace('slurm_spank_', '');
  const pattern = new RegExp(`error: spank: required plugin ${path.basename(so).replace(/\./g, '\\.')}: ${short}\\(\\) failed with rc=-3000`);
  const output = result.stderr + (result.output?.text ?? '');
  return { result, reported: pattern.test(output), found: output.includes(`Found (${fn},${ctx})`) };
}

function outcome(r: CommandResult) {
  return {
    error: r.exitCode !== 0,
    job: r.job ? r.job.state : 'none',
    drains: (r.job?.drained.length ?? 0) > 0,
  };
}

// [function, context, exit status is an error, job state, drains] — srun,
// from test7.24 (24.11; the 22.05 differences noted per row).
const srunRows: [string, string, Record<Version, [boolean, string, boolean]>][] = [
  ['slurm_spank_init', 'local', { '24.11': [true, 'none', false], '22.05': [true, 'none', false] }],
  ['slurm_spank_init_post_opt', 'local', { '24.11': [true, 'none', false], '22.05': [true, 'none', false] }],
  ['slurm_spank_local_user_init', 'local', { '24.11': [true, 'FAILED', false], '22.05': [true, 'COMPLETED', false] }],
  ['slurm_spank_user_init', 'remote', { '24.11': [true, 'FAILED', false], '22.05': [false, 'COMPLETED', false] }],
  ['slurm_spank_task_init_privileged', 'remote', { '24.11': [true, 'FAILED', false], '22.05': [true, 'FAILED', false] }],
  ['slurm_spank_task_post_fork', 'remote', { '24.11': [true, 'FAILED', false], '22.05': [false, 'COMPLETED', false] }],
  ['slurm_spank_task_init', 'remote', { '24.11': [true, 'FAILED', false], '22.05': [true, 'FAILED', false] }],
  ['slurm_spank_task_exit', 'remote', { '24.11': [false, 'COMPLETED', false], '22.05': [false, 'COMPLETED', false] }],
  ['slurm_spank_exit', 'local', { '24.11': [false, 'COMPLETED', false], '22.05': [false, 'COMPLETED', false] }],
];

// salloc runs "srun true": [function, context, error, job state].
const sallocRows: [string, string, Record<Version, [boolean, string]>][] = [
  ['slurm_spank_init', 'allocator', { '24.11': [true, 'none'], '22.05': [true, 'none'] }],
  ['slurm_spank_init_post_opt', 'allocator', { '24.11': [true, 'none'], '22.05': [true, 'none'] }],
  ['slurm_spank_init', 'local', { '24.11': [true, 'FAILED'], '22.05': [true, 'FAILED'] }],
  ['slurm_spank_init_post_opt', 'local', { '24.11': [true, 'FAILED'], '22.05': [true, 'FAILED'] }],
  ['slurm_spank_local_user_init', 'local', { '24.11': [true, 'FAILED'], '22.05': [true, 'FAILED'] }],
  ['slurm_spank_user_init', 'remote', { '24.11': [true, 'FAILED'], '22.05': [false, 'COMPLETED'] }],
  ['slurm_spank_task_init_privileged', 'remote', { '24.11': [true, 'FAILED'], '22.05': [true, 'FAILED'] }],
  ['slurm_spank_task_post_fork', 'remote', { '24.11': [true, 'FAILED'], '22.05': [false, 'COMPLETED'] }],
  ['slurm_spank_task_init', 'remote', { '24.11': [true, 'FAILED'], '22.05': [true, 'FAILED'] }],
  ['slurm_spank_task_exit', 'remote', { '24.11': [false, 'COMPLETED'], '22.05': [false, 'COMPLETED'] }],
  ['slurm_spank_exit', 'local', { '24.11': [false, 'COMPLETED'], '22.05': [false, 'COMPLETED'] }],
  ['slurm_spank_exit', 'allocator', { '24.11': [false, 'COMPLETED'], '22.05': [false, 'COMPLETED'] }],
];

// sbatch -W runs a script with "srun echo IT_RAN": [function, context,
// sbatch exit status, job state, drains].
const sbatchRows: [string, string, Record<Version, [number, string, boolean]>][] = [
  ['slurm_spank_init', 'allocator', { '24.11': [1, 'none', false], '22.05': [1, 'none', false] }],
  ['slurm_spank_init_post_opt', 'allocator', { '24.11': [1, 'none', false], '22.05': [1, 'none', false] }],
  ['slurm_spank_init', 'local', { '24.11': [1, 'FAILED', false], '22.05': [1, 'FAILED', false] }],
  ['slurm_spank_init_post_opt', 'local', { '24.11': [1, 'FAILED', false], '22.05': [1, 'FAILED', false] }],
  ['slurm_spank_local_user_init', 'local', { '24.11': [1, 'FAILED', false], '22.05': [1, 'FAILED', false] }],
  ['slurm_spank_user_init', 'remote', { '24.11': [1, 'FAILED', true], '22.05': [0, 'COMPLETED', true] }],
  ['slurm_spank_task_init_privileged', 'remote', { '24.11': [1, 'FAILED', false], '22.05': [1, 'FAILED', false] }],
  ['slurm_spank_task_post_fork', 'remote', { '24.11': [1, 'FAILED', true], '22.05': [0, 'COMPLETED', true] }],
  ['slurm_spank_task_init', 'remote', { '24.11': [1, 'FAILED', false], '22.05': [1, 'FAILED', false] }],
  ['slurm_spank_task_exit', 'remote', { '24.11': [0, 'COMPLETED', false], '22.05': [0, 'COMPLETED', false] }],
  ['slurm_spank_exit', 'local', { '24.11': [0, 'COMPLETED', false], '22.05': [0, 'COMPLETED', false] }],
  ['slurm_spank_exit', 'allocator', { '24.11': [0, 'COMPLETED', false], '22.05': [0, 'COMPLETED', false] }],
];

for (const version of ['24.11', '22.05'] as const) {
  describe(`Slurm ${version}: srun`, () => {
    for (const [fn, ctx, expected] of srunRows) {
      const [error, job, drains] = expected[version];
      it(`${fn} (${ctx}): ${error ? 'error' : 'success'}, job ${job}${drains ? ', node drains' : ''}`, async () => {
        const { result, reported, found } = await failIn(version, 'srun', fn, ctx);
        expect(found, result.stderr).toBe(true);
        expect(reported, result.stderr).toBe(true);
        expect(outcome(result)).toEqual({ error, job, drains });
      });
    }
  });

  describe(`Slurm ${version}: salloc`, () => {
    for (const [fn, ctx, expected] of sallocRows) {
      const [error, job] = expected[version];
      it(`${fn} (${ctx}): ${error ? 'error' : 'success'}, job ${job}`, async () => {
        const { result, reported, found } = await failIn(version, 'salloc', fn, ctx);
        expect(found, result.stderr).toBe(true);
        expect(reported, result.stderr).toBe(true);
        expect(outcome(result)).toEqual({ error, job, drains: false });
      });
    }
  });

  describe(`Slurm ${version}: sbatch -W`, () => {
    for (const [fn, ctx, expected] of sbatchRows) {
      const [status, job, drains] = expected[version];
      it(`${fn} (${ctx}): exit ${status}, job ${job}${drains ? ', node drains' : ''}`, async () => {
        const { result, reported, found } = await failIn(version, 'sbatch', fn, ctx);
        const where = result.stderr + (result.output?.text ?? '');
        expect(found, where).toBe(true);
        expect(reported, where).toBe(true);
        expect(result.exitCode).toBe(status);
        expect({ job: result.job?.state ?? 'none', drains: (result.job?.drained.length ?? 0) > 0 }).toEqual({ job, drains });
      });
    }
  });
}
