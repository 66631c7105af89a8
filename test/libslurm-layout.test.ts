/**
 * The job record in the layout of the emulated release. The probe plugin
 * reads the record slurm_load_job returns through the slurm_job_info_t of
 * the header it was compiled against and prints every field with its
 * offset: compiled against Debian's Slurm 22.05 headers and run under 22.05
 * emulation it must read the job's values at 22.05's offsets, and compiled
 * against plugstack's header (24.11) under 24.11 at 24.11's. With
 * PLUGSTACK_SLURM_2411_INCLUDE naming a directory that holds Slurm 24.11's
 * own slurm/*.h, the probe built against those must agree with ours.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { recordOf, readProbe, type ProbeLine } from './helpers/libslurm.js';
import { compilePlugin, includeDir, tempDir, writeFile } from './helpers/plugins.js';

const DEBIAN = '/usr/include/slurm/slurm.h';
const requireHeaders = process.env.PLUGSTACK_REQUIRE_SLURM_HEADERS === '1';
const haveDebian = fs.existsSync(DEBIAN);
const slurm2411 = process.env.PLUGSTACK_SLURM_2411_INCLUDE;

async function probeRun(include: string, slurmVersion: '22.05' | '24.11'): Promise<{ lines: ProbeLine[]; jobId: number; dir: string }> {
  const dir = tempDir();
  const log = path.join(dir, 'probe.log');
  const plugin = compilePlugin('libslurm_probe.c', { include });
  // 22.05's slurmstepd answers in user_init too; 24.11's aborts there.
  const conf = writeFile(dir, 'plugstack.conf', `required ${plugin} log=${log}${slurmVersion === '22.05' ? ' userinit' : ''}\n`);
  const stack = await Plugstack.load(conf, { pluginDir: [], slurmVersion });
  const r = await stack.srun({ args: ['-N', '2', '-n', '3', '-c', '2', '-t', '1:30', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
  expect(r.exitCode).toBe(0);
  return { lines: readProbe(log), jobId: r.job!.jobId, dir };
}

/** What the job srun -N 2 -n 3 -c 2 -t 1:30 true created looks like in every release. */
function expectJob(record: Record<string, string>, jobId: number, dir: string): void {
  expect(record).toMatchObject({
    job_id: String(jobId),
    user_id: String(process.getuid!()),
    group_id: String(process.getgid!()),
    name: 'true',
    nodes: 'node[0-1]',
    node_inx: '0,1,-1',
    hosts: 'node0,node1',
    num_nodes: '2',
    num_tasks: '3',
    num_cpus: '6',
    cpus_per_task: '2',
    time_limit: '2', // 90 s, in whole minutes rounded up
    job_state: '1',
    state_reason: '0',
    batch_flag: '0',
    batch_host: 'node0',
    work_dir: dir,
    partition: 'debug',
    cluster: 'plugstack',
    array_task_id: '4294967294',
    nice: String(0x80000000),
    requeue: '1',
  });
  expect(Number(record.end_time) - Number(record.start_time)).toBe(120);
}

describe('the job record layout', () => {
  it('is 24.11\'s with plugstack\'s header under 24.11 emulation', async () => {
    const { lines, jobId, dir } = await probeRun(includeDir, '24.11');
    expect(lines.length).toBe(4);
    for (const l of lines) {
      expect(l.values.sizeof).toBe('960');
      expectJob(recordOf(l), jobId, dir);
      expect(l.values.start_protocol_ver).toBe(String(42 << 8));
    }
    // A few offsets of 24.11's layout, as Slurm's header has them.
    expect(lines[0]!.offsets).toMatchObject({ job_id: '412', nodes: '512', state_reason: '784', work_dir: '952', user_name: '928' });
  });

  it.skipIf(!haveDebian && !requireHeaders)(`is 22.05's with ${DEBIAN} under 22.05 emulation`, async () => {
    expect(haveDebian, `${DEBIAN} is required (install libslurm-dev)`).toBe(true);
    const { lines, jobId, dir } = await probeRun('/usr/include', '22.05');
    expect(lines.length).toBe(6);
    for (const l of lines) {
      expect(l.values.sizeof).toBe('904');
      expectJob(recordOf(l), jobId, dir);
      expect(l.values.start_protocol_ver).toBe(String(38 << 8));
    }
    // 22.05's offsets differ from 24.11's from container_id on.
    expect(lines[0]!.offsets).toMatchObject({ job_id: '388', nodes: '480', state_reason: '728', work_dir: '896', user_name: '872' });
  });

  it.skipIf(!slurm2411)('agrees with Slurm 24.11\'s own header (PLUGSTACK_SLURM_2411_INCLUDE)', async () => {
    const theirs = await probeRun(slurm2411!, '24.11');
    const ours = await probeRun(includeDir, '24.11');
    expect(theirs.lines[0]!.offsets).toEqual(ours.lines[0]!.offsets);
    expect(theirs.lines[0]!.values.sizeof).toBe(ours.lines[0]!.values.sizeof);
    expectJob(recordOf(theirs.lines[0]!), theirs.jobId, theirs.dir);
  });
});
