// Timing for the bench: contenders measured in one loop, interleaved (each
// round runs every contender once, in an order that rotates), so a burst of
// load from elsewhere falls on all of them alike. Each result is the median
// with its min–max spread; the machine's 1-minute load average is sampled
// before every round and reported as the range it took while they ran.
import os from 'node:os';

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function summary(times) {
  return { median: median(times), min: Math.min(...times), max: Math.max(...times), runs: times.length };
}

/**
 * contenders: { name: async () => void }. Returns { name: { median, min,
 * max, runs }, load: { min, max } }. Every contender first runs `warmup`
 * rounds that are not counted: a program that embeds plugstack (a plugin's
 * test suite) runs many steps in one process, whose code V8 has compiled
 * and optimised by then, and the zygote and the caches are up.
 */
export const WARMUP_ROUNDS = 10;
export async function together(contenders, { runs, warmup = WARMUP_ROUNDS }) {
  const names = Object.keys(contenders);
  for (let i = 0; i < warmup; i++) for (const n of names) await contenders[n]();
  const times = Object.fromEntries(names.map((n) => [n, []]));
  const loads = [];
  for (let i = 0; i < runs; i++) {
    loads.push(os.loadavg()[0]);
    for (let j = 0; j < names.length; j++) {
      const n = names[(i + j) % names.length];
      const t0 = performance.now();
      await contenders[n]();
      times[n].push(performance.now() - t0);
    }
  }
  loads.push(os.loadavg()[0]);
  const out = Object.fromEntries(names.map((n) => [n, summary(times[n])]));
  out.load = { min: Math.min(...loads), max: Math.max(...loads) };
  return out;
}

export const ms = (m) => `${m.median.toFixed(1)} ms (${m.min.toFixed(1)}–${m.max.toFixed(1)})`;
export const load = (l) => (l.min === l.max ? l.min.toFixed(2) : `${l.min.toFixed(2)}–${l.max.toFixed(2)}`);

/** "2.3x (target ≤ 1.5x: no)"; better is 'lower' or 'higher'. */
export function verdict(value, target, better, unit = 'x') {
  const ok = better === 'lower' ? value <= target : value >= target;
  const num = unit === 'x' ? `${value.toFixed(2)}x` : `${value.toFixed(1)} ${unit}`;
  const goal = `${better === 'lower' ? '≤' : '≥'} ${target}${unit === 'x' ? 'x' : ` ${unit}`}`;
  return `${num} (target ${goal}: ${ok ? 'met' : 'not met'})`;
}

/** A markdown table. */
export function table(header, rows) {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---:').join('|')}|`];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}
