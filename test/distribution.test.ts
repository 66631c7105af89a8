/**
 * -m/--distribution (lib/step/distribution.ts, native/core/rules/
 * task_distribution.cc): what is taken and what SLURM_DISTRIBUTION says
 * were asked of a real 22.05 (`srun -n 2 -m X`); the layouts over several
 * nodes follow Slurm's slurm_step_layout_create (the real cluster here has
 * one node), checked through the tasks' own variables.
 */
import { describe, expect, it } from 'vitest';
import { distributionEnv, stepTaskDist, taskDistribution, taskLayout } from '../lib/step/distribution.js';
import { Plugstack } from '../lib/plugstack.js';
import { tempDir, writeFile } from './helpers/plugins.js';

const text = (value: string, env: Record<string, string> = {}) => taskDistribution(value, env)?.text;

describe('-m/--distribution', () => {
  it('takes what the real srun took, with the SLURM_DISTRIBUTION it wrote', () => {
    expect(text('cyclic')).toBe('cyclic');
    expect(text('Cyclic')).toBe('cyclic');
    expect(text('block')).toBe('block');
    expect(text('block:*')).toBe('block:cyclic');
    expect(text('*:*:*')).toBe('block:cyclic:cyclic');
    expect(text('cyclic:fcyclic')).toBe('cyclic:fcyclic');
    expect(text('block:fcyclic:*')).toBe('block:fcyclic:fcyclic');
    expect(text('pack')).toBe('pack');
    expect(text('cyclic,nopack')).toBe('cyclic,nopack');
    expect(text('hostfile')).toBe('arbitrary');
    expect(distributionEnv(taskDistribution('plane=2', {}))).toEqual({ SLURM_DISTRIBUTION: 'plane', SLURM_DIST_PLANESIZE: '2' });
    // A plane without a size takes SLURM_DIST_PLANESIZE.
    expect(taskDistribution('plane', { SLURM_DIST_PLANESIZE: '3' })).toMatchObject({ text: 'plane', planeSize: 3 });
  });

  it('refuses what the real srun refused', () => {
    for (const value of ['bogus', 'plane', 'plane=0', 'plane=2x', 'block:block:block:block', ',pack', 'block,foo', 'fcyclic', 'cyclic,pack,nopack', ''])
      expect(taskDistribution(value, {}), value).toBeUndefined();
  });

  it('lays tasks out block, cyclic and by planes', () => {
    const names = ['n0', 'n1'];
    const ids = (value?: string) => taskLayout(5, names, value === undefined ? undefined : taskDistribution(value, {})).map((n) => n.gtids);
    expect(ids()).toEqual([[0, 1, 2], [3, 4]]);
    expect(ids('block:cyclic')).toEqual([[0, 1, 2], [3, 4]]);
    expect(ids('cyclic')).toEqual([[0, 2, 4], [1, 3]]);
    expect(ids('cyclic:block,pack')).toEqual([[0, 2, 4], [1, 3]]);
    expect(ids('plane=2')).toEqual([[0, 1, 4], [2, 3]]);
    // Each node gets one task first, then up to the plane's size in turn.
    expect(ids('plane=4')).toEqual([[0, 1, 2, 3], [4]]);
    expect(taskLayout(7, ['a', 'b', 'c'], taskDistribution('plane=2', {})).map((n) => n.gtids)).toEqual([[0, 1, 6], [2, 3], [4, 5]]);
  });

  it("srun's tasks get the layout, SLURM_DISTRIBUTION and SLURM_DIST_PLANESIZE; launchStep takes -m's form", async () => {
    const dir = tempDir('distribution-');
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [] });
    const env = { PATH: '/usr/bin:/bin' };
    const r = await stack.srun({ args: ['-N', '2', '-n', '5', '-m', 'plane=2', '-l', 'sh', '-c', 'echo $SLURMD_NODENAME $SLURM_LOCALID $SLURM_DISTRIBUTION $SLURM_DIST_PLANESIZE'], env, cwd: dir });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(['0: node0 0 plane 2', '1: node0 1 plane 2', '2: node1 0 plane 2', '3: node1 1 plane 2', '4: node0 2 plane 2']);
    const step = await stack.launchStep({ argv: ['true'], nodes: 2, ntasks: 3, distribution: 'cyclic', env });
    expect(step.tasks.map((t) => [t.task, t.node, t.localId])).toEqual([
      [0, 0, 0],
      [1, 1, 0],
      [2, 0, 1],
    ]);
    await expect(stack.launchStep({ argv: ['true'], distribution: 'bogus', env })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('a value Slurm refuses ends srun, sbatch and salloc with its lines and 255, from the command line or (srun) SLURM_DISTRIBUTION', async () => {
    const dir = tempDir('distribution-refused-');
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [] });
    const env = { PATH: '/usr/bin:/bin' };
    const plane = await stack.srun({ args: ['-m', 'plane', 'true'], env, cwd: dir });
    expect([plane.exitCode, plane.stderr]).toEqual([255, 'srun: error: Invalid plane size or size not specified\nsrun: error: Invalid --distribution specification\n']);
    const batch = await stack.sbatch({ args: ['-m', 'bogus', '--wrap', 'true'], env, cwd: dir });
    expect([batch.exitCode, batch.stderr, batch.job]).toEqual([255, 'sbatch: error: Invalid --distribution specification\n', undefined]);
    const alloc = await stack.salloc({ args: ['-m', 'block:x', 'true'], env, cwd: dir });
    expect([alloc.exitCode, alloc.stderr]).toEqual([255, 'salloc: error: Invalid --distribution specification\n']);
    const fromEnv = await stack.srun({ args: ['true'], env: { ...env, SLURM_DISTRIBUTION: 'cyclic,bogus' }, cwd: dir });
    expect([fromEnv.exitCode, fromEnv.stderr]).toEqual([255, 'srun: error: Invalid --distribution specification\n']);
  });

  it('-m arbitrary needs a node list (-w): without one the job description is refused, with the error status', async () => {
    const dir = tempDir('distribution-arbitrary-');
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [] });
    const env = { PATH: '/usr/bin:/bin', SLURM_EXIT_ERROR: '7' };
    const line = 'error: With Arbitrary distribution you need to specify a nodelist or hostfile with the -w option\n';
    for (const [command, args] of [
      ['srun', ['-n', '2', '-m', 'arbitrary', 'true']],
      ['salloc', ['-m', 'arbitrary', 'true']],
      ['sbatch', ['-m', 'hostfile', '--wrap', 'true']],
    ] as const) {
      const r = await stack[command]({ args: [...args], env, cwd: dir });
      expect([r.exitCode, r.stderr, r.job], command).toEqual([7, `${command}: ${line}`, undefined]);
    }
    // With a list naming fewer hosts than -n asks for tasks, the job is made and its step refused.
    const listed = await stack.srun({ args: ['-n', '2', '-m', 'arbitrary', '-w', 'node0', 'true'], env, cwd: dir });
    expect([listed.exitCode, listed.stderr.replace(/job \d+/, 'job J'), listed.job?.state]).toEqual([7, 'srun: error: Unable to create step for job J: Unspecified error\n', 'FAILED']);
  });

  it('-m arbitrary lays task i on the node its host names', () => {
    const arbitrary = taskDistribution('arbitrary', {});
    expect(taskLayout(3, ['node0', 'node1'], arbitrary, ['node1', 'node0', 'node1']).map((n) => [n.name, n.gtids])).toEqual([
      ['node0', [1]],
      ['node1', [0, 2]],
    ]);
    // Without the hosts it is block.
    expect(taskLayout(3, ['a', 'b'], arbitrary).map((n) => n.gtids)).toEqual([[0, 1], [2]]);
    // The mpi plugins' task_dist: SLURM_DIST_ARBITRARY once the hosts lay the tasks out.
    expect([stepTaskDist(arbitrary, ['n0']), stepTaskDist(arbitrary), stepTaskDist(taskDistribution('cyclic', {}))]).toEqual([3, 2, 1]);
  });

  it("-m arbitrary takes srun's task and node counts from -w (SLURM_NTASKS dropped); no list and no -n is 'invalid number of tasks'", async () => {
    const dir = tempDir('distribution-arbitrary-counts-');
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [] });
    const env = { PATH: '/usr/bin:/bin', SLURM_NTASKS: '5', SLURM_EXIT_ERROR: '7' };
    const r = await stack.srun({ args: ['-m', 'arbitrary', '-w', 'node[1,0],node1', '-l', 'sh', '-c', 'echo $SLURMD_NODENAME $SLURM_LOCALID $SLURM_NTASKS $SLURM_NNODES'], env, cwd: dir });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(['0: node1 0 3 2', '1: node0 0 3 2', '2: node1 1 3 2']);
    expect(r.client.builtins.filter((o) => o.source === 'verify').map((o) => [o.name, o.value])).toEqual([
      ['ntasks', '3'],
      ['nodes', '2'],
    ]);
    // -w's distinct hosts are the job's nodes, in the order Slurm sorts a host list: node2 before node10.
    const sorted = await stack.srun({ args: ['-m', 'arbitrary', '-w', 'node10,node2,node10', '-l', 'sh', '-c', 'echo $SLURMD_NODENAME $SLURM_NODEID'], env, cwd: dir });
    expect(sorted.stdout.split('\n').filter(Boolean).sort()).toEqual(['0: node10 1', '1: node2 0', '2: node10 1']);
    // A name that is no node of the cluster is slurmctld's to refuse.
    const unknown = await stack.srun({ args: ['-m', 'arbitrary', '-w', 'n10,n2,n10', 'true'], env, cwd: dir });
    expect([unknown.exitCode, unknown.stderr]).toEqual([7, 'srun: error: Unable to allocate resources: Invalid node name specified\n']);
    const none = await stack.srun({ args: ['-m', 'arbitrary', 'true'], env, cwd: dir });
    expect([none.exitCode, none.stderr, none.job]).toEqual([7, 'srun: error: invalid number of tasks (-n 0)\n', undefined]);
    // Inside a job srun holds -n against the list itself, before making a step.
    const inside = await stack.salloc({ args: ['-n', '2', 'sh', '-c', 'srun -m arbitrary -n 1 -w node0,node0 true; echo $?'], env: { PATH: env.PATH }, cwd: dir });
    expect([inside.stdout, inside.stderr.split('\n').filter((l) => l.startsWith('srun'))]).toEqual(['1\n', ['srun: error: You asked for 1 tasks but hostlist specified 2 nodes']]);
    for (const bad of [
      { ntasks: 2, distribution: 'arbitrary', taskHosts: ['node0'] },
      { ntasks: 2, distribution: 'block', taskHosts: ['node0', 'node0'] },
      { nodes: 2, ntasks: 2, distribution: 'arbitrary', taskHosts: ['node1', 'node1'] },
      { ntasks: 1, distribution: 'arbitrary', taskHosts: ['nodeX'] },
    ])
      await expect(stack.launchStep({ argv: ['true'], env, ...bad }), JSON.stringify(bad)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const laid = await stack.launchStep({ argv: ['true'], env, nodes: 2, ntasks: 3, distribution: 'arbitrary', taskHosts: ['node1', 'node0', 'node1'] });
    expect(laid.tasks.map((t) => [t.task, t.node, t.localId])).toEqual([
      [0, 1, 0],
      [1, 0, 0],
      [2, 1, 1],
    ]);
  });

  it('salloc and sbatch count -w for -m arbitrary as their release does: 22.05 each distinct host, 24.11 every host listed', async () => {
    const dir = tempDir('distribution-arbitrary-alloc-');
    const env = { PATH: '/usr/bin:/bin' };
    for (const [version, tasks] of [
      ['22.05', '1 1'],
      ['24.11', '2 2'],
    ] as const) {
      const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [], slurmVersion: version });
      const r = await stack.salloc({ args: ['-m', 'arbitrary', '-w', 'node0,node0', 'sh', '-c', 'echo $SLURM_NTASKS $SLURM_TASKS_PER_NODE'], env, cwd: dir });
      expect([r.exitCode, r.stdout], version).toEqual([0, `${tasks}\n`]);
    }
  });
});
