#!/usr/bin/env node
// The memory and descriptors of one Node process over many steps with
// faults: 3000 steps to warm up, then 1000 more. RSS, heap and descriptors
// are sampled (after a full GC) every 50 steps; the growth is the
// least-squares slope over the samples after the warm-up, per 1000 steps,
// so that a leak (a steady rise) is told from the garbage collector's ups
// and downs. The warm-up is that long because V8 sizes its young
// generation to the allocation rate: here it grows it once (the heap it
// holds goes from ~15 to ~23.5 MB, RSS ~6 MB with it), then stays, flat
// to 5500 steps; when depends on how fast the steps go (around step 1400
// when first measured, 2250-2500 once a step's calls were announced in
// shared memory). The heap in use stays flat throughout, and a leak shows there. Target: at most 5 MB per 1000 steps, descriptors flat.
// `npm run bench` runs it after the speed benchmark.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Plugstack } from '../dist/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WARM = Number(process.env.SOAK_WARMUP ?? 3000);
const STEPS = Number(process.env.SOAK_STEPS ?? 1000);
const EVERY = 50;

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
const sample = (step) => {
  global.gc?.();
  const m = process.memoryUsage();
  return { step, rss: m.rss / 1048576, heap: m.heapUsed / 1048576, heapTotal: m.heapTotal / 1048576, fds: fs.readdirSync('/proc/self/fd').length };
};
/** Least-squares slope of key over step, per 1000 steps. */
function slope(samples, key) {
  const n = samples.length;
  const mx = samples.reduce((a, s) => a + s.step, 0) / n;
  const my = samples.reduce((a, s) => a + s[key], 0) / n;
  let num = 0;
  let den = 0;
  for (const s of samples) {
    num += (s.step - mx) * (s[key] - my);
    den += (s.step - mx) ** 2;
  }
  return den ? (1000 * num) / den : 0;
}
const signed = (x, digits = 1) => `${x >= 0 ? '+' : ''}${x.toFixed(digits)}`;

console.log(`soak: ${WARM} steps of warm-up, then ${STEPS}, each 2 tasks, faults in 5 of 6${global.gc ? '' : ' (run node with --expose-gc for steadier numbers)'}`);
const loads = [];
const after = [];
const start = sample(0);
for (let i = 1; i <= WARM + STEPS; i++) {
  await stacks[i % stacks.length].launchStep({ argv: ['true'], ntasks: 2 });
  if (i % EVERY === 0) {
    loads.push(os.loadavg()[0]);
    const s = sample(i);
    if (i >= WARM) after.push(s);
    if (i % 250 === 0) console.log(`${String(i).padStart(5)} steps: RSS ${s.rss.toFixed(1)} MB, heap ${s.heap.toFixed(1)} MB (V8 holds ${s.heapTotal.toFixed(1)} MB), descriptors ${s.fds}`);
  }
}
const first = after[0];
const last = after[after.length - 1];
const rssSlope = slope(after, 'rss');
console.log(`start: RSS ${start.rss.toFixed(1)} MB, descriptors ${start.fds}; V8 held ${first.heapTotal.toFixed(1)} MB at the end of the warm-up, ${last.heapTotal.toFixed(1)} MB at the end`);
console.log(
  `after the warm-up (${after.length} samples): RSS ${signed(rssSlope)} MB per 1000 steps (target ≤ +5 MB: ${rssSlope <= 5 ? 'met' : 'not met'}; ` +
    `${first.rss.toFixed(1)} → ${last.rss.toFixed(1)} MB, range ${Math.min(...after.map((s) => s.rss)).toFixed(1)}–${Math.max(...after.map((s) => s.rss)).toFixed(1)}), ` +
    `heap ${signed(slope(after, 'heap'))} MB per 1000 steps, descriptors ${signed(last.fds - first.fds, 0)} (target +0: ${last.fds === first.fds ? 'met' : 'not met'})`,
);
console.log(`load ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}`);
fs.rmSync(dir, { recursive: true, force: true });
