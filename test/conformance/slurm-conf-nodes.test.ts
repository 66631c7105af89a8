/**
 * A slurm.conf's nodes and partitions against the real slurmctld: each case
 * is a set of NodeName, NodeSet and PartitionName lines that the real one
 * refuses at its start. The cluster's own slurmctld binary is started in
 * the foreground on a copy of the cluster's slurm.conf with those lines
 * (scripts/real-slurm.mjs controllerStartup), and plugstack reads the same
 * file: its first error must be the real one's fatal() line, with the error
 * lines the real one logged before it (the hostlist's refusal, the names a
 * partition lists that are no node), on the same line. Where a partition
 * names valid nodes beside the unknown ones (two bracket groups, widths,
 * NodeSets), only the unknown ones may be reported: the names plugstack
 * expanded the NodeName lines to are the real one's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { readSlurmConf } from '../../lib/config/slurm-conf.js';
import { Plugstack } from '../../lib/plugstack.js';
import { controllerStartup } from '../../scripts/real-slurm.mjs';
import { tempDir } from '../helpers/plugins.js';
import { cluster, releases } from './run.js';

interface Case {
  name: string;
  lines: string[];
  /** Which of the lines slurmctld stops on (an index into lines), where the releases differ by release. */
  at: number | Record<string, number>;
}

// NodeAddr=127.0.0.1 where the names do not resolve: without it slurmctld
// spends seconds on getaddrinfo before it reaches the partitions.
const CASES: Case[] = [
  { name: 'a reversed range in NodeName (NodeAddr is the names)', lines: ['NodeName=n[3-1] CPUs=1', 'PartitionName=p Nodes=ALL'], at: 0 },
  { name: 'a reversed range in NodeName, NodeAddr given', lines: ['NodeName=n[3-1] NodeAddr=127.0.0.1', 'PartitionName=p Nodes=ALL'], at: 0 },
  // 22.05's hostlist refuses a suffix after the bracket; 24.11 takes it, then the partition's zz is no node.
  { name: 'a suffix after the bracket', lines: ['NodeName=node[1-2]-ib NodeAddr=127.0.0.1', 'PartitionName=p Nodes=node1-ib,node2-ib,zz'], at: { '22.05': 0, '24.11': 1 } },
  { name: 'a node named twice', lines: ['NodeName=n1 NodeAddr=127.0.0.1', 'NodeName=n[0-1] NodeAddr=127.0.0.1', 'PartitionName=p Nodes=ALL'], at: 1 },
  { name: 'a reversed range in a partition', lines: ['NodeName=n[1-2] NodeAddr=127.0.0.1', 'PartitionName=p Nodes=n[3-1]'], at: 1 },
  { name: 'an unclosed bracket in a partition', lines: ['NodeName=n[1-2] NodeAddr=127.0.0.1', 'PartitionName=p Nodes=n[1-2'], at: 1 },
  {
    name: 'two bracket groups, and names that are no node',
    lines: ['NodeName=a[1-2]b[03-04] NodeAddr=127.0.0.1', 'PartitionName=p Nodes=a1b[03-04],a2b03,a2b4,zz,yy'],
    at: 1,
  },
  {
    name: 'a NodeSet and a DEFAULT line',
    lines: ['NodeName=DEFAULT Features=gpu CPUs=2', 'NodeName=n[1-2] NodeAddr=127.0.0.1', 'NodeSet=ns Feature=gpu', 'PartitionName=p Nodes=ns,n[1-3]'],
    at: 3,
  },
  { name: 'one name on two lines', lines: ['NodeName=n1 NodeAddr=127.0.0.1', 'NodeName=n1 NodeAddr=127.0.0.1', 'PartitionName=p Nodes=ALL'], at: 1 },
  // The lists of a line against its names (Debian's 22.05 does not check NodeHostname: the partition's zz stops it).
  { name: 'two addresses for three nodes', lines: ['NodeName=n[1-3] NodeAddr=127.0.0.[1-2]', 'PartitionName=p Nodes=ALL'], at: 0 },
  { name: 'three host names for two nodes', lines: ['NodeName=n[1-2] NodeAddr=127.0.0.1 NodeHostname=h[1-3]', 'PartitionName=p Nodes=n1,zz'], at: { '22.05': 1, '24.11': 0 } },
  { name: 'two broadcast addresses for three nodes', lines: ['NodeName=n[1-3] NodeAddr=127.0.0.1 BcastAddr=127.0.0.[1-2]', 'PartitionName=p Nodes=ALL'], at: 0 },
  { name: 'two ports for three nodes (a range without brackets)', lines: ['NodeName=n[1-3] NodeAddr=127.0.0.1 Port=7001-7002', 'PartitionName=p Nodes=ALL'], at: 0 },
  { name: 'ten nodes and more, unpadded', lines: ['NodeName=node[1-11] NodeAddr=127.0.0.1', 'PartitionName=p Nodes=node[9-10],node11,node12'], at: 1 },
];

