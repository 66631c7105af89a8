#!/usr/bin/env node
// A real single-node Slurm for the conformance suite, started and stopped
// by hand (no systemd): Debian's 22.05 packages on this machine, or
// Debian trixie's 24.11 in a root of its own (scripts/trixie-root.mjs).
//
//   node scripts/real-slurm.mjs start DIR PLUGSTACK_CONF [22.05|24.11]
//                                                          install if needed, configure in DIR, start, wait idle
//   node scripts/real-slurm.mjs restart-slurmd DIR         slurmd reads plugstack.conf only at start
//   node scripts/real-slurm.mjs resume DIR                 undrain the node
//   node scripts/real-slurm.mjs stop DIR                   stop exactly what start started
//
// REAL_SLURM_PORTS=CTLD:SLURMD at start chooses other ports (22.05 uses
// Slurm's defaults, 6817 and 6818, 24.11 7817 and 7818). REAL_SLURM_NODES=N
// at start makes a cluster of N nodes, node0..node<N-1> (Debian's slurmd of
// both releases is built to run several on one machine): each its own
// slurmd, on the slurmd port plus its number, with its own pid and log file
// (slurmd-node1.pid, ...). REAL_SLURM_NODE_CPUS=1,1,2 gives the nodes those
// CPU counts (at most the machine's two), each run of equal counts a
// NodeName line of its own, as a site with two kinds of nodes writes them.
//
// Needs root (slurmd runs steps as any user). The node is called node0, the
// cluster plugstack and the partition debug, like plugstack's own, so the
// two can be compared without renaming. Clients need SLURM_CONF=DIR/slurm.conf.
//
// 24.11 runs in the trixie root: a holder process (`unshare --mount`, then
// sleep) keeps a mount namespace in which /proc, /sys, /dev, /dev/pts, /tmp
// and this repository are bind-mounted into the root (the last two at their
// own paths, so paths under /tmp and the repository mean the same inside and
// out); munged (the root's, with the root's key), slurmctld and
// slurmd run in it on ports other than 22.05's, so both releases can run at
// once. Every cluster has a munged of its own, its socket in a directory of
// its own under /tmp (slurm.conf's AuthInfo=socket=...; /tmp so that the
// munge user and every client can reach it whatever DIR's modes, and the
// 24.11 root sees it at the same path): two clusters on one machine, of one
// release or both, never share one, so stopping one cannot take the other's
// credentials away. DIR must be under /tmp. DIR/bin holds the root's commands (srun,
// sbatch, salloc, sinfo, scontrol, squeue, scancel, cc) as links to a small
// program (scripts/in-root.c) that enters the namespace and the root and
// runs the command in the caller's directory with the caller's environment,
// untouched. stop ends the daemons by pid (checked against their
// executable in the root), then whatever else still runs in the namespace
// (slurmstepd), then the holder: the namespace and its mounts go with it.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureRoot } from './trixie-root.mjs';

const PACKAGES = ['munge', 'slurmctld', 'slurmd', 'slurm-client', 'libslurm-dev'];
export const NODE = 'node0';

/** REAL_SLURM_NODES=N: the node count of a cluster being started (default 1). */
function nodeCountOf() {
  const n = Number(process.env.REAL_SLURM_NODES ?? 1);
  if (!Number.isInteger(n) || n < 1 || n > 16) throw new Error(`REAL_SLURM_NODES: a node count from 1 to 16, not ${process.env.REAL_SLURM_NODES}`);
  return n;
}

/** REAL_SLURM_NODE_CPUS: each node's CPU count (default two each). */
function nodeCpusOf(n) {
  const text = process.env.REAL_SLURM_NODE_CPUS;
  if (!text) return Array.from({ length: n }, () => 2);
  const cpus = text.split(',').map(Number);
  if (cpus.length !== n || cpus.some((c) => c !== 1 && c !== 2)) throw new Error(`REAL_SLURM_NODE_CPUS: ${n} counts of 1 or 2, not ${text}`);
  return cpus;
}

