#!/usr/bin/env node
// npm run bench: plugstack's speed, like for like, each figure next to its
// target (issue 17), with its min–max spread and the machine's load while it
// ran. Not a test: nothing here asserts a duration.
//
//   srun     stack.srun (the whole srun flow: client process, prolog, step,
//            epilog) against the real srun of the same release running the
//            same stack, and the fork/exec floor of the same tasks
//   cost     the same three, counted rather than timed: CPU, page faults and
//            forks per call, every process involved (bench/cgroup.mjs)
//   step     launchStep (the remote part alone) against the floor
//   zygote   launchStep and stack.srun with hosts from the zygote and spawned
//   cli      `plugstack run -n 1 true` against `node -e 0`
//   check    check() of a 40-plugin stack in all five contexts, against the
//            floor of loading and unloading the same plugins
//   mpi      a 4-rank MPICH job through plugstack's pmi2 and the real srun's
//
// BENCH_ONLY=srun,cli chooses sections; BENCH_RUNS (default 15) the rounds.
// The real Slurms (22.05 on this machine, 24.11 in its trixie root when
// .cache/ has it) are started for the run when this runs as root with
// Debian's Slurm installed, with the same plugins built against their own
// headers, and stopped at the end (BENCH_REAL_SLURM=0: none; BENCH_RELEASES
// chooses releases). They run in PLUGSTACK_CONFORMANCE_DIR (default a
// directory of the run) and, with PLUGSTACK_CONFORMANCE_PORT_BASE=N, on ports
// N..N+3, as the conformance suite's do.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Plugstack } from '../dist/index.js';
import { command as realCommand, start as startSlurm, stop as stopSlurm } from '../scripts/real-slurm.mjs';
import { enterAccounting } from './cgroup.mjs';
import { load, ms, table, together, verdict, WARMUP_ROUNDS } from './measure.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'plugstack-bench-'));
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const TASKS = [1, 16, 64];
const COMMAND = '/bin/true';
const ONLY = new Set((process.env.BENCH_ONLY ?? 'srun,cost,step,zygote,cli,check,mpi').split(','));
const PATH_ENV = { PATH: '/usr/bin:/bin' };
/**
 * The environment of the fresh Node processes the bench times (the command
 * line, `node -e 0`, `plugstack check`): the bench's own without the
 * variables that make every Node start do work of its own. This project's
 * machines set NODE_EXTRA_CA_CERTS to the system's whole CA bundle, which
 * Node reads and parses at each start, TLS or not: 40 ms of a 114 ms
 * `node -e 0` on the PVM guest. Left in, it adds the same to both sides of
 * the command line's ratio and flatters it (1.72x where 2.4x is true).
 */
const NODE_START_DROPPED = ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS'].filter((name) => process.env[name] !== undefined);
const NODE_START_ENV = Object.fromEntries(Object.entries({ ...process.env, ...PATH_ENV }).filter(([name]) => !NODE_START_DROPPED.includes(name)));
const ALL_RELEASES = ['22.05', '24.11'];
const RELEASES = (process.env.BENCH_RELEASES ?? ALL_RELEASES.join(',')).split(',');
/** The release's version number in plugin_version, for plugstack's own header. */
const VERSION_NUMBER = { '22.05': '0x160508' };

function cc(args) {
  execFileSync('cc', args, { stdio: 'inherit' });
}

// What a page fault and a fork cost right now (bench/machine.c): on a
// virtual machine they change with the host's phases, and plugstack's
// ratios with them.
const machineExe = path.join(work, 'machine');
cc(['-O2', '-o', machineExe, path.join(here, 'machine.c')]);
function machineCosts() {
  const r = spawnSync(machineExe, { encoding: 'utf8' });
  const m = /fault=([\d.]+) fork=([\d.]+) childread=([\d.]+)/.exec(r.stdout ?? '');
  return m
    ? `a fresh page's first touch ${m[1]} µs, a fork, exit and wait ${m[2]} µs, a forked child's first read of a parent's page ${m[3]} µs`
    : 'process costs not measured';
}

