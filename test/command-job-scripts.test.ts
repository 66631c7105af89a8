/**
 * Job prologs and epilogs around srun, sbatch and salloc jobs: when they
 * run, on which nodes, and what a failure does (the node drained, the
 * launch failed, the command's exit status).
 */
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { recordCommand } from './helpers/command.js';
import { compilePlugin, readLog, tempDir, writeFile } from './helpers/plugins.js';

const names = (lines: { callback: string }[]) => lines.map((l) => l.callback);

describe('job prolog and epilog in commands', () => {
  it('srun: the prolog on each node before the step, the epilog on each after srun’s exit', async () => {
    const { result, lines } = await recordCommand('srun', [], ['-N', '2', 'true']);
    expect(result.exitCode).toBe(0);
    expect(result.jobScripts.map((r) => `${r.mode} ${r.node} ${r.ok}`).sort()).toEqual([
      'epilog node0 true', 'epilog node1 true', 'prolog node0 true', 'prolog node1 true',
    ]);
    const seq = names(lines);
    expect(seq.lastIndexOf('job_prolog')).toBeLessThan(seq.indexOf('user_init'));
    expect(seq.lastIndexOf('exit')).toBeLessThan(seq.indexOf('job_epilog'));
    expect(result.job).toMatchObject({ state: 'COMPLETED', drained: [] });
  });

  it('srun: a failing prolog fails the launch with srun’s errors, drains the node, runs no step', async () => {
    const { result, lines } = await recordCommand('srun', ['fail=job_prolog'], ['true']);
    const job = result.job!;
    // As a real 24.11 srun printed it; its error (ESLURMD_PROLOG_FAILED,
    // 4022) read as a wait status by fini_srun makes the exit status 128 + 54
    // (22.05's EAGAIN: 139, test/release-differences.test.ts).
    expect(result.stderr).toBe(
      `srun: error: Task launch for StepId=${job.jobId}.0 failed on node node0: Job prolog failed\n` +
        'srun: error: Application launch failed: Job prolog failed\n' +
        'srun: Job step aborted\n',
    );
    expect(result.exitCode).toBe(182);
    expect(result.steps).toEqual([]);
    expect(names(lines)).toEqual(['init', 'init_post_opt', 'local_user_init', 'job_prolog', 'exit', 'job_epilog']);
    expect(job).toMatchObject({ state: 'FAILED', reason: 'Prolog failure', drained: [{ node: 'node0', reason: 'Prolog error' }] });
  });

  it('srun: a failing epilog drains the node; the job keeps its state', async () => {
    const { result } = await recordCommand('srun', ['fail=job_epilog'], ['-N', '2', 'true']);
    expect(result.exitCode).toBe(0);
    expect(result.job).toMatchObject({
      state: 'COMPLETED',
      drained: [{ node: 'node0', reason: 'Epilog error' }, { node: 'node1', reason: 'Epilog error' }],
    });
  });

  it('no plugin with job_prolog/job_epilog: slurmd runs no SPANK helper', async () => {
    const probe = compilePlugin('options_probe.c', { defines: { ONLY_MAIN: true } });
    const stack = await Plugstack.load(writeFile(tempDir(), 'plugstack.conf', `required ${probe}\n`), { pluginDir: [] });
    const result = await stack.srun({ args: ['true'], env: { PATH: '/usr/bin:/bin' } });
    expect(result.exitCode).toBe(0);
    expect(result.jobScripts).toEqual([]);
  });

  it('sbatch: one prolog on the batch host for the batch step and the srun inside; a failing one holds the job unrun', async () => {
    const ok = await recordCommand('sbatch', [], ['-N', '2', '--wrap', 'srun -N 2 true']);
    expect(ok.result.job).toMatchObject({ state: 'COMPLETED', drained: [] });
    expect(ok.result.jobScripts.map((r) => `${r.mode} ${r.node}`)).toEqual(['prolog node0', 'prolog node1', 'epilog node0', 'epilog node1']);
    const failing = await recordCommand('sbatch', ['fail=job_prolog'], ['--wrap', 'true']);
    expect(failing.result.exitCode).toBe(0);
    expect(failing.result.steps).toEqual([]);
    expect(failing.result.output).toBeUndefined();
    expect(failing.result.job).toMatchObject({ state: 'FAILED', reason: 'launch failed requeued held', drained: [{ node: 'node0', reason: 'Prolog error' }] });
  });

  it('salloc: the srun inside runs the prologs; the epilogs come after salloc’s exit callbacks', async () => {
    const { result, lines } = await recordCommand('salloc', ['fail=job_prolog'], ['srun', 'true']);
    const seq = lines.map((l) => `${l.callback}:${l.fields.ctx}`);
    expect(seq.indexOf('exit:3')).toBeLessThan(seq.indexOf('job_epilog:5'));
    expect(result.exitCode).toBe(182);
    expect(result.job).toMatchObject({ state: 'FAILED', reason: 'Prolog failure', drained: [{ node: 'node0', reason: 'Prolog error' }] });
  });

  it("the epilog's SLURM_JOB_DERIVED_EC: the highest exit code of the job's srun steps, each its node's last task's", async () => {
    // srun's own job: its step; tasks 0 and 1 exit 2 and 3, so the node's slurmstepd reports the last one's.
    const own = await recordCommand('srun', [], ['-n', '2', 'sh', '-c', 'exit $((SLURM_PROCID + 2))']);
    expect(own.result.exitCode).toBe(3);
    expect(own.result.jobScripts.find((r) => r.mode === 'epilog')!.environment).toMatchObject({ SLURM_JOB_EXIT_CODE: '768', SLURM_JOB_DERIVED_EC: '768' });
    // A batch job: the sruns inside count, its batch script (which exits 0) does not.
    const batch = await recordCommand('sbatch', [], ['-W', '--wrap', 'srun -n 2 sh -c "exit $SLURM_PROCID"; srun -n 1 sh -c "exit 5"; srun -n 1 true']);
    expect(batch.result.exitCode).toBe(0);
    expect(batch.result.jobScripts.find((r) => r.mode === 'epilog')!.environment).toMatchObject({ SLURM_JOB_EXIT_CODE: '0', SLURM_JOB_DERIVED_EC: String(5 << 8) });
    // salloc's job: its sruns.
    const alloc = await recordCommand('salloc', [], ['srun', 'sh', '-c', 'exit 4']);
    expect(alloc.result.jobScripts.find((r) => r.mode === 'epilog')!.environment.SLURM_JOB_DERIVED_EC).toBe(String(4 << 8));
  });

  it('the helpers’ environment carries the job’s credential: its task count, times, files, and slurmd’s SLURM_CONF', async () => {
    const env = { SLURM_CONF: '/etc/slurm-elsewhere/slurm.conf' };
    // sbatch's task count from --ntasks-per-node, its files, one end time for both epilogs.
    const batch = await recordCommand('sbatch', [], ['-N', '2', '--ntasks-per-node=2', '-o', 'out.txt', '-t', '5', '--wrap', 'srun -N 2 true'], { env, slurmVersion: '24.11' });
    const [prolog, ...epilogs] = batch.result.jobScripts.filter((r) => r.node === 'node0' || r.mode === 'epilog');
    expect(prolog!.environment).toMatchObject({
      SLURM_CONF: env.SLURM_CONF,
      SLURM_JOB_NTASKS: '4',
      SLURM_JOB_CPUS_PER_NODE: '2(x2)',
      SLURM_JOB_STDIN: '/dev/null',
      SLURM_JOB_STDOUT: `${batch.dir}/out.txt`,
      SLURM_JOB_RESTART_COUNT: '0',
    });
    expect(prolog!.environment.SLURM_JOB_STDERR).toBeUndefined();
    const start = Number(prolog!.environment.SLURM_JOB_START_TIME);
    expect(Number(prolog!.environment.SLURM_JOB_END_TIME)).toBe(start + 5 * 60);
    expect(epilogs.map((e) => e.environment.SLURM_JOB_END_TIME)).toEqual([epilogs[0]!.environment.SLURM_JOB_END_TIME, epilogs[0]!.environment.SLURM_JOB_END_TIME]);
    expect(Number(epilogs[0]!.environment.SLURM_JOB_END_TIME)).toBeGreaterThanOrEqual(start);
    // An srun inside an allocation: the job's task count, not the step's.
    const alloc = await recordCommand('salloc', [], ['-n', '3', 'srun', '-n', '1', 'true'], { slurmVersion: '22.05' });
    expect(alloc.result.jobScripts.map((r) => `${r.mode} ${r.environment.SLURM_JOB_NTASKS}`)).toEqual(['prolog 3', 'epilog 3']);
    // --ntasks-per-node without -n: that many a node (the real 22.05 and 24.11 both).
    const perNode = await recordCommand('srun', [], ['-N', '2', '--ntasks-per-node=2', 'true'], { slurmVersion: '22.05' });
    expect(perNode.result.jobScripts.map((r) => `${r.mode} ${r.environment.SLURM_JOB_NTASKS}`)).toEqual(['prolog 4', 'prolog 4', 'epilog 4', 'epilog 4']);
    // No slurm.conf anywhere: none named.
    expect(alloc.result.jobScripts[0]!.environment.SLURM_CONF).toBeUndefined();
  });

  it('keeps plugin state apart: the prolog, the step daemon and the next prolog each start from scratch', async () => {
    const dir = tempDir();
    const log = `${dir}/probe.log`;
    const probe = compilePlugin('job_script_probe.c');
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', `required ${probe} log=${log}\n`), { pluginDir: [] });
    await stack.srun({ args: ['true'], env: { PATH: '/usr/bin:/bin' }, cwd: dir });
    await stack.srun({ args: ['true'], env: { PATH: '/usr/bin:/bin' }, cwd: dir });
    const seen = readLog(log).map((l) => `${l.split(' ')[0]}:${/ seq=(\d+)/.exec(l)![1]}`);
    // init in srun (local), job_prolog, init + user_init in the stepd, job_epilog; twice.
    const once = ['init:1', 'job_prolog:1', 'init:1', 'user_init:2', 'job_epilog:1'];
    expect(seen).toEqual([...once, ...once]);
  });
});
