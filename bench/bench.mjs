#!/usr/bin/env node
// npm run bench: how long a step takes in plugstack, against the time the
// same tasks take to fork, exec and be reaped with nothing else (the floor),
// measured in the same run. Reported as medians and ratios. Where a real
// Slurm is running (srun answers), its time for the same step is measured
// too; as root with Debian's Slurm installed, the bench starts a one-node
// cluster itself (scripts/real-slurm.mjs) with the same plugins compiled
// against Slurm's own header, and stops it at the end (BENCH_REAL_SLURM=0
// skips that). Not a test: nothing here asserts a duration.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Plugstack } from '../dist/index.js';
import { start as startSlurm, stop as stopSlurm } from '../scripts/real-slurm.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'plugstack-bench-'));
const WARMUP = 3;
const RUNS = Number(process.env.BENCH_RUNS ?? 25);
const TASKS = [1, 16, 64];
const COMMAND = '/bin/true';

function cc(args) {
  execFileSync('cc', args, { stdio: 'inherit' });
}

const floorExe = path.join(work, 'floor');
cc(['-O2', '-o', floorExe, path.join(here, 'floor.c')]);
// A stack of three plugins: the bundled example (an option, user_init
// setting an environment variable, task_exit reading the status) and two
// copies of the test recorder, which in each of the twelve callbacks reads
// the task items and the job environment.
const include = `-I${path.join(root, 'include')}`;
const recorder = path.join(work, 'recorder.so');
const hello = path.join(work, 'hello.so');
cc(['-shared', '-fPIC', '-O2', include, '-o', recorder, path.join(root, 'test/fixtures/plugins/recorder.c')]);
cc(['-shared', '-fPIC', '-O2', include, '-o', hello, path.join(root, 'examples/hello/hello.c')]);
const conf = path.join(work, 'plugstack.conf');
fs.writeFileSync(
  conf,
  [`required ${hello}`, `required ${recorder} getenv=PATH`, `optional ${recorder} getenv=HELLO_GREETING`].join('\n') + '\n',
);

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function measure(fn) {
  for (let i = 0; i < WARMUP; i++) await fn();
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return { median: median(times), min: Math.min(...times), max: Math.max(...times) };
}

function slurmAvailable() {
  const r = spawnSync('srun', ['--version'], { encoding: 'utf8' });
  if (r.status !== 0) return false;
  return spawnSync('sinfo', ['-h', '-o', '%T'], { encoding: 'utf8', timeout: 5000 }).stdout?.includes('idle') ?? false;
}

const stack = await Plugstack.load(conf, { pluginDir: [] });
let haveSlurm = slurmAvailable();
let ownCluster;
const installed = spawnSync('sh', ['-c', 'command -v slurmd && command -v slurmctld && test -f /usr/include/slurm/spank.h']).status === 0;
if (!haveSlurm && installed && process.getuid?.() === 0 && process.env.BENCH_REAL_SLURM !== '0') {
  // The same stack for the real Slurm, built against its own spank.h.
  const real = (name, src) => {
    const out = path.join(work, `real-${name}.so`);
    cc(['-shared', '-fPIC', '-O2', '-w', '-I/usr/include', '-o', out, path.join(root, src)]);
    return out;
  };
  const realHello = real('hello', 'examples/hello/hello.c');
  const realRecorder = real('recorder', 'test/fixtures/plugins/recorder.c');
  const realConf = path.join(work, 'real-plugstack.conf');
  fs.writeFileSync(
    realConf,
    [`required ${realHello}`, `required ${realRecorder} getenv=PATH`, `optional ${realRecorder} getenv=HELLO_GREETING`].join('\n') + '\n',
  );
  ownCluster = path.join(work, 'slurm');
  await startSlurm(ownCluster, realConf);
  process.env.SLURM_CONF = path.join(ownCluster, 'slurm.conf');
  haveSlurm = slurmAvailable();
}
const rows = [];
for (const n of TASKS) {
  const floor = await measure(() => {
    const r = spawnSync(floorExe, [String(n), COMMAND]);
    if (r.status !== 0) throw new Error('floor failed');
  });
  const step = await measure(async () => {
    const r = await stack.launchStep({ argv: [COMMAND], ntasks: n, env: { PATH: '/usr/bin:/bin' } });
    if (!r.ok) throw new Error(`step failed: ${JSON.stringify(r.problems)}`);
  });
  const row = { tasks: n, floor, plugstack: step };
  if (haveSlurm)
    row.slurm = await measure(() => {
      const r = spawnSync('srun', ['-n', String(n), '-O', COMMAND]);
      if (r.status !== 0) throw new Error('srun failed');
    });
  rows.push(row);
}

