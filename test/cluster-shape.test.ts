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