/** slurm.conf's NodeName lines: a line per run of nodes of one CPU count. */
function nodeLines(n, cpus, slurmdPort) {
  const host = sh('hostname', ['-s']).trim();
  if (n === 1) return [`NodeName=${NODE} NodeHostname=${host} NodeAddr=127.0.0.1 CPUs=${cpus[0]} Sockets=1 CoresPerSocket=${cpus[0]} ThreadsPerCore=1 RealMemory=1024 State=UNKNOWN`];
  const lines = [];
  for (let first = 0; first < n; ) {
    let last = first;
    while (last + 1 < n && cpus[last + 1] === cpus[first]) last++;
    const names = first === last ? `node${first}` : `node[${first}-${last}]`;
    const ports = first === last ? `${slurmdPort + first}` : `[${slurmdPort + first}-${slurmdPort + last}]`;
    lines.push(`NodeName=${names} Port=${ports} NodeHostname=${host} NodeAddr=127.0.0.1 CPUs=${cpus[first]} Sockets=1 CoresPerSocket=${cpus[first]} ThreadsPerCore=1 RealMemory=1024 State=UNKNOWN`);
    first = last + 1;
  }
  return lines;
}

/** The nodes of a cluster of n nodes: node0, node1, ... */
function nodeNames(n) {
  return Array.from({ length: n }, (_, i) => `node${i}`);
}

/** The nodes of a started cluster (started.json). */
function clusterNodes(dir) {
  return nodeNames(readState(dir).nodes ?? 1);
}

/** Where a node's slurmd writes its pid: slurmd.pid for a cluster of one node, slurmd-NODE.pid otherwise. */
function slurmdPidFile(dir, node) {
  return (readState(dir).nodes ?? 1) > 1 ? `${dir}/slurmd-${node}.pid` : `${dir}/slurmd.pid`;
}
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** What differs between the two real releases' clusters. */
export const RELEASES = {
  '22.05': { ports: undefined, inRoot: false },
  '24.11': { ports: { ctld: 7817, slurmd: 7818 }, inRoot: true },
};
/** The commands of the 24.11 root that DIR/bin provides. */
const ROOT_COMMANDS = ['srun', 'sbatch', 'salloc', 'sinfo', 'scontrol', 'squeue', 'scancel', 'sacct', 'cc', 'gcc'];

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

/** REAL_SLURM_PORTS=CTLD:SLURMD: other ports than the release's (a second cluster of one release). */
function portsOf(release) {
  const m = /^(\d+):(\d+)$/.exec(process.env.REAL_SLURM_PORTS ?? '');
  return m ? { ctld: Number(m[1]), slurmd: Number(m[2]) } : RELEASES[release].ports;
}

