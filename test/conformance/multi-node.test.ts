/**
 * Jobs and steps over several nodes, against real clusters of three nodes
 * (node0..node2, two CPUs each, select/linear: scripts/real-slurm.mjs with
 * REAL_SLURM_NODES=3, one slurmd per node on this machine), one per
 * release, with plugstack given the same slurm.conf: which nodes a job
 * gets, how many tasks go where, what srun makes of -w, -x and -N inside a
 * job, and what slurmctld refuses. The other conformance files run on
 * clusters of one node, where none of this shows.
 *
 * Compared: the exit status, standard output and error (as sets of lines,
 * job ids normalised, the allowlist's salloc race dropped) and a batch
 * job's output. Each command prints, per task, its node, the step's nodes
 * and tasks per node, and the job's nodes and CPUs per node.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Plugstack } from '../../lib/plugstack.js';
import { tempDir } from '../helpers/plugins.js';
import { BASE_DIR, releases, type Release } from './run.js';

const run = promisify(execFile);
const script = path.resolve(import.meta.dirname, '..', '..', 'scripts', 'real-slurm.mjs');

/**
 * Each release's clusters of three: their directories and ports
 * (PLUGSTACK_CONFORMANCE_PORT_BASE moves them as run.ts's); the second
 * has nodes of 1, 1 and 2 CPUs, two NodeName lines.
 */
const NODES = 3;
function clusterOf(release: Release, kind: number): { dir: string; ports: string } {
  const index = (release === '22.05' ? 0 : 1) + 2 * kind;
  const base = Number(process.env.PLUGSTACK_CONFORMANCE_PORT_BASE) || 6830;
  // slurmctld's port, then one slurmd port per node.
  const ctld = base + 10 + index * (NODES + 1);
  return { dir: path.join(BASE_DIR, `nodes-${kind ? 'mixed-' : ''}${release}`), ports: `${ctld}:${ctld + 1}` };
}

async function script_(args: string[], env: Record<string, string> = {}): Promise<void> {
  await run(process.execPath, [script, ...args], { env: { ...process.env, ...env }, maxBuffer: 16 << 20 });
}

