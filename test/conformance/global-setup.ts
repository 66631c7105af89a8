/** Starts the real Slurm for the conformance suite, and stops exactly what it started. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CLUSTER_DIR = '/tmp/plugstack-conformance/slurm';
const script = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'real-slurm.mjs');

export function setup(): () => void {
  if (process.getuid?.() !== 0) throw new Error('the conformance suite runs a real slurmd and needs root');
  fs.rmSync(CLUSTER_DIR, { recursive: true, force: true });
  fs.mkdirSync(CLUSTER_DIR, { recursive: true });
  fs.writeFileSync(path.join(CLUSTER_DIR, 'plugstack.conf'), '');
  execFileSync(process.execPath, [script, 'start', CLUSTER_DIR, path.join(CLUSTER_DIR, 'plugstack.conf')], { stdio: 'inherit' });
  return () => {
    execFileSync(process.execPath, [script, 'stop', CLUSTER_DIR], { stdio: 'inherit' });
  };
}
