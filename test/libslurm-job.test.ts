/**
 * slurm_load_job in every process of a job: srun's local_user_init and the
 * task children's task_init load the record (24.11's slurmstepd aborts
 * when asked in user_init: test/job-record-scripts.test.ts)
 * of the job the command created, with the job's values, RUNNING; a batch
 * job and the srun inside it load the same record. The plugin is a real C
 * plugin compiled against plugstack's slurm/slurm.h (24.11 layout).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { recordOf, readProbe } from './helpers/libslurm.js';
import { compilePlugin, tempDir, writeFile } from './helpers/plugins.js';

const INFINITE = '4294967295';
const NO_VAL = '4294967294';
const BATCH_STEP = '4294967291';

async function probeStack(args: string) {
  const dir = tempDir();
  const log = path.join(dir, 'probe.log');
  const plugin = compilePlugin('libslurm_probe.c');
  const conf = writeFile(dir, 'plugstack.conf', `required ${plugin} log=${log} ${args}\n`);
  const stack = await Plugstack.load(conf, { pluginDir: [] });
  return { dir, log, stack };
}

describe('slurm_load_job', () => {
  it('gives srun, every stepd and every task the record of the job srun created, RUNNING', async () => {
    const { dir, log, stack } = await probeStack('getend');
    const r = await stack.srun({ args: ['-N', '2', '-n', '4', '-J', 'probe-job', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
    expect(r.exitCode).toBe(0);
    const lines = readProbe(log);
    // local_user_init once, task_init in each task.
    expect(lines.map((l) => `${l.context}:${l.hook}`).sort()).toEqual([
      'local:local_user_init',
      ...Array(4).fill('remote:task_init'),
    ].sort());
    for (const l of lines) {
      expect(l.values.rc).toBe('0');
      expect(l.values.count).toBe('1');
      expect(l.values.get_end_time).toBe('0');
      expect(l.values.end).toBe(l.values.end_time);
      expect(l.values.rem_positive).toBe('1');
    }
    const record = recordOf(lines[0]!);
    for (const l of lines) expect(recordOf(l)).toEqual(record);
    expect(record).toMatchObject({
      job_id: String(r.job!.jobId),
      array_job_id: '0',
      array_task_id: NO_VAL,
      user_id: String(process.getuid!()),
      group_id: String(process.getgid!()),
      name: 'probe-job',
      partition: 'debug',
      cluster: 'plugstack',
      nodes: 'node[0-1]',
      node_inx: '0,1,-1',
      hosts: 'node0,node1',
      num_nodes: '2',
      num_tasks: '4',
      num_cpus: '4',
      cpus_per_task: '1',
      job_state: '1', // JOB_RUNNING
      state_reason: '0',
      exit_code: '0',
      batch_flag: '0',
      batch_host: 'node0',
      work_dir: dir,
      command: 'true',
      std_out: '(null)',
      account: '(null)',
      time_limit: INFINITE,
      start_protocol_ver: String((42 << 8) | 0),
    });
    // No time limit: slurmctld ends the job a year after its start.
    expect(Number(record.end_time) - Number(record.start_time)).toBe(365 * 24 * 3600);
    expect(Math.abs(Number(record.submit_time) - Date.now() / 1000)).toBeLessThan(3600);
  });

  it('answers a job it does not know with ESLURM_INVALID_JOB_ID, leaving the response NULL', async () => {
    const { dir, log, stack } = await probeStack('job=999999999');
    const r = await stack.srun({ args: ['-n', '1', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
    expect(r.exitCode).toBe(0);
    const lines = readProbe(log);
    expect(lines.length).toBe(2);
    for (const l of lines) expect(l.values).toMatchObject({ rc: '2017', errno: '2017', msg: 'null' });
  });

  it('gives a batch job and the srun inside it the same record, with sbatch\'s paths and the time limit', async () => {
    const { dir, log, stack } = await probeStack('');
    const script = writeFile(dir, 'job.sh', '#!/bin/sh\nsrun -n 1 true\n');
    fs.chmodSync(script, 0o755);
    const r = await stack.sbatch({ args: ['-t', '5', '-o', 'out-%j.txt', 'job.sh'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
    expect(r.exitCode).toBe(0);
    expect(r.job?.state).toBe('COMPLETED');
    const lines = readProbe(log);
    // The batch step's task, then the inner srun's local side and its step 0.
    expect(lines.map((l) => `${l.context}:${l.hook}:${l.values.step}`)).toEqual([
      `remote:task_init:${BATCH_STEP}`,
      'local:local_user_init:0',
      'remote:task_init:0',
    ]);
    const record = recordOf(lines[0]!);
    for (const l of lines) expect(recordOf(l)).toEqual(record);
    expect(record).toMatchObject({
      job_id: String(r.job!.jobId),
      name: 'job.sh',
      command: script,
      batch_flag: '1',
      batch_host: 'node0',
      work_dir: dir,
      std_in: '/dev/null',
      std_out: path.join(dir, 'out-%j.txt'),
      std_err: '(null)',
      time_limit: '5',
      job_state: '1',
      num_nodes: '1',
      num_tasks: '1',
    });
    expect(Number(record.end_time) - Number(record.start_time)).toBe(5 * 60);
  });

  it("names salloc's job 'interactive' whatever its command, -J's name with -J (a real 22.05's scontrol: JobName=interactive, Command=(null))", async () => {
    const { dir, log, stack } = await probeStack('');
    const r = await stack.salloc({ args: ['-n', '1', 'srun', '-n', '1', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
    expect(r.exitCode).toBe(0);
    const named = await stack.salloc({ args: ['-n', '1', '-J', 'mine', 'srun', '-n', '1', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
    expect(named.exitCode).toBe(0);
    const records = readProbe(log).map((l) => recordOf(l));
    // The inner srun's local_user_init and its task's task_init, per salloc.
    expect(records.map((x) => [x.job_id, x.name, x.command])).toEqual([
      [String(r.job!.jobId), 'interactive', '(null)'],
      [String(r.job!.jobId), 'interactive', '(null)'],
      [String(named.job!.jobId), 'mine', '(null)'],
      [String(named.job!.jobId), 'mine', '(null)'],
    ]);
  });

  it('gives a step launched through the API a record of its own step', async () => {
    const { dir, log, stack } = await probeStack('');
    const step = await stack.launchStep({ argv: ['true'], nodes: 2, ntasks: 2, jobId: 77, cwd: dir, env: { PATH: '/usr/bin:/bin' } });
    expect(step.ok).toBe(true);
    const lines = readProbe(log);
    expect(lines.length).toBe(2);
    for (const l of lines) expect(recordOf(l)).toMatchObject({ job_id: '77', nodes: 'node[0-1]', num_tasks: '2', name: 'true', work_dir: dir, job_state: '1' });
  });
});