/** Until every node of the cluster is idle again: a job just ended may still be completing, and the next one would get other nodes. */
async function idle(sinfo: string, env: Record<string, string>): Promise<void> {
  const end = Date.now() + 30_000;
  for (;;) {
    const { stdout } = await run(sinfo, ['-h', '-N', '-o', '%T'], { env });
    const states = stdout.split('\n').filter(Boolean);
    if (states.length === NODES && states.every((s) => s === 'idle')) return;
    if (Date.now() > end) throw new Error(`real Slurm: nodes not idle after 30 s: ${states.join(' ')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const SHOW = 'echo $SLURMD_NODENAME step=$SLURM_STEP_NODELIST tasks=$SLURM_STEP_TASKS_PER_NODE job=$SLURM_JOB_NODELIST cpus=$SLURM_JOB_CPUS_PER_NODE on=$SLURM_CPUS_ON_NODE';
const show = (...args: string[]) => [...args, '-l', 'sh', '-c', SHOW];
const showIn = (args: string) => `srun ${args} -l sh -c '${SHOW}'; echo status=$?`;

interface Case {
  name: string;
  command: 'srun' | 'salloc' | 'sbatch';
  args: string[];
  releases?: Release[];
}

const cases: Case[] = [
  // The CPUs a job needs decide its node count.
  { name: 'srun -n 3: two nodes of two CPUs', command: 'srun', args: show('-n', '3') },
  { name: 'srun -n 6: all three', command: 'srun', args: show('-n', '6') },
  { name: 'srun -n 3 -c 2: a node a task', command: 'srun', args: show('-n', '3', '-c', '2') },
  { name: 'srun -n 7: more CPUs than the partition has', command: 'srun', args: ['-n', '7', 'true'] },
  { name: 'srun -N 1 -n 3: more CPUs than one node has', command: 'srun', args: ['-N', '1', '-n', '3', 'true'] },
  { name: 'srun -N 2-3 -n 3: a range aims at its maximum', command: 'srun', args: show('-N', '2-3', '-n', '3') },
  { name: 'srun -N 2 -c 1: -c without -n counts the CPUs', command: 'srun', args: show('-N', '2', '-c', '1') },
  { name: 'srun -n 3 --ntasks-per-node=1', command: 'srun', args: show('-n', '3', '--ntasks-per-node=1') },
  { name: 'srun -N 3 -n 4 --ntasks-per-node=2: ignored, with a warning', command: 'srun', args: show('-N', '3', '-n', '4', '--ntasks-per-node=2') },
  // 22.05 asks for one node and finds none; 24.11 asks for four (Node count specification invalid).
  { name: 'srun -n 4 --ntasks-per-node=1: more than the nodes', command: 'srun', args: ['-n', '4', '--ntasks-per-node=1', 'true'] },
  // The allocation's variables spread the tasks over the nodes the job got.
  { name: 'salloc -n 3: two nodes, the tasks over them', command: 'salloc', args: ['-n', '3', 'sh', '-c', 'echo $SLURM_TASKS_PER_NODE $SLURM_JOB_NODELIST $SLURM_JOB_CPUS_PER_NODE $SLURM_NNODES'] },
  { name: 'salloc -n 4 --ntasks-per-node=2', command: 'salloc', args: ['-n', '4', '--ntasks-per-node=2', 'sh', '-c', 'echo $SLURM_TASKS_PER_NODE $SLURM_JOB_NODELIST $SLURM_NTASKS'] },
  { name: 'sbatch -n 3: the batch job\'s variables', command: 'sbatch', args: ['-n', '3', '-o', 'job.out', '--wrap', 'echo $SLURM_TASKS_PER_NODE $SLURM_JOB_NODELIST $SLURM_JOB_CPUS_PER_NODE $SLURM_NNODES'] },
  // -w and -x: where the others come from.
  { name: 'srun -w node1 -N 2: from the required node up', command: 'srun', args: show('-w', 'node1', '-N', '2') },
  { name: 'srun -n 3 -w node2: then down', command: 'srun', args: show('-n', '3', '-w', 'node2') },
  { name: 'srun -N 1-2 -w node2: a task a node allocated', command: 'srun', args: show('-N', '1-2', '-w', 'node2') },
  { name: 'srun -w node[0,2] -n 4', command: 'srun', args: show('-w', 'node[0,2]', '-n', '4') },
  { name: 'srun -x node1 -n 3: runs broken by an excluded node', command: 'srun', args: show('-x', 'node1', '-n', '3') },
  { name: 'srun -x node0 -N 2', command: 'srun', args: show('-x', 'node0', '-N', '2') },
  { name: 'srun -m arbitrary -w node2,node0,node2', command: 'srun', args: show('-m', 'arbitrary', '-w', 'node2,node0,node2') },
  { name: 'salloc -w node1 -N 2, srun inside', command: 'salloc', args: ['-w', 'node1', '-N', '2', 'srun', ...show()] },
  // Steps inside a job of three nodes: srun's own handling of -x, -w and -N, then slurmctld's.
  {
    name: 'salloc -N 3: steps with -w, -x and -N',
    command: 'salloc',
    args: [
      '-N', '3', 'sh', '-c',
      [
        showIn('-N 1-3 -w node[0,2]'),
        showIn('-x node1 -N 1-3'),
        showIn('-N 2 -x node1'),
        showIn('-n 1 -x node0'),
        showIn('-N 1 -x node0 -w node2'),
        'srun -x node1 true; echo left=$?',
        'srun -N 4 true; echo beyond=$?',
        'srun -N 2 -x node0,node2 true; echo few=$?',
        'srun -w node0 -x node0 true; echo both=$?',
      ].join('; '),
    ],
  },
  {
    name: 'salloc -N 3: steps that want more CPUs than their nodes have',
    command: 'salloc',
    // Steps that run come first, and the second prints no node: a step
    // just ended may still hold its CPUs when the next one asks, and 24.11
    // then picks other nodes.
    args: [
      '-N', '3', 'sh', '-c',
      [showIn('-n 2'), "srun -N 1 -c 1 -l sh -c 'echo tasks=$SLURM_STEP_TASKS_PER_NODE'", 'srun -N 1 -n 3 true; echo one=$?', 'srun -n 7 true; echo seven=$?'].join('; '),
    ],
  },
  { name: 'sbatch -N 3: steps in a batch job', command: 'sbatch', args: ['-N', '3', '-o', 'job.out', '--wrap', [showIn('-N 2 -x node0'), showIn('-w node1'), showIn('-n 5 -m cyclic')].join('; ')] },
];

/** Lines as a set: job ids normalised, salloc's revocation race dropped (allowlist.json). */
function lines(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l !== '' && !/^salloc: Job allocation \d+ has been revoked\.$/.test(l))
    .map((l) => l.replace(/\b(job|allocation|Job|StepId=)\s?\d+/g, '$1 J'))
    .sort();
}

/** Nodes of 1, 1 and 2 CPUs on two NodeName lines: slurmctld tries each line's nodes in turn, and tasks go where the CPUs are. */
const mixedCases: Case[] = [
  { name: 'srun -n 2: the first line\'s nodes', command: 'srun', args: show('-n', '2') },
  { name: 'srun -w node1 -n 2', command: 'srun', args: show('-w', 'node1', '-n', '2') },
  { name: 'srun -c 2: a node of the line with the CPUs', command: 'srun', args: show('-c', '2') },
  { name: 'srun -n 3: the tasks by CPUs', command: 'srun', args: show('-n', '3') },
  { name: 'srun -n 4 -m cyclic', command: 'srun', args: show('-n', '4', '-m', 'cyclic') },
  { name: 'srun -n 5: one more than the CPUs', command: 'srun', args: show('-n', '5') },
  { name: 'salloc -n 4, srun inside', command: 'salloc', args: ['-n', '4', 'sh', '-c', `echo $SLURM_TASKS_PER_NODE; ${showIn('')}`] },
];

const active = releases();

const suites = active.flatMap((release) => [
  { release, kind: 0, label: 'three nodes of 2 CPUs', cases },
  { release, kind: 1, label: 'three nodes of 1, 1 and 2 CPUs', cases: mixedCases },
]);

describe.each(suites)('$label, $release', ({ release, kind, cases }) => {
  const { dir, ports } = clusterOf(release, kind);
  const conf = path.join(dir, 'slurm.conf');
  const env = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', SLURM_CONF: conf };

  beforeAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'plugstack.conf'), '');
    await script_(['start', dir, path.join(dir, 'plugstack.conf'), release], { REAL_SLURM_NODES: String(NODES), REAL_SLURM_PORTS: ports, ...(kind ? { REAL_SLURM_NODE_CPUS: '1,1,2' } : {}) });
  });
  afterAll(async () => {
    await script_(['stop', dir]);
  });

  for (const c of cases.filter((c) => !c.releases || c.releases.includes(release))) {
    it(c.name, async () => {
      const binDir = release === '24.11' ? path.join(dir, 'bin') : undefined;
      const real = await Plugstack.load(path.join(dir, 'plugstack.conf'), { backend: 'slurm', slurm: { conf, ...(binDir ? { binDir } : {}) } });
      const ours = await Plugstack.load(path.join(dir, 'plugstack.conf'), { slurmVersion: release, slurmConf: conf, pluginDir: [] });
      const observe = async (stack: Plugstack) => {
        const cwd = tempDir();
        const r = await stack[c.command]({ args: c.args, env, cwd });
        const output = c.command === 'sbatch' && fs.existsSync(path.join(cwd, 'job.out')) ? fs.readFileSync(path.join(cwd, 'job.out'), 'utf8') : (r.output?.text ?? '');
        return { exitCode: r.exitCode, stdout: lines(r.stdout), stderr: lines(r.stderr), output: lines(output) };
      };
      const sinfo = binDir ? path.join(binDir, 'sinfo') : 'sinfo';
      await idle(sinfo, env);
      const expected = await observe(real);
      const got = await observe(ours);
      expect(got).toEqual(expected);
    });
  }
});
