/**
 * Starts the real Slurms for the conformance suite (22.05 on this machine,
 * 24.11 in its trixie root; PLUGSTACK_CONFORMANCE_RELEASES chooses), side by
 * side, and stops exactly what it started.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CLUSTER_DIRS, clusterPorts, releases, type Release } from './run.js';

const script = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'real-slurm.mjs');
const run = promisify(execFile);

async function verb(args: string[], release?: Release): Promise<void> {
  const started = Date.now();
  const ports = release ? clusterPorts(release) : undefined;
  const env = { ...process.env, ...(ports ? { REAL_SLURM_PORTS: ports } : {}) };
  const r = await run(process.execPath, [script, ...args], { maxBuffer: 16 << 20, env });
  process.stderr.write(r.stderr);
  process.stderr.write(`real Slurm: ${args[0]} ${args[1]}${args[3] ? ` (${args[3]})` : ''} took ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

export async function setup(): Promise<() => Promise<void>> {
  if (process.getuid?.() !== 0) throw new Error('the conformance suite runs a real slurmd and needs root');
  const dirs = releases().map((release) => ({ release, dir: CLUSTER_DIRS[release] }));
  const stopAll = async () => {
    const results = await Promise.allSettled(dirs.map(({ dir }) => verb(['stop', dir])));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  };
  for (const { dir } of dirs) {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'plugstack.conf'), '');
  }
  const started = await Promise.allSettled(dirs.map(({ release, dir }) => verb(['start', dir, path.join(dir, 'plugstack.conf'), release], release)));
  const failed = started.find((r) => r.status === 'rejected');
  if (failed) {
    await stopAll().catch(() => {});
    throw (failed as PromiseRejectedResult).reason;
  }
  return stopAll;
}
