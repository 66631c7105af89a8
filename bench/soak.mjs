#!/usr/bin/env node
// The memory and descriptors of one Node process over many steps with
// faults: 500 steps to warm up (V8 sizes its heap to the allocation rate),
// then 1000 more, reporting RSS, heap and descriptors every 250 steps and
// the growth after the warm-up. `npm run bench` runs it after the speed
// benchmark.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Plugstack } from '../dist/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WARM = Number(process.env.SOAK_WARMUP ?? 500);
const STEPS = Number(process.env.SOAK_STEPS ?? 1000);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plugstack-soak-'));
const so = path.join(dir, 'recorder.so');
execFileSync('cc', ['-shared', '-fPIC', `-I${path.join(root, 'include')}`, '-o', so, path.join(root, 'test', 'fixtures', 'plugins', 'recorder.c')], { stdio: 'ignore' });
const faults = ['', 'crash=user_init', 'daemon=init:plugstack-soak', 'leakfd=task_init', 'exit=task_exit', 'crash=task_init only=1'];
const stacks = [];
for (const [i, f] of faults.entries()) {
  const conf = path.join(dir, `p${i}.conf`);
  fs.writeFileSync(conf, `required ${so} ${f} context=remote\n`);
  stacks.push(await Plugstack.load(conf, { pluginDir: [] }));
}
const sample = () => {
  global.gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss / 1048576, heap: m.heapUsed / 1048576, fds: fs.readdirSync('/proc/self/fd').length };
};
let warm;
console.log(`soak: ${WARM} steps of warm-up, then ${STEPS}, each 2 tasks, faults in 5 of 6${global.gc ? '' : ' (run node with --expose-gc for steadier numbers)'}`);
for (let i = 1; i <= WARM + STEPS; i++) {
  await stacks[i % stacks.length].launchStep({ argv: ['true'], ntasks: 2 });
  if (i === WARM) warm = sample();
  if (i % 250 === 0) {
    const s = sample();
    console.log(`${String(i).padStart(5)} steps: RSS ${s.rss.toFixed(1)} MB, heap ${s.heap.toFixed(1)} MB, descriptors ${s.fds}`);
  }
}
const end = sample();
console.log(`after warm-up: RSS ${(end.rss - warm.rss >= 0 ? '+' : '')}${(end.rss - warm.rss).toFixed(1)} MB (target: at most +5 MB), descriptors ${end.fds - warm.fds >= 0 ? '+' : ''}${end.fds - warm.fds}`);
fs.rmSync(dir, { recursive: true, force: true });
