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
      // A refused NodeName line leaves nodes out, so names a partition lists
      // are not called unknown after it (zz is not reported).
      expect(fatals).toEqual([
        ...(slurmVersion === '22.05' ? [['SLURM_CONF_BAD_NODE_LIST', 2, 'Unable to create NodeAddr list from n[1-2]-ib']] : []),
        ['SLURM_CONF_BAD_NODE_LIST', 3, 'Unable to create NodeAddr list from m[3-1]'],
        ...(slurmVersion === '22.05' ? [['SLURM_CONF_BAD_NODE_LIST', 4, 'Invalid node names in partition p']] : []),
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

describe('a slurm.conf that names more nodes than plugstack emulates', () => {
  it('keeps the first 100000, warns, and neither crashes nor calls the rest unknown', async () => {
    const dir = tempDir();
    // Four billion hosts in 24.11 (a suffix makes each its own range), and a
    // second line past the table's limit.
    const conf = ['ClusterName=big', 'NodeName=r[0-65535]n[0-65535]-ib', 'NodeName=x[0-9]', 'PartitionName=p Nodes=x[0-9],r1n1-ib Default=YES', ''].join('\n');
    const { readSlurmConf } = await import('../lib/config/slurm-conf.js');
    const sc = readSlurmConf(writeFile(dir, 'slurm.conf', conf), '24.11');
    expect(sc.nodes).toHaveLength(100_000);
    expect(sc.controllerOk).toBe(true);
    expect(sc.controllerProblems.map((p) => [p.severity, p.code, p.line])).toEqual([['warning', 'SLURM_CONF_TOO_MANY_NODES', 2]]);
  });
});

describe('partitions as slurmctld builds them', () => {
  it('takes DEFAULT lines, NodeSets (first of a name), and leaves a partition without Nodes= empty', async () => {
    const dir = tempDir();
    const conf = [
      'ClusterName=sets',
      'NodeName=DEFAULT CPUs=4',
      'NodeName=gpu[1-2] Features=gpu',
      'NodeName=cpu[1-3] CPUs=1',
      'NodeSet=gpus Feature=gpu',
      'NodeSet=gpus Nodes=cpu1',
      'PartitionName=none',
      'PartitionName=DEFAULT Nodes=cpu[2-3] MaxTime=10',
      'PartitionName=g Nodes=gpus,cpu3',
      'PartitionName=c Default=YES',
      '',
    ].join('\n');
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [], slurmConf: writeFile(dir, 'slurm.conf', conf) });
    const sc = stack.slurmConf!;
    expect(sc.controllerProblems).toEqual([]);
    expect(sc.nodes.map((n) => [n.name, n.cpus])).toEqual([['gpu1', 4], ['gpu2', 4], ['cpu1', 1], ['cpu2', 1], ['cpu3', 1]]);
    expect(sc.partitions.map((p) => [p.name, p.nodes, p.maxTime])).toEqual([
      ['none', [], undefined],
      ['g', ['gpu1', 'gpu2', 'cpu3'], '10'],
      ['c', ['cpu2', 'cpu3'], '10'],
    ]);
    const r = await stack.srun({ args: ['-p', 'none', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
    // No CPUs at all: _valid_job_part's first check (ESLURM_TOO_MANY_REQUESTED_CPUS).
    expect([r.exitCode, r.stderr]).toEqual([1, 'srun: error: Unable to allocate resources: More processors requested than permitted\n']);
  });
});

describe('srun, salloc and sbatch -w: the job\'s required nodes', () => {
  const env = { PATH: '/usr/bin:/bin' };
  for (const slurmVersion of ['24.11', '22.05']) {
    it(`gets the nodes named, then others as select/linear picks them, and refuses names that are no node (${slurmVersion})`, async () => {
      const dir = tempDir();
      const own = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [], slurmVersion });
      const show = 'test $SLURM_NODEID = 0 && echo $SLURM_JOB_NODELIST $SLURM_NNODES $SLURM_NTASKS';
      const named = await own.srun({ args: ['-N', '3', '-w', 'node7,node2', 'sh', '-c', show], cwd: dir, env });
      // select/linear: the rest from the first named node up (node3), not the lowest (node0).
      expect(named.stdout).toBe('node[2-3,7] 3 3\n');
      const two = await own.srun({ args: ['-w', 'node[4-5]', 'sh', '-c', show], cwd: dir, env });
      expect(two.stdout).toBe('node[4-5] 2 2\n');
      const bad = await own.sbatch({ args: ['-w', 'node01', '--wrap', 'true'], cwd: dir, env });
      expect([bad.exitCode, bad.stderr]).toEqual([1, 'sbatch: error: Batch job submission failed: Invalid node name specified\n']);
      const conf = ['ClusterName=w', 'NodeName=a[1-4] CPUs=1', 'PartitionName=p Nodes=a[1-2] Default=YES', 'PartitionName=q Nodes=a[3-4]', ''].join('\n');
      const site = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [], slurmVersion, slurmConf: writeFile(dir, 'slurm.conf', conf) });
      const outside = await site.srun({ args: ['-w', 'a3', 'true'], cwd: dir, env });
      expect([outside.exitCode, outside.stderr]).toEqual([1, 'srun: error: Unable to allocate resources: Requested nodes not in this partition\n']);
      const inside = await site.srun({ args: ['-p', 'q', '-N', '2', '-w', 'a4', 'sh', '-c', show], cwd: dir, env });
      expect(inside.stdout).toBe('a[3-4] 2 2\n');
      // More nodes listed than -N 1: 22.05's salloc counts them into the
      // minimum, past the maximum; 24.11's sends the list, and slurmctld
      // takes one node of it.
      const max = await site.salloc({ args: ['-N', '1', '-w', 'a[1-2]', 'sh', '-c', 'echo $SLURM_JOB_NODELIST'], cwd: dir, env });
      if (slurmVersion === '22.05') expect([max.exitCode, max.stderr]).toEqual([1, 'salloc: error: invalid number of nodes (-N 2-1)\n']);
      else expect([max.exitCode, max.stdout]).toEqual([0, 'a1\n']);
    });
  }
});