// A 4-rank MPI job (Debian's MPICH: MPI_Init, an Allreduce, MPI_Finalize)
// through plugstack's mpi/pmi2 and through the real srun --mpi=pmi2 (Slurm's
// own pmi2), on one node, measured in the same run.
let mpi;
if (spawnSync('mpicc.mpich', ['-show'], { stdio: 'ignore' }).status === 0) {
  const mpiHello = path.join(work, 'mpi_hello');
  execFileSync('mpicc.mpich', ['-O2', '-o', mpiHello, path.join(root, 'test/fixtures/programs/mpi_hello.c')], { stdio: 'inherit' });
  const runs = Number(process.env.BENCH_MPI_RUNS ?? 10);
  const timed = async (fn) => {
    await fn();
    const times = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await fn();
      times.push(performance.now() - t0);
    }
    return { median: median(times), min: Math.min(...times), max: Math.max(...times) };
  };
  const bare = await Plugstack.load(conf, { pluginDir: [] });
  const job = (args) => async () => {
    const r = await bare.srun({ args: ['--mpi=pmi2', ...args, mpiHello], env: { PATH: '/usr/bin:/bin' }, cwd: work });
    if (r.exitCode !== 0 || r.stdout.split('\n').filter(Boolean).length !== 4) throw new Error(`MPI job failed: ${r.stderr}`);
  };
  mpi = { runs, plugstack: await timed(job(['-n', '4'])), twoNodes: await timed(job(['-N', '2', '-n', '4'])) };
  if (haveSlurm)
    mpi.slurm = await timed(() => {
      const r = spawnSync('srun', ['--mpi=pmi2', '-n', '4', '-O', mpiHello], { cwd: work, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`srun --mpi=pmi2 failed: ${r.stderr}`);
    });
}

const fmt = (m) => `${m.median.toFixed(1)} ms (${m.min.toFixed(1)}–${m.max.toFixed(1)})`;
console.log(`plugstack step benchmark: 3-plugin stack, one node, ${COMMAND}, ${RUNS} runs after ${WARMUP} warm-ups, medians`);
console.log(`machine: ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? '?'}, node ${process.version}`);
console.log('');
console.log('| tasks | fork/exec floor | plugstack | plugstack / floor |' + (haveSlurm ? ' real srun | srun / floor |' : ''));
console.log('|---:|---:|---:|---:|' + (haveSlurm ? '---:|---:|' : ''));
for (const r of rows) {
  const cells = [r.tasks, fmt(r.floor), fmt(r.plugstack), `${(r.plugstack.median / r.floor.median).toFixed(2)}x`];
  if (r.slurm) cells.push(fmt(r.slurm), `${(r.slurm.median / r.floor.median).toFixed(2)}x`);
  console.log(`| ${cells.join(' | ')} |`);
}
if (mpi) {
  console.log('');
  console.log(`4-rank MPICH job (MPI_Init, Allreduce, Finalize) with --mpi=pmi2, ${mpi.runs} runs after 1 warm-up, medians:`);
  console.log(`  plugstack, one node:      ${fmt(mpi.plugstack)}`);
  console.log(`  plugstack, two nodes:     ${fmt(mpi.twoNodes)}`);
  if (mpi.slurm) console.log(`  real srun, one node:      ${fmt(mpi.slurm)}   plugstack / srun: ${(mpi.plugstack.median / mpi.slurm.median).toFixed(2)}x`);
} else console.log('\nMPI job: mpicc.mpich not installed, not measured');
if (!haveSlurm) console.log('\nreal Slurm: not running here (no srun answering), so not measured');
else if (ownCluster) console.log('\nreal Slurm: a one-node Debian Slurm started for this run (CPUs=2, so -O), the same plugins built against its spank.h');
if (ownCluster) await stopSlurm(ownCluster);
fs.rmSync(work, { recursive: true, force: true });
