/**
 * srun's task count when -n, -N and --ntasks-per-node meet (_opt_verify),
 * from the command line and from the environment (SLURM_NTASKS, and
 * inside an allocation SLURM_JOB_NUM_NODES), and slurmctld's refusal of a
 * job whose tasks do not fit --ntasks-per-node on its nodes. Each expected
 * answer is what the real 22.05 and 24.11 printed and ran on a one-node
 * cluster of 2 CPUs (compared by hand; test/conformance/scenarios.ts runs
 * a few against the real ones).
 */
import { describe, expect, it } from 'vitest';
import type { CommandResult } from '../lib/commands/types.js';
import { Plugstack } from '../lib/plugstack.js';
import { tempDir, writeFile } from './helpers/plugins.js';

type Release = '22.05' | '24.11';
const SHOW = 'echo task $SLURM_PROCID ntasks=$SLURM_NTASKS per_node=${SLURM_NTASKS_PER_NODE-unset}';
const WARN_22 = (perNode: number, tasks: number) =>
  `srun: Warning: can't honor --ntasks-per-node set to ${perNode} which doesn't match the requested tasks ${tasks} with the number of requested nodes 1. Ignoring --ntasks-per-node.`;
const WARN_24 = (perNode: number, tasks: number) =>
  `srun: warning: can't honor --ntasks-per-node set to ${perNode} which doesn't match the requested tasks ${tasks} with the maximum number of requested nodes 1. Ignoring --ntasks-per-node.`;
const tasks = (n: number, ntasks: number, perNode: number | 'unset') =>
  Array.from({ length: n }, (_, i) => `task ${i} ntasks=${ntasks} per_node=${perNode}`);

interface Case {
  what: string;
  command: 'srun' | 'salloc';
  args: string[];
  env?: Record<string, string>;
  /** Per release: the lines of stderr (salloc's own about the allocation left out), the task lines, the status. */
  expect: Record<Release, { stderr: string[]; stdout: string[]; status: number }>;
}

const REFUSED_SRUN = 'srun: error: Unable to allocate resources: Requested node configuration is not available';
const REFUSED_SALLOC = 'salloc: error: Job submit/allocate failed: Requested node configuration is not available';

const CASES: Case[] = [
  {
    what: 'srun -n 2 -N 1 --ntasks-per-node=1',
    command: 'srun',
    args: ['-n', '2', '-N', '1', '--ntasks-per-node=1'],
    expect: {
      '22.05': { stderr: [WARN_22(1, 2)], stdout: tasks(2, 2, 'unset'), status: 0 },
      // Not inside a job: no warning, and slurmctld cannot lay the job out.
      '24.11': { stderr: [REFUSED_SRUN], stdout: [], status: 1 },
    },
  },
  {
    what: 'srun -n 1 -N 1 --ntasks-per-node=2',
    command: 'srun',
    args: ['-n', '1', '-N', '1', '--ntasks-per-node=2'],
    expect: {
      '22.05': { stderr: [], stdout: tasks(1, 1, 'unset'), status: 0 },
      '24.11': { stderr: [], stdout: tasks(1, 1, 2), status: 0 },
    },
  },
  {
    what: 'srun -N 1 --ntasks-per-node=2',
    command: 'srun',
    args: ['-N', '1', '--ntasks-per-node=2'],
    expect: {
      '22.05': { stderr: [], stdout: tasks(2, 2, 2), status: 0 },
      '24.11': { stderr: [], stdout: tasks(2, 2, 2), status: 0 },
    },
  },
  {
    what: 'SLURM_NTASKS=2 srun -N 1 --ntasks-per-node=1',
    command: 'srun',
    args: ['-N', '1', '--ntasks-per-node=1'],
    env: { SLURM_NTASKS: '2' },
    expect: {
      '22.05': { stderr: [WARN_22(1, 2)], stdout: tasks(2, 2, 'unset'), status: 0 },
      // The environment's task count gives way: --ntasks-per-node times the node.
      '24.11': { stderr: [], stdout: tasks(1, 1, 1), status: 0 },
    },
  },
  {
    what: 'SLURM_NTASKS=1 srun -N 1 --ntasks-per-node=2',
    command: 'srun',
    args: ['-N', '1', '--ntasks-per-node=2'],
    env: { SLURM_NTASKS: '1' },
    expect: {
      '22.05': { stderr: [], stdout: tasks(1, 1, 'unset'), status: 0 },
      '24.11': { stderr: [], stdout: tasks(2, 2, 2), status: 0 },
    },
  },
  {
    what: 'salloc -n 2, srun -n 2 --ntasks-per-node=1',
    command: 'salloc',
    args: ['-n', '2', 'srun', '-n', '2', '--ntasks-per-node=1'],
    expect: {
      '22.05': { stderr: [WARN_22(1, 2)], stdout: tasks(2, 2, 'unset'), status: 0 },
      '24.11': { stderr: [WARN_24(1, 2)], stdout: tasks(2, 2, 'unset'), status: 0 },
    },
  },
  {
    what: 'salloc -n 2, srun -N 1 --ntasks-per-node=1',
    command: 'salloc',
    args: ['-n', '2', 'srun', '-N', '1', '--ntasks-per-node=1'],
    expect: {
      '22.05': { stderr: [WARN_22(1, 2)], stdout: tasks(2, 2, 'unset'), status: 0 },
      '24.11': { stderr: [], stdout: tasks(1, 1, 1), status: 0 },
    },
  },
  {
    what: 'salloc -n 2, srun -n 1 --ntasks-per-node=2',
    command: 'salloc',
    args: ['-n', '2', 'srun', '-n', '1', '--ntasks-per-node=2'],
    expect: {
      '22.05': { stderr: [], stdout: tasks(1, 1, 'unset'), status: 0 },
      '24.11': { stderr: [], stdout: tasks(1, 1, 2), status: 0 },
    },
  },
  {
    what: 'salloc -n 2, srun --ntasks-per-node=2',
    command: 'salloc',
    args: ['-n', '2', 'srun', '--ntasks-per-node=2'],
    expect: {
      '22.05': { stderr: [], stdout: tasks(2, 2, 2), status: 0 },
      '24.11': { stderr: [], stdout: tasks(2, 2, 2), status: 0 },
    },
  },
];