const floorExe = path.join(work, 'floor');
cc(['-O2', '-o', floorExe, path.join(here, 'floor.c')]);
const floor = (n) => () => {
  const r = spawnSync(floorExe, [String(n), COMMAND]);
  if (r.status !== 0) throw new Error('floor failed');
};

/**
 * The stack, for a release and a header: the bundled example (an option,
 * user_init setting an environment variable, task_exit reading the status)
 * and two copies of the test recorder, which in each of its callbacks
 * (job_prolog and job_epilog included, so the prolog and epilog run) reads
 * the task items and the job environment.
 */
function stackConf(name, includeDir, defines = []) {
  const so = (base, src) => {
    const out = path.join(work, `${name}-${base}.so`);
    cc(['-shared', '-fPIC', '-O2', '-w', `-I${includeDir}`, ...defines, '-o', out, path.join(root, src)]);
    return out;
  };
  const hello = so('hello', 'examples/hello/hello.c');
  const recorder = so('recorder', 'test/fixtures/plugins/recorder.c');
  const conf = path.join(work, `${name}.conf`);
  fs.writeFileSync(conf, [`required ${hello}`, `required ${recorder} getenv=PATH`, `optional ${recorder} getenv=HELLO_GREETING`].join('\n') + '\n');
  return conf;
}
const ownConf = (release) =>
  stackConf(`plugstack-${release}`, path.join(root, 'include'), VERSION_NUMBER[release] ? [`-DSLURM_VERSION_NUMBER=${VERSION_NUMBER[release]}`] : []);

// The real Slurms: where they can be started, one cluster per release.
const clusters = {};
const canStart =
  process.getuid?.() === 0 &&
  process.env.BENCH_REAL_SLURM !== '0' &&
  spawnSync('sh', ['-c', 'command -v slurmd && command -v slurmctld && test -f /usr/include/slurm/spank.h']).status === 0;
const rootDir = path.join(root, '.cache', 'trixie-slurm-root');
const realHeaders = { '22.05': '/usr/include', '24.11': path.join(rootDir, 'usr', 'include') };
const clusterBase = process.env.PLUGSTACK_CONFORMANCE_DIR ? path.resolve(process.env.PLUGSTACK_CONFORMANCE_DIR, 'bench') : path.join(work, 'slurm');

async function startCluster(release) {
  if (!canStart || !(ONLY.has('srun') || ONLY.has('cost') || ONLY.has('mpi'))) return;
  if (!fs.existsSync(path.join(realHeaders[release], 'slurm', 'spank.h'))) return;
  const dir = path.join(clusterBase, release);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  // Only Slurm's headers of the release: the root's C library headers are not this machine's.
  const include = path.join(work, `include-${release}`);
  fs.mkdirSync(include);
  fs.symlinkSync(path.join(realHeaders[release], 'slurm'), path.join(include, 'slurm'));
  const conf = stackConf(`real-${release}`, include);
  const base = Number(process.env.PLUGSTACK_CONFORMANCE_PORT_BASE);
  const ports = base ? `${base + 2 * ALL_RELEASES.indexOf(release)}:${base + 2 * ALL_RELEASES.indexOf(release) + 1}` : undefined;
  const saved = process.env.REAL_SLURM_PORTS;
  if (ports) process.env.REAL_SLURM_PORTS = ports;
  else delete process.env.REAL_SLURM_PORTS;
  clusters[release] = { dir, env: { ...process.env, ...PATH_ENV, SLURM_CONF: path.join(dir, 'slurm.conf') } };
  try {
    await startSlurm(dir, conf, release);
  } catch (error) {
    say(`real Slurm ${release}: could not be started here (${error.message.split('\n')[0]}): plugstack only`);
    await stopSlurm(dir).catch(() => {});
    delete clusters[release];
    return;
  } finally {
    if (saved === undefined) delete process.env.REAL_SLURM_PORTS;
    else process.env.REAL_SLURM_PORTS = saved;
  }
  clusters[release].srun = realCommand(dir, 'srun');
}