/** The error and fatal lines of slurmctld's log (and build_part_bitmap's info line), without the timestamps, after its plugins loaded. */
function refusal(log: string[]): string[] {
  return log
    .map((l) => l.replace(/^\[[^\]]*\] /, ''))
    .filter((l) => /^fatal: |_parse_single_range|nodespec_to_hostlist|lookup failure for node|invalid node name/.test(l))
    .map((l) => (/^(error|fatal): /.test(l) ? l : `info: ${l}`));
}

for (const release of releases()) {
  describe(`slurm.conf nodes and partitions against slurmctld ${release}`, () => {
    for (const c of CASES) {
      it(c.name, () => {
        const real = controllerStartup(cluster(release).dir, c.lines);
        expect(real.status, `slurmctld ${release} started on ${c.lines.join(' | ')}`).not.toBeNull();
        const dir = tempDir();
        const file = path.join(dir, 'slurm.conf');
        fs.writeFileSync(file, ['ClusterName=plugstack', ...c.lines, ''].join('\n'));
        const conf = readSlurmConf(file, release);
        expect(conf.controllerOk).toBe(false);
        const first = conf.problems.find((p) => p.severity === 'error')!;
        const ours = first.slurmLog.map((l) => `${l.level}: ${l.text}`);
        expect(ours).toEqual(refusal(real.log));
        expect(first.file).toBe(file);
        // The file's line 1 is ClusterName.
        expect(first.line).toBe(2 + (typeof c.at === 'number' ? c.at : c.at[release]!));
      });
    }
  });
}

/** NodeName lines read_config.c refuses while it parses: every command stops on the file, as srun does here. */
const PARSE_CASES: Case[] = [
  { name: 'NodeAddr on a DEFAULT line', lines: ['NodeName=DEFAULT NodeAddr=127.0.0.1', 'NodeName=n1', 'PartitionName=p Nodes=ALL'], at: 0 },
  { name: 'NodeHostname on a DEFAULT line', lines: ['NodeName=DEFAULT CPUs=2 NodeHostname=h', 'NodeName=n1', 'PartitionName=p Nodes=ALL'], at: 0 },
  { name: 'a node named ALL', lines: ['NodeName=all CPUs=1', 'PartitionName=p Nodes=ALL'], at: 0 },
];

for (const release of releases()) {
  describe(`slurm.conf NodeName lines srun ${release} refuses`, () => {
    for (const c of PARSE_CASES) {
      it(c.name, async () => {
        const dir = tempDir();
        const file = path.join(dir, 'slurm.conf');
        // The cluster's own file, with these lines for its nodes and partitions.
        const kept = fs
          .readFileSync(cluster(release).conf, 'utf8')
          .split('\n')
          .filter((l) => l !== '' && !/^(NodeName|PartitionName)=/.test(l));
        fs.writeFileSync(file, [...kept, ...c.lines, ''].join('\n'));
        const real = spawnSync(cluster(release).command('srun'), ['-n1', 'true'], { encoding: 'utf8', env: cluster(release).env({ SLURM_CONF: file }), timeout: 60_000 });
        fs.writeFileSync(path.join(dir, 'plugstack.conf'), '');
        const stack = await Plugstack.load(path.join(dir, 'plugstack.conf'), { slurmConf: file, slurmVersion: release, pluginDir: [] });
        const ours = await stack.srun({ args: ['-n1', 'true'], env: cluster(release).env({ SLURM_CONF: file }), cwd: dir });
        expect({ exitCode: ours.exitCode, stderr: ours.stderr }).toEqual({ exitCode: real.status, stderr: real.stderr });
        const problem = stack.slurmConf!.problems.find((p) => p.code === 'SLURM_CONF_BAD_NODE_LINE')!;
        expect(problem.line).toBe(kept.length + 1 + (c.at as number));
      });
    }
  });
}