function site(): { conf: string; slurmConf: string; dir: string } {
  const dir = tempDir('plugstack-task-count-');
  const conf = writeFile(dir, 'plugstack.conf', '');
  const slurmConf = writeFile(dir, 'slurm.conf', 'ClusterName=c\nNodeName=node0 CPUs=2\nPartitionName=debug Nodes=node0 Default=YES\n');
  return { conf, slurmConf, dir };
}

const ALLOCATION = /^salloc: (Granted job allocation|Relinquishing job allocation|Nodes \S+ are ready for job)/;
const lines = (text: string) => text.split('\n').filter((l) => l !== '' && !ALLOCATION.test(l));

async function run(release: Release, c: Case): Promise<CommandResult> {
  const s = site();
  const stack = await Plugstack.load(s.conf, { slurmConf: s.slurmConf, slurmVersion: release, pluginDir: [] });
  const args = [...c.args, 'sh', '-c', SHOW];
  return stack[c.command]({ args, cwd: s.dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: s.dir, ...c.env } });
}

describe.each(['22.05', '24.11'] as Release[])('%s: srun -n, -N and --ntasks-per-node', (release) => {
  it.each(CASES.map((c) => [c.what, c] as const))('%s', async (_what, c) => {
    const r = await run(release, c);
    const want = c.expect[release];
    expect(lines(r.stderr), r.stderr).toEqual(want.stderr);
    expect(lines(r.stdout).sort()).toEqual(want.stdout);
    expect(r.exitCode).toBe(want.status);
  });

  it('salloc -n 2 -N 1 --ntasks-per-node=1: slurmctld takes the job (it has an id) and fails it', async () => {
    const s = site();
    const stack = await Plugstack.load(s.conf, { slurmConf: s.slurmConf, slurmVersion: release, pluginDir: [] });
    const r = await stack.salloc({ args: ['-n', '2', '-N', '1', '--ntasks-per-node=1', 'true'], cwd: s.dir, env: { PATH: '/usr/bin:/bin', HOME: s.dir } });
    expect(r.exitCode).toBe(1);
    const got = lines(r.stderr);
    expect(got[0]).toBe(REFUSED_SALLOC);
    expect(got[1]).toMatch(/^salloc: Job allocation \d+ has been revoked\.$/);
    expect(got).toHaveLength(2);
  });
});