function slurmConf(dir, plugstack, release, mungeSocket, nodes) {
  const ports = portsOf(release);
  const slurmdPortBase = ports?.slurmd ?? 6818;
  const many = nodes > 1;
  const names = many ? `node[0-${nodes - 1}]` : NODE;
  return [
    'ClusterName=plugstack',
    'SlurmctldHost=localhost',
    ...(ports ? [`SlurmctldPort=${ports.ctld}`, `SlurmdPort=${ports.slurmd}`] : []),
    'SlurmUser=root',
    'SlurmdUser=root',
    'AuthType=auth/munge',
    `AuthInfo=socket=${mungeSocket}`,
    'ProctrackType=proctrack/linuxproc',
    'TaskPlugin=task/none',
    'SelectType=select/linear',
    // 24.11 no longer ships the "none" plugins of these: left unset there.
    ...(release === '22.05' ? ['JobAcctGatherType=jobacct_gather/none', 'AccountingStorageType=accounting_storage/none'] : []),
    'MpiDefault=none',
    'EnforcePartLimits=ALL',
    'MailProg=/bin/true',
    'ReturnToService=2',
    `PlugStackConfig=${plugstack}`,
    `StateSaveLocation=${dir}/state`,
    `SlurmdSpoolDir=${dir}/spool/%n`,
    `SlurmctldPidFile=${dir}/slurmctld.pid`,
    `SlurmdPidFile=${dir}/slurmd${many ? '-%n' : ''}.pid`,
    `SlurmctldLogFile=${dir}/slurmctld.log`,
    `SlurmdLogFile=${dir}/slurmd${many ? '-%n' : ''}.log`,
    'SlurmctldDebug=info',
    'SlurmdDebug=info',
    ...nodeLines(nodes, nodeCpusOf(nodes), slurmdPortBase),
    `PartitionName=debug Nodes=${names} Default=YES MaxTime=INFINITE State=UP`,
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

/** The executable of a live process, as this machine sees it ('' if gone or a zombie). */
function exeOf(pid) {
  try {
    return fs.readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return '';
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

function readState(dir) {
  try {
    return JSON.parse(fs.readFileSync(`${dir}/started.json`, 'utf8'));
  } catch {
    return {};
  }
}

/** Where a command of the cluster is: DIR/bin for the root's, the PATH for 22.05's. */
export function command(dir, name) {
  const state = readState(dir);
  return state.release && RELEASES[state.release].inRoot ? `${dir}/bin/${name}` : name;
}

/**
 * The environment the daemons start with, as a service manager gives it:
 * slurmd's is what every slurmstepd and (for what srun does not send) every
 * task starts from, so it must not be whatever this script was run with.
 */
export const DAEMON_ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };

/** The socket of a cluster's own munged, in its directory. */
const mungeSocket = (mungeDir) => `${mungeDir}/munge.socket.2`;

/**
 * Starts the cluster's own munged in its directory (socket, pid, log and
 * seed), which is owned by the munge user of the machine or of the root
 * and open to everyone for the socket alone (munged asks that); the key is
 * the machine's or the root's.
 */
async function startMunged(dir, mungeDir) {
  const [chown, ...chownArgs] = daemon(dir, ['chown', 'munge:munge', mungeDir]);
  sh(chown, chownArgs);
  fs.chmodSync(mungeDir, 0o711);
  const argv = ['runuser', '-u', 'munge', '--', '/usr/sbin/munged', `--socket=${mungeSocket(mungeDir)}`, `--pid-file=${mungeDir}/munged.pid`, `--log-file=${mungeDir}/munged.log`, `--seed-file=${mungeDir}/munged.seed`];
  const [cmd, ...args] = daemon(dir, argv);
  sh(cmd, args, { env: DAEMON_ENV });
  await waitFor('munged pid file', () => pidOf(`${mungeDir}/munged.pid`) !== undefined, 10_000);
  return pidOf(`${mungeDir}/munged.pid`);
}

/** argv of a daemon of the cluster (run in the root for 24.11). */
function daemon(dir, argv) {
  const state = readState(dir);
  if (!RELEASES[state.release].inRoot) return argv;
  return ['nsenter', '--target', String(state.holder), '--mount', '--', 'chroot', state.root, ...argv];
}

function nodeState(dir) {
  const r = spawnSync(command(dir, 'sinfo'), ['-h', '-N', '-o', '%T'], { encoding: 'utf8', env: { ...process.env, SLURM_CONF: `${dir}/slurm.conf` } });
  return r.status === 0 ? r.stdout.trim() : '';
}

/** Every node's state is idle (idle+... included, unless exact). */
function allIdle(dir, exact = false) {
  const states = nodeState(dir).split('\n').filter(Boolean);
  return states.length === clusterNodes(dir).length && states.every((s) => (exact ? s === 'idle' : /^idle/.test(s)));
}

async function startSlurmd(dir, nodes = clusterNodes(dir)) {
  for (const node of nodes) {
    const [cmd, ...args] = daemon(dir, ['/usr/sbin/slurmd', '-f', `${dir}/slurm.conf`, '-N', node]);
    const r = spawnSync(cmd, args, { encoding: 'utf8', env: DAEMON_ENV });
    if (r.status !== 0) throw new Error(`slurmd of ${node} did not start: ${r.stderr}`);
  }
  // A loaded machine (a 24.11 slurmd restarted in its root while tests run)
  // has taken over 10 s here; one that gives up says why from its log.
  for (const node of nodes) {
    const pidFile = slurmdPidFile(dir, node);
    try {
      await waitFor(`slurmd pid file of ${node}`, () => pidOf(pidFile) !== undefined, 30_000);
    } catch (error) {
      const logFile = pidFile.replace(/\.pid$/, '.log');
      const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-5).join('\n') : `(no ${path.basename(logFile)})`;
      throw new Error(`${error.message}; the end of ${path.basename(logFile)}:\n${log}`);
    }
  }
  await waitFor('nodes idle', () => allIdle(dir), 30_000);
}

async function stopPid(pid, ms, exe) {
  if (!pid || !alive(pid)) return;
  // Only the process that was started: a pid reused since is left alone.
  if (exe && !exe(exeOf(pid))) return;
  process.kill(pid, 'SIGTERM');
  const end = Date.now() + ms;
  while (alive(pid) && exeOf(pid) !== '' && Date.now() < end) await sleep(50);
  if (alive(pid) && exeOf(pid) !== '') {
    process.kill(pid, 'SIGKILL');
    // Gone only once the kernel has closed its sockets: a daemon started
    // again sooner cannot bind its port.
    const killed = Date.now() + 5_000;
    while (alive(pid) && exeOf(pid) !== '' && Date.now() < killed) await sleep(50);
  }
}

/** The cluster's slurmd port (slurm.conf's SlurmdPort, Slurm's 6818 by default): its first node's. */
function slurmdPort(dir) {
  const m = /^SlurmdPort=(\d+)/m.exec(fs.readFileSync(`${dir}/slurm.conf`, 'utf8'));
  return m ? Number(m[1]) : 6818;
}

/** Is some socket of this machine listening on this TCP port? (/proc/net/tcp and tcp6: state 0A) */
function listening(port) {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].some((file) => {
    if (!fs.existsSync(file)) return false;
    return fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .slice(1)
      .some((line) => {
        const [, local, , state] = line.trim().split(/\s+/);
        return state === '0A' && local?.endsWith(`:${hex}`);
      });
  });
}

/** The mount namespace of a process ('' if gone). */
function mountNs(pid) {
  try {
    return fs.readlinkSync(`/proc/${pid}/ns/mnt`);
  } catch {
    return '';
  }
}

/** Processes other than the holder in the holder's mount namespace. */
function inNamespace(holder) {
  const ns = mountNs(holder);
  if (!ns) return [];
  return fs
    .readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((pid) => pid !== holder && mountNs(pid) === ns && exeOf(pid) !== '');
}

/** The holder of the 24.11 root's mount namespace, with its bind mounts made. */
async function startHolder(dir, root) {
  const mounts = [
    ...['proc', 'sys', 'dev', 'dev/pts'].map((d) => `mount --bind /${d} "$0/${d}"`),
    'mount --bind /tmp "$0/tmp"',
    'mkdir -p "$0$1"',
    'mount --bind "$1" "$0$1"',
  ].join(' && ');
  const child = spawn('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', `${mounts} && exec sleep infinity`, root, repo], {
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
  const holder = child.pid;
  // Ready once sh has made the mounts and become sleep.
  await waitFor('the root namespace', () => {
    if (!alive(holder)) throw new Error('real Slurm 24.11: the bind mounts of the root failed');
    return exeOf(holder).endsWith('/sleep');
  }, 10_000);
  return holder;
}

/** DIR/bin: the root's commands, each a link to in-root built for this namespace. */
function commandLinks(dir, root, holder) {
  const bin = `${dir}/bin`;
  fs.mkdirSync(bin, { recursive: true });
  const exe = `${bin}/in-root`;
  sh('cc', ['-O2', '-Wall', `-DHOLDER_NS="/proc/${holder}/ns/mnt"`, `-DROOT="${root}"`, '-o', exe, path.join(repo, 'scripts', 'in-root.c')]);
  for (const name of ROOT_COMMANDS) {
    fs.rmSync(`${bin}/${name}`, { force: true });
    fs.symlinkSync('in-root', `${bin}/${name}`);
  }
}

export async function start(dir, plugstack, release = '22.05') {
  if (!RELEASES[release]) throw new Error(`real Slurm: no release ${release} (22.05, 24.11)`);
  dir = path.resolve(dir);
  // A cluster this script started in DIR before, and never stopped, goes
  // first: its daemons are known only by what DIR/started.json says.
  if (fs.existsSync(`${dir}/started.json`)) await stop(dir);
  const { inRoot } = RELEASES[release];
  if (inRoot && !dir.startsWith('/tmp/')) throw new Error(`real Slurm ${release}: DIR must be under /tmp (${dir})`);
  const root = inRoot ? ensureRoot() : undefined;
  if (!inRoot) install();
  const nodes = nodeCountOf();
  fs.mkdirSync(`${dir}/state`, { recursive: true });
  for (const node of nodeNames(nodes)) fs.mkdirSync(`${dir}/spool/${node}`, { recursive: true });
  const mungeDir = fs.mkdtempSync('/tmp/plugstack-munge-');
  fs.writeFileSync(`${dir}/slurm.conf`, slurmConf(dir, path.resolve(plugstack), release, mungeSocket(mungeDir), nodes));
  // 24.11's slurmd initialises a cgroup plugin even with proctrack/linuxproc
  // and task/none; the root has no cgroup file system (and should touch no
  // cgroup of this machine's): disabled.
  if (release !== '22.05') fs.writeFileSync(`${dir}/cgroup.conf`, 'CgroupPlugin=disabled\n');
  const started = { release, mungeDir, nodes, ...(root ? { root } : {}) };
  const save = () => fs.writeFileSync(`${dir}/started.json`, JSON.stringify(started));
  save();
  if (inRoot) {
    started.holder = await startHolder(dir, root);
    save();
    commandLinks(dir, root, started.holder);
  }
  started.munged = await startMunged(dir, mungeDir);
  save();
  const [cmd, ...args] = daemon(dir, ['/usr/sbin/slurmctld', '-f', `${dir}/slurm.conf`]);
  sh(cmd, args, { env: DAEMON_ENV });
  await waitFor('slurmctld pid file', () => pidOf(`${dir}/slurmctld.pid`) !== undefined, 10_000);
  await startSlurmd(dir);
}

/**
 * What the cluster's slurmctld makes of other node and partition lines: a
 * slurmctld of the release started in the foreground (-D, -i) on a copy of
 * the cluster's slurm.conf whose NodeName and PartitionName lines are these,
 * with a port, state, pid and log of its own beside the cluster's (DIR/ctld-check),
 * stopped after timeoutMs if it has not ended by then. Its exit status (null
 * when it was still running) and the lines of its log.
 */
export function controllerStartup(dir, lines, timeoutMs = 20_000) {
  dir = path.resolve(dir);
  const work = `${dir}/ctld-check`;
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(`${work}/state`, { recursive: true });
  const own = { SlurmctldPort: String(slurmdPort(dir) + 40), StateSaveLocation: `${work}/state`, SlurmctldPidFile: `${work}/slurmctld.pid`, SlurmctldLogFile: `${work}/slurmctld.log` };
  const kept = fs
    .readFileSync(`${dir}/slurm.conf`, 'utf8')
    .split('\n')
    .filter((l) => l !== '' && !/^(NodeName|PartitionName|SlurmctldPort|StateSaveLocation|SlurmctldPidFile|SlurmctldLogFile)=/.test(l));
  fs.writeFileSync(`${work}/slurm.conf`, [...kept, ...Object.entries(own).map(([k, v]) => `${k}=${v}`), ...lines, ''].join('\n'));
  const [cmd, ...args] = daemon(dir, ['/usr/sbin/slurmctld', '-D', '-i', '-f', `${work}/slurm.conf`]);
  const r = spawnSync(cmd, args, { env: DAEMON_ENV, timeout: timeoutMs, killSignal: 'SIGKILL', stdio: 'ignore' });
  const log = fs.existsSync(own.SlurmctldLogFile) ? fs.readFileSync(own.SlurmctldLogFile, 'utf8').split('\n').filter(Boolean) : [];
  fs.rmSync(work, { recursive: true, force: true });
  return { status: r.status, log };
}

/** Is this executable the daemon of this cluster's release? */
function daemonExe(dir, names) {
  const state = readState(dir);
  // /proc/<pid>/exe names the real path: a root reached through a symbolic link is compared by its own.
  const prefix = state.root ? fs.realpathSync(state.root) : '';
  return (exe) => names.some((n) => exe === `${prefix}/usr/sbin/${n}`);
}

export async function restartSlurmd(dir) {
  const exe = daemonExe(dir, ['slurmd', 'slurmd-wlm']);
  const nodes = clusterNodes(dir);
  // On a loaded machine the old slurmd's listening socket has outlived its
  // stop here: the new one then failed with "Unable to bind listen port".
  // And a 24.11 slurmd that `scontrol reconfigure` reached execs a new
  // slurmd that takes over its listening socket and writes the pid file
  // again: the pid read first may be the one already on its way out. So
  // whichever slurmd the pid file names is stopped until the port is free.
  const end = Date.now() + 20_000;
  for (const [i, node] of nodes.entries()) {
    const port = slurmdPort(dir) + i;
    const pidFile = slurmdPidFile(dir, node);
    for (;;) {
      await stopPid(pidOf(pidFile), 10_000, exe);
      try {
        await waitFor(`slurmd port ${port} free`, () => !listening(port), Math.min(3_000, Math.max(0, end - Date.now())));
        break;
      } catch (error) {
        if (Date.now() >= end) throw error;
      }
    }
    fs.rmSync(pidFile, { force: true });
  }
  await startSlurmd(dir, nodes);
}

export async function resume(dir) {
  if (/drain/.test(nodeState(dir))) {
    const nodes = clusterNodes(dir);
    const list = nodes.length > 1 ? `node[0-${nodes.length - 1}]` : NODE;
    spawnSync(command(dir, 'scontrol'), ['update', `NodeName=${list}`, 'State=RESUME'], { env: { ...process.env, SLURM_CONF: `${dir}/slurm.conf` } });
    await waitFor('nodes idle after resume', () => allIdle(dir), 10_000);
  }
}

export async function waitIdle(dir) {
  await waitFor('nodes idle', () => allIdle(dir, true), 30_000);
}

export async function stop(dir) {
  dir = path.resolve(dir);
  const state = readState(dir);
  for (const node of clusterNodes(dir)) await stopPid(pidOf(slurmdPidFile(dir, node)), 10_000, daemonExe(dir, ['slurmd', 'slurmd-wlm']));
  await stopPid(pidOf(`${dir}/slurmctld.pid`), 15_000, daemonExe(dir, ['slurmctld', 'slurmctld-wlm']));
  await stopPid(state.munged, 5_000, daemonExe(dir, ['munged']));
  if (state.mungeDir?.startsWith('/tmp/plugstack-munge-')) fs.rmSync(state.mungeDir, { recursive: true, force: true });
  if (state.holder && exeOf(state.holder).endsWith('/sleep')) {
    // Steps still winding down (slurmstepd) get a moment, then are ended:
    // they are this namespace's, started by the slurmd above.
    const end = Date.now() + 5_000;
    while (inNamespace(state.holder).length && Date.now() < end) await sleep(50);
    const left = inNamespace(state.holder);
    for (const pid of left) {
      process.stderr.write(`real Slurm: ending ${exeOf(pid)} (pid ${pid}), left in the root's namespace\n`);
      process.kill(pid, 'SIGKILL');
    }
    process.kill(state.holder, 'SIGKILL');
    await waitFor('the root namespace to end', () => exeOf(state.holder) === '', 5_000);
  }
  // Stopped: nothing of it is left to stop (its pids may be someone else's later).
  fs.rmSync(`${dir}/started.json`, { force: true });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [verb, dir, conf, release] = process.argv.slice(2);
  if (!dir) {
    console.error('usage: real-slurm.mjs start DIR PLUGSTACK_CONF [22.05|24.11] | restart-slurmd DIR | resume DIR | stop DIR');
    process.exit(2);
  }
  const run = { start: () => start(dir, conf, release), 'restart-slurmd': () => restartSlurmd(dir), resume: () => resume(dir), stop: () => stop(dir) }[verb];
  if (!run) {
    console.error(`unknown verb ${verb}`);
    process.exit(2);
  }
  await run();
}
