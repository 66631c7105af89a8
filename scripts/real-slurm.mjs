#!/usr/bin/env node
// A real single-node Slurm (Debian's 22.05 packages) for the conformance
// suite, started and stopped by hand as real-slurm-22.05.md §1 describes:
//
//   node scripts/real-slurm.mjs start DIR PLUGSTACK_CONF   install if needed, configure in DIR, start, wait idle
//   node scripts/real-slurm.mjs restart-slurmd DIR         slurmd reads plugstack.conf only at start
//   node scripts/real-slurm.mjs resume DIR                 undrain the node
//   node scripts/real-slurm.mjs stop DIR                   stop exactly what start started
//
// Needs root (slurmd runs steps as any user). The node is called node0, the
// cluster plugstack and the partition debug, like plugstack's own, so the
// two can be compared without renaming. Clients need SLURM_CONF=DIR/slurm.conf.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const PACKAGES = ['munge', 'slurmctld', 'slurmd', 'slurm-client', 'libslurm-dev'];
export const NODE = 'node0';

function sh(cmd, args, options = {}) {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
}

function installed(pkg) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

export function install() {
  const missing = PACKAGES.filter((p) => !installed(p));
  if (!missing.length) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  sh('apt-get', ['update', '-qq'], { env });
  sh('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], { env });
}

function slurmConf(dir, plugstack) {
  return [
    'ClusterName=plugstack',
    'SlurmctldHost=localhost',
    'SlurmUser=root',
    'SlurmdUser=root',
    'AuthType=auth/munge',
    'ProctrackType=proctrack/linuxproc',
    'TaskPlugin=task/none',
    'SelectType=select/linear',
    'JobAcctGatherType=jobacct_gather/none',
    'AccountingStorageType=accounting_storage/none',
    'MpiDefault=none',
    'PropagateResourceLimits=NONE',
    'EnforcePartLimits=ALL',
    'MailProg=/bin/true',
    'ReturnToService=2',
    `PlugStackConfig=${plugstack}`,
    `StateSaveLocation=${dir}/state`,
    `SlurmdSpoolDir=${dir}/spool/%n`,
    `SlurmctldPidFile=${dir}/slurmctld.pid`,
    `SlurmdPidFile=${dir}/slurmd.pid`,
    `SlurmctldLogFile=${dir}/slurmctld.log`,
    `SlurmdLogFile=${dir}/slurmd.log`,
    'SlurmctldDebug=info',
    'SlurmdDebug=info',
    `NodeName=${NODE} NodeHostname=${sh('hostname', ['-s']).trim()} NodeAddr=127.0.0.1 CPUs=2 Sockets=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=1024 State=UNKNOWN`,
    `PartitionName=debug Nodes=${NODE} Default=YES MaxTime=INFINITE State=UP`,
    '',
  ].join('\n');
}

function pidOf(file) {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function sleep(ms) {
  await new Promise((r) => setTimeout(r, ms));
}

async function waitFor(what, test, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (test()) return;
    await sleep(50);
  }
  throw new Error(`real Slurm: ${what} not reached after ${ms} ms`);
}

function nodeState(dir) {
  const r = spawnSync('sinfo', ['-h', '-N', '-o', '%T'], { encoding: 'utf8', env: { ...process.env, SLURM_CONF: `${dir}/slurm.conf` } });
  return r.status === 0 ? r.stdout.trim() : '';
}

async function startSlurmd(dir) {
  const r = spawnSync('slurmd', ['-f', `${dir}/slurm.conf`, '-N', NODE], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`slurmd did not start: ${r.stderr}`);
  await waitFor('slurmd pid file', () => pidOf(`${dir}/slurmd.pid`) !== undefined, 10_000);
  await waitFor('node idle', () => /^idle/.test(nodeState(dir)), 30_000);
}

async function stopPid(pid, ms) {
  if (!pid || !alive(pid)) return;
  process.kill(pid, 'SIGTERM');
  const end = Date.now() + ms;
  while (alive(pid) && Date.now() < end) await sleep(50);
  if (alive(pid)) process.kill(pid, 'SIGKILL');
}

export async function start(dir, plugstack) {
  install();
  fs.mkdirSync(`${dir}/state`, { recursive: true });
  fs.mkdirSync(`${dir}/spool/${NODE}`, { recursive: true });
  fs.writeFileSync(`${dir}/slurm.conf`, slurmConf(dir, path.resolve(plugstack)));
  const started = {};
  // munged: the package made the key; start it unless one runs already.
  if (spawnSync('pgrep', ['-x', 'munged']).status !== 0) {
    fs.mkdirSync('/run/munge', { recursive: true });
    sh('chown', ['munge:munge', '/run/munge']);
    sh('runuser', ['-u', 'munge', '--', 'munged']);
    started.munged = Number(sh('pgrep', ['-x', '-n', 'munged']).trim());
  }
  fs.writeFileSync(`${dir}/started.json`, JSON.stringify(started));
  sh('slurmctld', ['-f', `${dir}/slurm.conf`]);
  await waitFor('slurmctld pid file', () => pidOf(`${dir}/slurmctld.pid`) !== undefined, 10_000);
  await startSlurmd(dir);
}

export async function restartSlurmd(dir) {
  await stopPid(pidOf(`${dir}/slurmd.pid`), 10_000);
  fs.rmSync(`${dir}/slurmd.pid`, { force: true });
  await startSlurmd(dir);
}

export async function resume(dir) {
  if (/drain/.test(nodeState(dir))) {
    spawnSync('scontrol', ['update', `NodeName=${NODE}`, 'State=RESUME'], { env: { ...process.env, SLURM_CONF: `${dir}/slurm.conf` } });
    await waitFor('node idle after resume', () => /^idle/.test(nodeState(dir)), 10_000);
  }
}

export async function waitIdle(dir) {
  await waitFor('node idle', () => /^idle$/.test(nodeState(dir)), 30_000);
}

export async function stop(dir) {
  await stopPid(pidOf(`${dir}/slurmd.pid`), 10_000);
  await stopPid(pidOf(`${dir}/slurmctld.pid`), 15_000);
  let started = {};
  try {
    started = JSON.parse(fs.readFileSync(`${dir}/started.json`, 'utf8'));
  } catch {
    // nothing of ours
  }
  await stopPid(started.munged, 5_000);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [verb, dir, conf] = process.argv.slice(2);
  if (!dir) {
    console.error('usage: real-slurm.mjs start DIR PLUGSTACK_CONF | restart-slurmd DIR | resume DIR | stop DIR');
    process.exit(2);
  }
  const run = { start: () => start(dir, conf), 'restart-slurmd': () => restartSlurmd(dir), resume: () => resume(dir), stop: () => stop(dir) }[verb];
  if (!run) {
    console.error(`unknown verb ${verb}`);
    process.exit(2);
  }
  await run();
}