function realSrun(release, args, options = {}) {
  const c = clusters[release];
  return () => {
    const r = spawnSync(c.srun, args, { env: c.env, cwd: work, encoding: 'utf8', ...options });
    if (r.status !== 0) throw new Error(`real srun ${release} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  };
}

const out = [];
const say = (line = '') => {
  out.push(line);
  console.log(line);
};

/** `srun -n N -O true` three ways: the floor, stack.srun, and the real srun of the release where it runs. */
function srunContenders(stack, release, n) {
  const args = ['-n', String(n), '-O', COMMAND];
  const contenders = {
    floor: floor(n),
    plugstack: async () => {
      const r = await stack.srun({ args, env: PATH_ENV, cwd: work });
      if (r.exitCode !== 0) throw new Error(`stack.srun failed: ${r.stderr}`);
    },
  };
  if (clusters[release]) contenders.real = realSrun(release, args);
  return contenders;
}

async function srunSection() {
  say('## stack.srun against the real srun, same stack, same release');
  say('');
  say(`The whole srun flow (client process, prolog, step, epilog) of \`srun -n N -O ${COMMAND}\` on one node; the fork/exec floor`);
  say('is a C program that only forks, execs and reaps the same tasks. Targets: real / plugstack ≥ 10x at 1 task, ≥ 5x at 16 and 64.');
  for (const release of RELEASES) {
    const stack = await Plugstack.load(ownConf(release), { pluginDir: [], slurmVersion: release });
    const real = clusters[release];
    const rows = [];
    for (const n of TASKS) {
      const contenders = srunContenders(stack, release, n);
      const m = await together(contenders, { runs: RUNS });
      const row = [n, ms(m.floor), ms(m.plugstack), `${(m.plugstack.median / m.floor.median).toFixed(2)}x`];
      if (real) row.push(ms(m.real), verdict(m.real.median / m.plugstack.median, n === 1 ? 10 : 5, 'higher'));
      row.push(load(m.load));
      rows.push(row);
    }
    say('');
    say(`Slurm ${release}${real ? '' : ' (no real cluster of this release here: plugstack only)'}:`);
    say('');
    const header = ['tasks', 'fork/exec floor', 'stack.srun', 'stack.srun / floor'];
    if (real) header.push(`real srun ${release}`, 'real / plugstack');
    header.push('load');
    say(table(header, rows));
  }
}

/**
 * What one srun costs, counted: the CPU time, page faults and forks of
 * every process it involves (for the real Slurm its daemons, slurmstepd
 * and the tasks; for plugstack Node, the zygote, the hosts and the tasks),
 * per call over blocks of calls in a row. Unlike the times these hardly
 * move with the host's phases: a fault is a fault however long it takes.
 */
async function costSection(accounting) {
  say('');
  say('## What one srun costs, counted');
  say('');
  if (accounting.why) {
    say(`not measured here: ${accounting.why}`);
    return;
  }
  const rounds = Number(process.env.BENCH_COST_ROUNDS ?? 20);
  const idle = await accounting.measureIdle();
  say(`CPU time (user and system), page faults and forks (new processes and threads) per call, of every process the call involves,`);
  say(`counted by the kernel in a cgroup holding the bench and all it starts, over ${rounds} calls in a row after ${WARMUP_ROUNDS} of warm-up;`);
  say(`the idle rate (${idle.cpuMsPerS.toFixed(2)} ms of CPU, ${idle.faultsPerS.toFixed(0)} faults and ${idle.forksPerS.toFixed(2)} forks a second: the daemons' timers, Node) is taken out.`);
  say('Forks are counted machine-wide: on a busy machine they include others\'.');
  const fmt = (c) => `${c.cpuMs.toFixed(1)} ms, ${Math.round(c.faults)} faults, ${c.forks.toFixed(1)} forks`;
  for (const release of RELEASES) {
    const stack = await Plugstack.load(ownConf(release), { pluginDir: [], slurmVersion: release });
    const real = clusters[release];
    const rows = [];
    for (const n of TASKS) {
      const contenders = srunContenders(stack, release, n);
      const c = {};
      for (const [name, fn] of Object.entries(contenders)) {
        for (let i = 0; i < WARMUP_ROUNDS; i++) await fn();
        c[name] = await accounting.perCall(fn, rounds);
      }
      const row = [n, fmt(c.floor), fmt(c.plugstack)];
      if (real)
        row.push(
          fmt(c.real),
          `CPU ${(c.real.cpuMs / c.plugstack.cpuMs).toFixed(2)}x, faults ${(c.real.faults / c.plugstack.faults).toFixed(2)}x, forks ${(c.real.forks / c.plugstack.forks).toFixed(2)}x`,
        );
      row.push(`CPU ${(c.plugstack.cpuMs / c.floor.cpuMs).toFixed(2)}x, faults ${(c.plugstack.faults / c.floor.faults).toFixed(2)}x`);
      rows.push(row);
    }
    say('');
    say(`Slurm ${release}${real ? '' : ' (no real cluster of this release here: plugstack only)'}${real && release !== '22.05' ? ' (the real srun is started through nsenter and chroot into its Debian root: two execs more)' : ''}:`);
    say('');
    const header = ['tasks', 'fork/exec floor', 'stack.srun'];
    if (real) header.push(`real srun ${release}`, 'real / plugstack');
    header.push('plugstack / floor');
    say(table(header, rows));
  }
}

async function stepSection() {
  say('');
  say('## launchStep against the fork/exec floor');
  say('');
  say('The remote part alone (one node: its slurmstepd sequence, the tasks, their reaping). Target: ≤ 1.5x the floor.');
  say('');
  const stack = await Plugstack.load(ownConf('24.11'), { pluginDir: [] });
  const rows = [];
  for (const n of TASKS) {
    const m = await together(
      {
        floor: floor(n),
        launchStep: async () => {
          const r = await stack.launchStep({ argv: [COMMAND], ntasks: n, env: PATH_ENV });
          if (!r.ok) throw new Error(`step failed: ${JSON.stringify(r.problems)}`);
        },
      },
      { runs: RUNS },
    );
    rows.push([n, ms(m.floor), ms(m.launchStep), verdict(m.launchStep.median / m.floor.median, 1.5, 'lower'), load(m.load)]);
  }
  say(table(['tasks', 'fork/exec floor', 'launchStep', 'launchStep / floor', 'load'], rows));
}

/** The same calls with hosts forked by the zygote and spawned by Node (PLUGSTACK_ZYGOTE=0), interleaved. */
async function zygoteSection() {
  say('');
  say('## What the zygote buys');
  say('');
  say('Hosts forked by the zygote (lib/host/zygote.ts) against hosts spawned by Node (`PLUGSTACK_ZYGOTE=0`), in one loop.');
  say('');
  const stack = await Plugstack.load(ownConf('24.11'), { pluginDir: [] });
  const withZygote = (on, fn) => async () => {
    const saved = process.env.PLUGSTACK_ZYGOTE;
    if (on) delete process.env.PLUGSTACK_ZYGOTE;
    else process.env.PLUGSTACK_ZYGOTE = '0';
    try {
      await fn();
    } finally {
      if (saved === undefined) delete process.env.PLUGSTACK_ZYGOTE;
      else process.env.PLUGSTACK_ZYGOTE = saved;
    }
  };
  const step = (n) => async () => {
    const r = await stack.launchStep({ argv: [COMMAND], ntasks: n, env: PATH_ENV });
    if (!r.ok) throw new Error('step failed');
  };
  const srun = async () => {
    const r = await stack.srun({ args: ['-n', '1', COMMAND], env: PATH_ENV, cwd: work });
    if (r.exitCode !== 0) throw new Error(`stack.srun failed: ${r.stderr}`);
  };
  const rows = [];
  for (const [what, fn] of [
    ['launchStep, 1 task', step(1)],
    ['launchStep, 16 tasks', step(16)],
    ['stack.srun -n 1', srun],
  ]) {
    const m = await together({ zygote: withZygote(true, fn), spawned: withZygote(false, fn) }, { runs: RUNS });
    rows.push([what, ms(m.zygote), ms(m.spawned), `${(m.spawned.median - m.zygote.median).toFixed(1)} ms`, load(m.load)]);
  }
  say(table(['call', 'zygote', 'spawned', 'saved', 'load'], rows));
}

async function cliSection() {
  say('');
  say('## The command line');
  say('');
  say('`plugstack run -n 1 true` from a shell (a fresh Node process) against `node -e 0`. Target: ≤ 1.5x.');
  say(
    NODE_START_DROPPED.length
      ? `Both without ${NODE_START_DROPPED.join(' and ')}, which this environment sets and which makes every Node start do work of its own.`
      : 'Both in the bench\'s environment (no NODE_EXTRA_CA_CERTS or NODE_OPTIONS was set).',
  );
  say('');
  const conf = ownConf('24.11');
  const run = (argv) => () => {
    const r = spawnSync(argv[0], argv.slice(1), { env: NODE_START_ENV, cwd: work, stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`${argv.join(' ')} failed (${r.status})`);
  };
  const contenders = {
    node: run([process.execPath, '-e', '0']),
    version: run([process.execPath, path.join(root, 'bin', 'plugstack.cjs'), '--version']),
    cli: run([process.execPath, path.join(root, 'bin', 'plugstack.cjs'), 'run', '--conf', conf, '-n', '1', COMMAND]),
  };
  const real = clusters['22.05'];
  if (real) contenders.real = realSrun('22.05', ['-n', '1', COMMAND], { stdio: ['ignore', 'ignore', 'pipe'] });
  const m = await together(contenders, { runs: RUNS });
  const rows = [
    ['`node -e 0`', ms(m.node), '1.00x'],
    ['`plugstack --version` (the loader and the bundle, no command)', ms(m.version), `${(m.version.median / m.node.median).toFixed(2)}x`],
    ['`plugstack run -n 1 true`', ms(m.cli), verdict(m.cli.median / m.node.median, 1.5, 'lower')],
  ];
  if (real) rows.push(['real `srun -n 1 true` (22.05)', ms(m.real), `${(m.real.median / m.node.median).toFixed(2)}x`]);
  say(table(['command', 'time', 'against node -e 0'], rows));
  say(`load ${load(m.load)}`);
}

async function checkSection() {
  say('');
  say('## check');
  say('');
  say('`check()` of a stack of 40 plugins (each its own shared object) in all five contexts. Target: ≤ 100 ms.');
  say('');
  const so = path.join(work, 'check-recorder.so');
  cc(['-shared', '-fPIC', '-O2', `-I${path.join(root, 'include')}`, '-o', so, path.join(root, 'test/fixtures/plugins/recorder.c')]);
  const lines = [];
  const copies = [];
  for (let i = 0; i < 40; i++) {
    const copy = path.join(work, `check-${i}.so`);
    fs.copyFileSync(so, copy);
    copies.push(copy);
    lines.push(`required ${copy} getenv=PATH`);
  }
  // Its floor: five processes that only dlopen and dlclose the same 40 (bench/load-floor.c).
  const loadFloorExe = path.join(work, 'load-floor');
  cc(['-O2', '-o', loadFloorExe, path.join(here, 'load-floor.c')]);
  const loadFloor = () => {
    const r = spawnSync(loadFloorExe, ['5', ...copies], { stdio: 'ignore' });
    if (r.status !== 0) throw new Error('load-floor failed');
  };
  const conf = path.join(work, 'check40.conf');
  fs.writeFileSync(conf, lines.join('\n') + '\n');
  const stack = await Plugstack.load(conf, { pluginDir: [] });
  const cli = () => {
    const r = spawnSync(process.execPath, [path.join(root, 'bin', 'plugstack.cjs'), 'check', conf], { env: NODE_START_ENV, stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`plugstack check failed (${r.status})`);
  };
  const m = await together(
    {
      check: async () => {
        const r = await stack.check();
        if (!r.ok || r.contexts.length !== 5) throw new Error('check failed');
      },
      cli,
      loadFloor,
    },
    { runs: RUNS },
  );
  say(
    table(
      ['what', 'time', 'target'],
      [
        ['dlopen and dlclose of the 40, in 5 processes (the floor)', ms(m.loadFloor), ''],
        ['`stack.check()`', ms(m.check), `${verdict(m.check.median, 100, 'lower', 'ms')}; ${(m.check.median / m.loadFloor.median).toFixed(2)}x the floor`],
        ['`plugstack check` (a fresh Node process)', ms(m.cli), ''],
      ],
    ),
  );
  say(`load ${load(m.load)}`);
}

async function mpiSection() {
  say('');
  say('## A 4-rank MPI job');
  say('');
  if (spawnSync('mpicc.mpich', ['-show'], { stdio: 'ignore' }).status !== 0) {
    say('mpicc.mpich not installed: not measured');
    return;
  }
  const mpiHello = path.join(work, 'mpi_hello');
  execFileSync('mpicc.mpich', ['-O2', '-o', mpiHello, path.join(root, 'test/fixtures/programs/mpi_hello.c')], { stdio: 'inherit' });
  const stack = await Plugstack.load(ownConf('22.05'), { pluginDir: [], slurmVersion: '22.05' });
  const job = (args) => async () => {
    const r = await stack.srun({ args: ['--mpi=pmi2', ...args, mpiHello], env: PATH_ENV, cwd: work });
    if (r.exitCode !== 0 || r.stdout.split('\n').filter(Boolean).length !== 4) throw new Error(`MPI job failed: ${r.stderr}`);
  };
  const contenders = { oneNode: job(['-n', '4']), twoNodes: job(['-N', '2', '-n', '4']) };
  if (clusters['22.05']) contenders.real = realSrun('22.05', ['--mpi=pmi2', '-n', '4', '-O', mpiHello]);
  const runs = Number(process.env.BENCH_MPI_RUNS ?? 10);
  const m = await together(contenders, { runs, warmup: 1 });
  say(`MPICH (MPI_Init, an Allreduce, MPI_Finalize) with --mpi=pmi2, 22.05, ${runs} rounds:`);
  say('');
  const rows = [
    ['plugstack, one node', ms(m.oneNode)],
    ['plugstack, two nodes', ms(m.twoNodes)],
  ];
  if (m.real) rows.push(['real srun 22.05, one node', `${ms(m.real)}; real / plugstack ${(m.real.median / m.oneNode.median).toFixed(2)}x`]);
  say(table(['job', 'time'], rows));
  say(`load ${load(m.load)}`);
}

let accounting;
try {
  say(`plugstack benchmark: ${RUNS} interleaved rounds after ${WARMUP_ROUNDS} warm-up rounds; medians (min–max); load = 1-minute load average while it ran`);
  say(`machine: ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? '?'}, node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} at start`);
  say(`process costs at start: ${machineCosts()}`);
  // Before the real Slurms start, so that their daemons are counted too.
  if (ONLY.has('cost')) accounting = enterAccounting();
  for (const release of RELEASES) await startCluster(release);
  if (ONLY.has('srun') && !Object.keys(clusters).length)
    say('real Slurm: none started here (not root, not installed, or BENCH_REAL_SLURM=0): plugstack only');
  if (ONLY.has('srun')) await srunSection();
  if (ONLY.has('cost')) await costSection(accounting);
  if (ONLY.has('step')) await stepSection();
  if (ONLY.has('zygote')) await zygoteSection();
  if (ONLY.has('cli')) await cliSection();
  if (ONLY.has('check')) await checkSection();
  if (ONLY.has('mpi')) await mpiSection();
  say('');
  say(`load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} at the end; process costs at the end: ${machineCosts()}`);
} finally {
  for (const c of Object.values(clusters)) await stopSlurm(c.dir).catch((e) => console.error(`stopping ${c.dir}: ${e.message}`));
  accounting?.leave?.();
  fs.rmSync(work, { recursive: true, force: true });
  if (process.env.PLUGSTACK_CONFORMANCE_DIR) fs.rmSync(clusterBase, { recursive: true, force: true });
}
