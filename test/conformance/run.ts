/**
 * Running a scenario on the real Slurm and on plugstack, with the trace
 * plugin compiled against each one's headers.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Plugstack } from '../../lib/plugstack.js';
import { compilePlugin, fixturesDir, readLog } from '../helpers/plugins.js';
import type { RawRun } from './observe.js';
import type { Scenario, TraceLine } from './scenarios.js';

/** Where the global setup runs the real Slurm. */
export const CLUSTER_DIR = '/tmp/plugstack-conformance/slurm';
export const SLURM_CONF = path.join(CLUSTER_DIR, 'slurm.conf');
const REAL_PLUGSTACK = path.join(CLUSTER_DIR, 'plugstack.conf');
const REAL_LOG = path.join(CLUSTER_DIR, 'trace.log');
const script = path.resolve(fixturesDir, '..', '..', '..', 'scripts', 'real-slurm.mjs');

function clusterCommand(verb: string): void {
  execFileSync(process.execPath, [script, verb, CLUSTER_DIR], { stdio: 'inherit' });
}

/** The trace plugin built against Debian's own /usr/include/slurm/spank.h. */
function realTrace(): string {
  return compilePlugin('trace.c', { include: '/usr/include' });
}

function ourTrace(): string {
  return compilePlugin('trace.c', { defines: { PLUGIN_VERSION: 0x160508 } });
}

function confText(so: string, log: string, stack: TraceLine[]): string {
  return stack.map((l) => [l.keyword, so, `log=${log}`, ...(l.args ?? [])].join(' ')).join('\n') + '\n';
}

function slurmEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', SLURM_CONF, ...extra };
}

function nodeState(): { state: string; reason: string } {
  const r = spawnSync('sinfo', ['-h', '-N', '-o', '%T|%E'], { encoding: 'utf8', env: slurmEnv() });
  const [state = '', reason = ''] = r.stdout.trim().split('|');
  return { state, reason };
}

async function until(test: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error(`real Slurm: ${what} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let currentStack = '';

export async function runReal(scenario: Scenario, cwd: string): Promise<RawRun> {
  const conf = confText(realTrace(), REAL_LOG, scenario.stack);
  // slurmd reads plugstack.conf only when it starts.
  if (conf !== currentStack) {
    fs.writeFileSync(REAL_PLUGSTACK, conf);
    clusterCommand('restart-slurmd');
    currentStack = conf;
  }
  fs.writeFileSync(REAL_LOG, '');
  fs.chmodSync(REAL_LOG, 0o666);
  // Through plugstack's real-Slurm backend: the installed commands.
  const real = await Plugstack.load(REAL_PLUGSTACK, { backend: 'slurm', slurm: { conf: SLURM_CONF } });
  const result = await real[scenario.command]({ args: scenario.args, env: slurmEnv(scenario.env), cwd, ...(scenario.script !== undefined ? { script: scenario.script } : {}) });
  const r = { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
  const jobOutput = result.output?.text;
  // The epilog runs after the job: wait until the node has finished with it.
  await until(() => /^(idle|drained)$/.test(nodeState().state), 60_000, 'node not idle');
  const { state, reason } = nodeState();
  const drained = state === 'drained' ? [`node0 ${reason}`] : [];
  if (scenario.restartSlurmd) clusterCommand('restart-slurmd');
  if (drained.length) clusterCommand('resume');
  return { exitCode: r.code, stdout: r.stdout, stderr: r.stderr, log: readLog(REAL_LOG), drained, ...(jobOutput !== undefined ? { jobOutput } : {}) };
}

export async function runPlugstack(scenario: Scenario, cwd: string): Promise<RawRun> {
  const log = path.join(cwd, 'trace.log');
  const conf = path.join(cwd, 'plugstack.conf');
  fs.writeFileSync(conf, confText(ourTrace(), log, scenario.stack));
  const stack = await Plugstack.load(conf, { slurmVersion: '22.05', pluginDir: [] });
  // The slurmd of scenario 07 was running before the command.
  const slurmd = scenario.restartSlurmd ? await stack.slurmd() : undefined;
  const before = fs.existsSync(log) ? readLog(log).length : 0;
  const result = await stack[scenario.command]({ args: scenario.args, env: slurmEnv(scenario.env), cwd, ...(scenario.script !== undefined ? { script: scenario.script } : {}) });
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