describe('-x and -m arbitrary\'s hosts in the allocation', () => {
  const env = { PATH: '/usr/bin:/bin' };
  it('keeps excluded nodes out, refuses what slurmctld refuses, and gives -m arbitrary its named hosts', async () => {
    const dir = tempDir();
    const own = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [] });
    const show = 'test $SLURM_NODEID = 0 && echo $SLURM_JOB_NODELIST';
    const skipped = await own.srun({ args: ['-N', '2', '-x', 'node[0,2]', 'sh', '-c', show], cwd: dir, env });
    // select/linear: a run of consecutive nodes that holds the job (node3, node4) before one that does not (node1).
    expect(skipped.stdout).toBe('node[3-4]\n');
    const both = await own.srun({ args: ['-w', 'node1', '-x', 'node1', 'true'], cwd: dir, env });
    expect([both.exitCode, both.stderr]).toEqual([1, 'srun: error: Unable to allocate resources: Invalid node name specified\n']);
    const arbitrary = await own.srun({ args: ['-m', 'arbitrary', '-w', 'node7,node5,node7', '-l', 'sh', '-c', 'echo $SLURMD_NODENAME $SLURM_JOB_NODELIST'], cwd: dir, env });
    expect(arbitrary.stdout.split('\n').filter(Boolean).sort()).toEqual(['0: node7 node[5,7]', '1: node5 node[5,7]', '2: node7 node[5,7]']);
    const conf = ['ClusterName=x', 'NodeName=a[1-2] CPUs=1', 'PartitionName=p Nodes=ALL Default=YES', ''].join('\n');
    const site = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [], slurmConf: writeFile(dir, 'slurm.conf', conf) });
    const none = await site.sbatch({ args: ['-N', '2', '-x', 'a2', '--wrap', 'true'], cwd: dir, env });
    expect([none.exitCode, none.stderr]).toEqual([1, 'sbatch: error: Batch job submission failed: Requested node configuration is not available\n']);
  });

  // job_step_create_allocation and _job_create_structure (srun_job.c of
  // both releases): inside a job srun takes -x's nodes out of the job's
  // itself; the job's SLURM_NNODES is srun's -N.
  it('inside a job of three nodes: srun takes the excluded ones out, and holds -N against what is left', async () => {
    const dir = tempDir();
    const own = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [] });
    const steps = [
      'srun -N 2 -x node1 -l sh -c "echo \\$SLURMD_NODENAME \\$SLURM_STEP_NODELIST"',
      'srun -n 1 -x node0 sh -c "echo one \\$SLURMD_NODENAME"',
      'srun -N 1 -x node0 -w node2 sh -c "echo listed \\$SLURMD_NODENAME"',
      'srun -x node1 true; echo left=$?',
      'srun -N 4 true; echo beyond=$?',
      'srun -N 2 -x node0,node2 true; echo few=$?',
    ].join('; ');
    const r = await own.salloc({ args: ['-N', '3', 'sh', '-c', steps], cwd: dir, env });
    const [first, second, ...rest] = r.stdout.split('\n').filter(Boolean);
    expect([[first, second].sort(), rest]).toEqual([['0: node0 node[0,2]', '1: node2 node[0,2]'], ['one node1', 'listed node2', 'left=1', 'beyond=1', 'few=1']]);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('srun'))).toEqual([
      "srun: warning: can't run 1 processes on 3 nodes, setting nnodes to 1",
      'srun: error: Only allocated 2 nodes asked for 3',
      'srun: error: Are required nodes explicitly excluded?',
      'srun: error: Only allocated 3 nodes asked for 4',
      'srun: error: Only allocated 1 nodes asked for 2',
      'srun: error: Are required nodes explicitly excluded?',
    ]);
  });
});

describe('a NodeName line\'s lists against its names', () => {
  it('refuses lists of neither one entry nor one a node, in each release\'s words', async () => {
    const dir = tempDir();
    const { readSlurmConf } = await import('../lib/config/slurm-conf.js');
    const file = writeFile(dir, 'slurm.conf', 'ClusterName=c\nNodeName=n[1-3] NodeAddr=10.0.0.[1-2]\nNodeName=m[1-2] NodeHostname=h[1-3]\nNodeName=k[1-3] Port=7001-7002\n');
    const fatals = (v: string) => readSlurmConf(file, v).controllerProblems.map((p) => [p.code, p.line, p.slurmLog.at(-1)!.text]);
    expect(fatals('24.11')).toEqual([
      ['SLURM_CONF_NODE_LIST_COUNT', 2, 'NodeAddr count must equal that of NodeName records or  there must be no more than one'],
      ['SLURM_CONF_NODE_LIST_COUNT', 3, 'NodeHostname count must equal that of NodeName records or there must be no more than one'],
      ['SLURM_CONF_NODE_LIST_COUNT', 4, 'Port count must equal that of NodeName records or there must be no more than one (2 != 3)'],
    ]);
    expect(fatals('22.05')).toEqual([
      ['SLURM_CONF_NODE_LIST_COUNT', 2, 'NodeAddr count must equal that of NodeName records of there must be no more than one'],
      ['SLURM_CONF_NODE_LIST_COUNT', 4, 'Port count must equal that of NodeName records or there must be no more than one (2 != 3)'],
    ]);
  });
});
