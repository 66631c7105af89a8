/**
 * Running a scenario on a real Slurm and on plugstack, with the trace
 * plugin compiled against each one's headers: Debian's 22.05 on this
 * machine against plugstack's 22.05 mode, Debian trixie's 24.11 (in the
 * root scripts/trixie-root.mjs makes, its commands in DIR/bin, plugins built
 * there with trixie's compiler against 24.11's own spank.h) against
 * plugstack's 24.11 mode.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Plugstack } from '../../lib/plugstack.js';
import { compilePlugin, fixturesDir, readLog } from '../helpers/plugins.js';
import type { RawRun } from './observe.js';
import type { Scenario, TraceLine } from './scenarios.js';

export type Release = '22.05' | '24.11';
export const ALL_RELEASES: Release[] = ['22.05', '24.11'];

/**
 * The releases the suite compares with (PLUGSTACK_CONFORMANCE_RELEASES=22.05
 * for one). Default: both, each against its real cluster.
 */
const DEFAULT_RELEASES: Release[] = ['22.05', '24.11'];
export function releases(): Release[] {
  const wanted = (process.env.PLUGSTACK_CONFORMANCE_RELEASES || DEFAULT_RELEASES.join(',')).split(',').map((r) => r.trim());
  for (const r of wanted) if (!ALL_RELEASES.includes(r as Release)) throw new Error(`PLUGSTACK_CONFORMANCE_RELEASES: no release ${r}`);
  return wanted as Release[];
}

/**
 * Where the global setup runs each real Slurm (24.11's must be under /tmp):
 * PLUGSTACK_CONFORMANCE_DIR (default /tmp/plugstack-conformance). With
 * PLUGSTACK_CONFORMANCE_PORT_BASE=N the clusters listen on N..N+3 instead of
 * their releases' ports, so a second run of the suite on the same machine
 * (another directory) does not meet the first.
 */
export const BASE_DIR = process.env.PLUGSTACK_CONFORMANCE_DIR || '/tmp/plugstack-conformance';
export const CLUSTER_DIRS: Record<Release, string> = {
  '22.05': path.join(BASE_DIR, 'slurm'),
  '24.11': path.join(BASE_DIR, 'slurm-24.11'),
};
/** REAL_SLURM_PORTS for a release's cluster (undefined: the release's own). */
export function clusterPorts(release: Release): string | undefined {
  const base = Number(process.env.PLUGSTACK_CONFORMANCE_PORT_BASE);
  if (!base) return undefined;
  const first = base + 2 * ALL_RELEASES.indexOf(release);
  return `${first}:${first + 1}`;
}
/** 22.05's slurm.conf (the cli_filter conformance uses it). */
export const SLURM_CONF = path.join(CLUSTER_DIRS['22.05'], 'slurm.conf');
const script = path.resolve(fixturesDir, '..', '..', '..', 'scripts', 'real-slurm.mjs');

/** One real cluster as the suite uses it. */
export class RealCluster {
  readonly dir: string;
  readonly conf: string;
  readonly plugstack: string;
  readonly log: string;
  private currentStack = '';

  constructor(readonly release: Release) {
    this.dir = CLUSTER_DIRS[release];
    this.conf = path.join(this.dir, 'slurm.conf');
    this.plugstack = path.join(this.dir, 'plugstack.conf');
    this.log = path.join(this.dir, 'trace.log');
  }

  /** The root 24.11 runs in (undefined for 22.05, which runs on this machine). */
  get root(): string | undefined {
    return (JSON.parse(fs.readFileSync(path.join(this.dir, 'started.json'), 'utf8')) as { root?: string }).root;
  }

  /** Where its commands are (undefined: the PATH). */
  get binDir(): string | undefined {
    return this.root ? path.join(this.dir, 'bin') : undefined;
  }

  /** A command of this cluster, for spawning. */
  command(name: string): string {
    return this.binDir ? path.join(this.binDir, name) : name;
  }

  verb(verb: string): void {
    execFileSync(process.execPath, [script, verb, this.dir], { stdio: 'inherit' });
  }

  /** A fixture plugin built against this release's own spank.h, with its compiler. */
  compile(source: string, options: { defines?: Record<string, string | number | true> } = {}): string {
    const root = this.root;
    if (!root) return compilePlugin(source, { include: '/usr/include', ...options });
    return compilePlugin(source, { include: path.join(root, 'usr', 'include'), compiler: this.command('cc'), ...options });
  }

