/**
 * The cluster a slurm.conf describes answers node counts and partitions as
 * slurmctld does. Found by a differential run: srun -N 2 on a partition of
 * one node says "Node count specification invalid" on the real 22.05 and
 * 24.11 (ESLURM_INVALID_NODE_COUNT), exit 1; -p naming no partition has
 * slurmctld's message first ("invalid partition specified: nope"); more
 * CPUs than the partition has (srun -n 3, -c 3, -n 2 -c 2,
 * --ntasks-per-node=3, sbatch -n 3, -N 3 on CPUs=2) "More processors
 * requested than permitted", before the node count (-N 2 -O, salloc -N 2).
 */
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { tempDir, writeFile } from './helpers/plugins.js';

const SLURM_CONF = 'ClusterName=shape\nNodeName=node0 CPUs=2 State=UNKNOWN\nPartitionName=debug Nodes=node0 Default=YES State=UP\n';

describe('a slurm.conf cluster', () => {
  for (const slurmVersion of ['24.11', '22.05']) {
    it(`refuses more nodes than the partition has, and an unknown partition (${slurmVersion})`, async () => {
      const dir = tempDir();
      const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [], slurmVersion, slurmConf: writeFile(dir, 'slurm.conf', SLURM_CONF) });
      const tooMany = await stack.srun({ args: ['-N', '2', '-n', '2', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
      expect(tooMany.exitCode).toBe(1);
      expect(tooMany.stderr).toBe('srun: error: Unable to allocate resources: Node count specification invalid\n');
      const partition = await stack.srun({ args: ['-p', 'nope', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
      expect(partition.exitCode).toBe(1);
      expect(partition.stderr).toBe('srun: error: invalid partition specified: nope\nsrun: error: Unable to allocate resources: Invalid partition name specified\n');
      const batch = await stack.sbatch({ args: ['-p', 'nope', '--wrap', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
      expect(batch.exitCode).toBe(1);
      expect(batch.stderr).toBe('sbatch: error: invalid partition specified: nope\nsbatch: error: Batch job submission failed: Invalid partition name specified\n');
      const alloc = await stack.salloc({ args: ['-p', 'nope', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
      expect(alloc.exitCode).toBe(1);
      expect(alloc.stderr).toBe('salloc: error: invalid partition specified: nope\nsalloc: error: Job submit/allocate failed: Invalid partition name specified\n');
      const one = await stack.srun({ args: ['-N', '1', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
      expect(one.exitCode).toBe(0);
      // More CPUs than the partition's nodes have (CPUs=2), checked before the node count.
      for (const args of [['-n', '3'], ['-c', '3'], ['-n', '2', '-c', '2'], ['--ntasks-per-node=3'], ['-N', '3']]) {
        const r = await stack.srun({ args: [...args, 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
        expect([args, r.exitCode, r.stderr]).toEqual([args, 1, 'srun: error: Unable to allocate resources: More processors requested than permitted\n']);
      }
      const batch3 = await stack.sbatch({ args: ['-n', '3', '--wrap', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
      expect(batch3.stderr).toBe('sbatch: error: Batch job submission failed: More processors requested than permitted\n');
      // -O asks for one CPU a node: 3 tasks on 2 CPUs run, and -N 2 is the node count's refusal.
      expect((await stack.srun({ args: ['-n', '3', '-O', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } })).exitCode).toBe(0);
      const overNodes = await stack.srun({ args: ['-N', '2', '-O', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
      expect(overNodes.stderr).toBe('srun: error: Unable to allocate resources: Node count specification invalid\n');
      const allocNodes = await stack.salloc({ args: ['-N', '2', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
      expect(allocNodes.stderr).toBe('salloc: error: Job submit/allocate failed: Node count specification invalid\n');
    });
  }
});

/**
 * Node lists as Slurm's hostlist reads them (the core's, through the
 * addon), and what slurmctld refuses at its start. The real slurmctld's
 * lines for the refusals are compared in test/conformance/slurm-conf-nodes.test.ts.
 */
describe('a slurm.conf\'s node lists', () => {
  const env = { PATH: '/usr/bin:/bin' };

  it('names and compacts nodes as Slurm does: two bracket groups, unpadded widths, node order', async () => {
    const dir = tempDir();
    const conf = [
      'ClusterName=lists',
      'NodeName=DEFAULT CPUs=2',
      'NodeName=rack[1-2]n[1-6]',
      'NodeName=node[1-11] CPUs=1',
      'PartitionName=racks Nodes=rack2n[1-6],rack1n[1-6] Default=YES',
      'PartitionName=big Nodes=node[11,1-10],node3',
      '',
    ].join('\n');
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [], slurmConf: writeFile(dir, 'slurm.conf', conf) });
    expect(stack.slurmConf!.controllerOk).toBe(true);
    expect(stack.slurmConf!.nodes.slice(0, 3).map((n) => [n.name, n.cpus])).toEqual([['rack1n1', 2], ['rack1n2', 2], ['rack1n3', 2]]);
    // A partition's nodes come in the node table's order, each once.
    expect(stack.slurmConf!.partitions.find((p) => p.name === 'big')!.nodes).toEqual(Array.from({ length: 11 }, (_, i) => `node${i + 1}`));
    const racks = await stack.srun({ args: ['-N', '8', 'sh', '-c', 'test $SLURM_NODEID = 0 && echo $SLURM_JOB_NODELIST'], cwd: dir, env });
    expect(racks.stdout).toBe('rack1n[1-6],rack2n[1-2]\n');
    const big = await stack.srun({ args: ['-p', 'big', '-N', '11', 'sh', '-c', 'test $SLURM_NODEID = 10 && echo $SLURM_NODELIST $SLURMD_NODENAME'], cwd: dir, env });
    expect(big.stdout).toBe('node[1-11] node11\n');
  });

  for (const slurmVersion of ['24.11', '22.05']) {
    it(`refuses what slurmctld refuses at its start: commands cannot reach it, and say why (${slurmVersion})`, async () => {
      const dir = tempDir();
      const conf = ['ClusterName=bad', 'NodeName=n[1-2]-ib', 'NodeName=m[3-1]', 'PartitionName=p Nodes=n[1-2]-ib,zz Default=YES', ''].join('\n');
      const file = writeFile(dir, 'slurm.conf', conf);
      const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [], slurmVersion, slurmConf: file });
      const sc = stack.slurmConf!;
      expect(sc.ok).toBe(true);
      expect(sc.controllerOk).toBe(false);
      const fatals = sc.controllerProblems.map((p) => [p.code, p.line, p.slurmLog.at(-1)!.text]);
      // 22.05's hostlist refuses a suffix after a bracket; 24.11's takes it.
      expect(fatals).toEqual([
        ...(slurmVersion === '22.05' ? [['SLURM_CONF_BAD_NODE_LIST', 2, 'Unable to create NodeAddr list from n[1-2]-ib']] : []),
        ['SLURM_CONF_BAD_NODE_LIST', 3, 'Unable to create NodeAddr list from m[3-1]'],
        slurmVersion === '22.05'
          ? ['SLURM_CONF_BAD_NODE_LIST', 4, 'Invalid node names in partition p']
          : ['SLURM_CONF_UNKNOWN_NODE', 4, 'Invalid node names in partition p'],
      ]);
      const r = await stack.srun({ args: ['-n', '1', 'true'], cwd: dir, env });
      expect(r.exitCode).toBe(1);
      const lines = r.stderr.split('\n').filter(Boolean);
      expect(lines[0]).toBe('srun: error: Unable to allocate resources: Unable to contact slurm controller (connect failure)');
      expect(lines.slice(1).every((l) => l.startsWith('plugstack: error: SLURM_CONF_') && l.includes(`(slurmctld, ${file}:`))).toBe(true);
      expect(lines).toHaveLength(1 + fatals.length);
      const batch = await stack.sbatch({ args: ['--wrap', 'true'], cwd: dir, env });
      expect([batch.exitCode, batch.stderr.split('\n')[0]]).toEqual([1, 'sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)']);
      const report = await stack.check();
      expect(report.ok).toBe(false);
      expect(report.slurmConf!.controllerOk).toBe(false);
    });
  }

  it('stops every command on a NodeName line the parser refuses, as srun does', async () => {
    const dir = tempDir();
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), {
      pluginDir: [],
      slurmConf: writeFile(dir, 'slurm.conf', 'ClusterName=x\nNodeName=DEFAULT BcastAddr=10.0.0.1\nNodeName=n1\n'),
    });
    expect(stack.slurmConf!.ok).toBe(false);
    const r = await stack.salloc({ args: ['true'], cwd: dir, env });
    expect([r.exitCode, r.stderr]).toEqual([1, 'salloc: error: BcastAddr not allowed with NodeName=DEFAULT\nsalloc: fatal: Unable to process configuration file\n']);
  });
});
