/**
 * How a step's tasks are spread over its nodes, and how Slurm writes node
 * lists and task counts in environment variables. This is the launcher's
 * side (srun, slurmctld): which node gets which global task ids.
 */
import { PlugstackError } from '../errors.js';

export interface NodeLayout {
  nodeId: number;
  name: string;
  /** Global task ids of the tasks on this node, in local order. */
  gtids: number[];
}

/**
 * Slurm's default block distribution: consecutive task ids per node, the
 * remainder going one each to the first nodes (5 tasks on 2 nodes: 0-2 and
 * 3-4).
 */
export function blockLayout(ntasks: number, names: string[]): NodeLayout[] {
  const nodes = names.length;
  if (ntasks < nodes)
    throw new PlugstackError('INVALID_ARGUMENT', `a step of ${ntasks} task(s) cannot span ${nodes} nodes`);
  const base = Math.floor(ntasks / nodes);
  const extra = ntasks % nodes;
  const layout: NodeLayout[] = [];
  let next = 0;
  for (let i = 0; i < nodes; i++) {
    const count = base + (i < extra ? 1 : 0);
    layout.push({ nodeId: i, name: names[i]!, gtids: Array.from({ length: count }, () => next++) });
  }
  return layout;
}

/** "node[0-3,5]": Slurm's ranged host list (consecutive names with one prefix share brackets). */
export function compressHostlist(names: string[]): string {
  const parsed = names.map((n) => {
    const m = /^(.*?)(\d+)$/.exec(n);
    return m ? { prefix: m[1]!, digits: m[2]! } : { prefix: n, digits: '' };
  });
  const out: string[] = [];
  let i = 0;
  while (i < parsed.length) {
    const { prefix, digits } = parsed[i]!;
    if (digits === '') {
      out.push(prefix);
      i++;
      continue;
    }
    const width = digits.length;
    const numbers: number[] = [];
    let j = i;
    while (j < parsed.length && parsed[j]!.prefix === prefix && parsed[j]!.digits !== '' && parsed[j]!.digits.length === width) {
      numbers.push(Number(parsed[j]!.digits));
      j++;
    }
    if (numbers.length === 1) {
      out.push(prefix + digits);
    } else {
      const pad = (n: number) => String(n).padStart(width, '0');
      const ranges: string[] = [];
      for (let k = 0; k < numbers.length; ) {
        let end = k;
        while (end + 1 < numbers.length && numbers[end + 1] === numbers[end]! + 1) end++;
        ranges.push(end === k ? pad(numbers[k]!) : `${pad(numbers[k]!)}-${pad(numbers[end]!)}`);
        k = end + 1;
      }
      out.push(`${prefix}[${ranges.join(',')}]`);
    }
    i = j;
  }
  return out.join(',');
}

/**
 * "node[0-3,5],login1" as the list of names it stands for (zero padding
 * kept: "n[08-10]" is n08 n09 n10). Text around one bracket group is a
 * prefix and a suffix; a name without brackets stands for itself.
 */
export function expandHostlist(list: string): string[] {
  const out: string[] = [];
  // Split on commas outside brackets.
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    if (list[i] === '[') depth++;
    else if (list[i] === ']') depth--;
    else if (list[i] === ',' && depth === 0) {
      items.push(list.slice(start, i));
      start = i + 1;
    }
  }
  items.push(list.slice(start));
  for (const item of items.filter((x) => x !== '')) {
    const m = /^(.*?)\[([^\]]*)\](.*)$/.exec(item);
    if (!m) {
      out.push(item);
      continue;
    }
    const [, prefix, ranges, suffix] = m;
    for (const range of ranges!.split(',')) {
      const [lo, hi] = range.split('-');
      const width = lo!.length;
      const first = Number(lo);
      const last = hi === undefined ? first : Number(hi);
      for (let n = first; n <= last && out.length < 100_000; n++) out.push(`${prefix}${String(n).padStart(width, '0')}${suffix}`);
    }
  }
  return out;
}

/** "2(x3),1": counts per node with runs of equal counts folded, as in SLURM_TASKS_PER_NODE. */
export function compressCounts(counts: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < counts.length; ) {
    let j = i;
    while (j + 1 < counts.length && counts[j + 1] === counts[i]) j++;
    out.push(j === i ? String(counts[i]) : `${counts[i]}(x${j - i + 1})`);
    i = j + 1;
  }
  return out.join(',');
}