  env(extra: Record<string, string> = {}): Record<string, string> {
    return { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', SLURM_CONF: this.conf, ...extra };
  }

  nodeState(): { state: string; reason: string } {
    const r = spawnSync(this.command('sinfo'), ['-h', '-N', '-o', '%T|%E'], { encoding: 'utf8', env: this.env() });
    const [state = '', reason = ''] = r.stdout.trim().split('|');
    return { state, reason };
  }

  /** Cancels every job still in the queue, and waits until none is. */
  cancelAll(): void {
    const ids = spawnSync(this.command('squeue'), ['-h', '-o', '%i'], { encoding: 'utf8', env: this.env() }).stdout.trim().split('\n').filter(Boolean);
    if (!ids.length) return;
    spawnSync(this.command('scancel'), ids, { env: this.env() });
    const end = Date.now() + 30_000;
    while (Date.now() < end && spawnSync(this.command('squeue'), ['-h', '-o', '%i'], { encoding: 'utf8', env: this.env() }).stdout.trim() !== '')
      spawnSync('sleep', ['0.1']);
  }

  /**
   * Cancels what is left in the queue and waits until the node has finished
   * with its jobs: slurmstepd's last callbacks and the epilog run after the
   * command has returned (on a loaded machine, after a log was read).
   */
  async settle(): Promise<void> {
    this.cancelAll();
    await until(() => /^(idle|drained)$/.test(this.nodeState().state), 60_000, 'node not idle');
  }

  /** Puts this plugstack.conf in place (slurmd reads it only when it starts). */
  useStack(conf: string): void {
    if (conf === this.currentStack) return;
    fs.writeFileSync(this.plugstack, conf);
    this.verb('restart-slurmd');
    this.currentStack = conf;
  }
}

const clusters = new Map<Release, RealCluster>();
export function cluster(release: Release): RealCluster {
  if (!clusters.has(release)) clusters.set(release, new RealCluster(release));
  return clusters.get(release)!;
}

/** The trace plugin (or another fixture) as plugstack loads it in this release's mode (plugstack's header). */
function ourTrace(release: Release, fixture = 'trace.c'): string {
  // trace.c takes PLUGIN_VERSION; the others SPANK_PLUGIN's SLURM_VERSION_NUMBER.
  return release === '22.05' ? compilePlugin(fixture, { defines: { PLUGIN_VERSION: 0x160508, SLURM_VERSION_NUMBER: 0x160508 } }) : compilePlugin(fixture);
}

/** The environment the real daemons run with (scripts/real-slurm.mjs DAEMON_ENV): plugstack's slurmd gets the same. */
export const DAEMON_ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };

function confText(so: string, log: string, stack: TraceLine[]): string {
  return stack.map((l) => [l.keyword, so, `log=${log}`, ...(l.args ?? [])].join(' ')).join('\n') + '\n';
}

async function until(test: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error(`real Slurm: ${what} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function runReal(release: Release, scenario: Scenario, cwd: string): Promise<RawRun> {
  const c = cluster(release);
  // What an earlier run left behind (a drain by an epilog that failed
  // after its command returned, a job whose scenario timed out) does not
  // carry over.
  c.cancelAll();
  c.verb('resume');
  c.useStack(confText(c.compile(scenario.fixture ?? 'trace.c'), c.log, scenario.stack));
  fs.writeFileSync(c.log, '');
  fs.chmodSync(c.log, 0o666);
  // Through plugstack's real-Slurm backend: the installed commands.
  const real = await Plugstack.load(c.plugstack, { backend: 'slurm', slurm: { conf: c.conf, ...(c.binDir ? { binDir: c.binDir } : {}) } });
  const result = await real[scenario.command]({ args: scenario.args, env: c.env(scenario.env), cwd, ...(scenario.script !== undefined ? { script: scenario.script } : {}), ...(scenario.stdin !== undefined ? { stdin: scenario.stdin } : {}) });
  const r = { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
  const jobOutput = result.output?.text;
  // A job left in the queue (a batch job requeued after its launch failed)
  // would run again in a later scenario.
  await c.settle();
  const { state, reason } = c.nodeState();
  const drained = state === 'drained' ? [`node0 ${reason}`] : [];
  if (scenario.restartSlurmd) c.verb('restart-slurmd');
  if (drained.length) c.verb('resume');
  return { exitCode: r.code, stdout: r.stdout, stderr: r.stderr, log: readLog(c.log), drained, ...(jobOutput !== undefined ? { jobOutput } : {}) };
}

export async function runPlugstack(release: Release, scenario: Scenario, cwd: string): Promise<RawRun> {
  const log = path.join(cwd, 'trace.log');
  const conf = path.join(cwd, 'plugstack.conf');
  fs.writeFileSync(conf, confText(ourTrace(release, scenario.fixture), log, scenario.stack));
  const stack = await Plugstack.load(conf, { slurmVersion: release, pluginDir: [], env: DAEMON_ENV });
  // The slurmd of scenario 07 was running before the command.
  const slurmd = scenario.restartSlurmd ? await stack.slurmd() : undefined;
  const before = fs.existsSync(log) ? readLog(log).length : 0;
  const result = await stack[scenario.command]({ args: scenario.args, env: cluster(release).env(scenario.env), cwd, ...(scenario.script !== undefined ? { script: scenario.script } : {}), ...(scenario.stdin !== undefined ? { stdin: scenario.stdin } : {}) });
  if (slurmd) {
    await slurmd.stop();
    await (await stack.slurmd()).stop();
  }
  const lines = readLog(log).slice(before);
  // The second slurmd's stop is not part of what the real run saw.
  if (slurmd) lines.splice(lines.findLastIndex((l) => l.startsWith('slurmd_exit ')), 1);
  return {
    exitCode: result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
    log: lines,
    drained: (result.job?.drained ?? []).map((d) => `${d.node} ${d.reason}`),
    ...(result.output ? { jobOutput: result.output.text } : {}),
  };
}
