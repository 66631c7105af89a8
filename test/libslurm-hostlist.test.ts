/**
 * Slurm's hostlists and lists as plugins get them. One probe source runs
 * a list of expressions through the public hostlist functions (create,
 * count, ranged_string, find, uniq, push, push_host, shift, xmalloc) and
 * walks a list (append, iterate, find, sort, pop, destroy): as a plugin
 * under plugstack, and, where Debian's libslurm (22.05) is installed, as a
 * program linked with the real libslurm. Under 22.05 emulation plugstack
 * must print exactly what the real library prints; under 24.11 the same,
 * except where 24.11 changed the rules (newlines separate names, a suffix
 * may follow a bracket, an unclosed bracket is an error).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { compilePlugin, repoRoot, tempDir, writeFile } from './helpers/plugins.js';

const EXPRESSIONS = path.join(repoRoot, 'test', 'fixtures', 'hostlist-expressions.txt');
const requireHeaders = process.env.PLUGSTACK_REQUIRE_SLURM_HEADERS === '1';
const haveLibslurm =
  fs.existsSync('/usr/include/slurm/slurm.h') &&
  ['/usr/lib/x86_64-linux-gnu/libslurm.so', '/usr/lib/aarch64-linux-gnu/libslurm.so', '/usr/lib64/libslurm.so', '/usr/lib/libslurm.so'].some(
    (f) => fs.existsSync(f),
  );

/** What 24.11 answers where its rules differ from 22.05's. */
const RULES_24_11: Record<string, string> = {
  'n[1-3]-ib': ' => count=3 ranged=n1-ib,n2-ib,n3-ib(17)',
  'n[1-3': ' => NULL errno=22',
  '[1-3': ' => NULL errno=22',
  'n1\\nn2': ' => count=2 ranged=n[1-2](6)',
  'a[1-2]b[3-4]c': ' => count=4 ranged=a1b3c,a1b4c,a2b3c,a2b4c(23)',
  'n[1-2,5-6]x': ' => count=4 ranged=n1x,n2x,n5x,n6x(15)',
};

/** The probe's output under plugstack (it runs in slurm_spank_init, as `check` runs it in local context). */
async function underPlugstack(include: string | undefined, slurmVersion: '22.05' | '24.11'): Promise<string[]> {
  const dir = tempDir();
  const out = path.join(dir, 'out.txt');
  const plugin = compilePlugin('hostlist_probe.c', include ? { include } : {});
  const conf = writeFile(dir, 'plugstack.conf', `required ${plugin} in=${EXPRESSIONS} out=${out}\n`);
  const stack = await Plugstack.load(conf, { pluginDir: [], slurmVersion });
  const report = await stack.check({ context: 'local' });
  expect(report.ok).toBe(true);
  return fs.readFileSync(out, 'utf8').trimEnd().split('\n');
}

function byExpression(lines: string[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const l of lines) {
    const at = l.indexOf(' => ');
    m.set(at < 0 ? l.slice(0, l.indexOf(' ')) : l.slice(0, at), at < 0 ? l.slice(l.indexOf(' ')) : l.slice(at));
  }
  return m;
}

describe('hostlists and lists', () => {
  it('follow 24.11\'s rules under 24.11 emulation', async () => {
    const lines = await underPlugstack(undefined, '24.11');
    const got = byExpression(lines);
    for (const [expr, expected] of Object.entries(RULES_24_11)) expect(got.get(expr), expr).toMatch(new RegExp(`^${expected.replace(/[[\]()\\]/g, '\\$&')}`));
    // Rules both releases share.
    expect(got.get('n[1-3],m5')).toMatch(/^ => count=4 ranged=n\[1-3\],m5\(9\) small=-1:n\[1-3 find=0,-1,2,-1,-1,3,/);
    // The width of the first number is kept; n1 is not n01.
    expect(got.get('n[01-10]')).toMatch(/ranged=n\[01-10\]\(8\) small=-1:n\[01 find=-1,0,-1,-1,-1,-1,-1,-1,-1,-1,9 .* shift=n01,n02,n03,n04,n05,n06,n07,n08,n09,n10,n4,n5,m5,n06 /);
    expect(got.get('n3,n1,n2,n1')).toMatch(/ranged=n\[3,1-2,1\]\(10\) .* uniq=n\[1-3\]\(6\) uniq_count=3 /);
    expect(got.get('rack[1-2]n[1-2]')).toMatch(/^ => count=4 ranged=rack1n\[1-2\],rack2n\[1-2\]\(23\)/);
    expect(got.get('n[2-1]')).toBe(' => NULL errno=22');
    expect(got.get('n[0-65536]')).toBe(' => NULL errno=22');
    expect(got.get('n[0-65535]')).toMatch(/^ => count=65536 /);
    expect(got.get('nid0000[2-7]')).toMatch(/find=[-\d]+,[-\d]+,[-\d]+,[-\d]+,0,/);
    expect(got.get('list')).toBe(' empty=1 count=5 walk=5,3,9,1,7, find=9 then=1 sorted=1,3,5,7,9, pop=1 count=4 destroyed=24');
  });

  it.skipIf(!haveLibslurm && !requireHeaders)('print under 22.05 emulation exactly what the real libslurm 22.05 prints', async () => {
    expect(haveLibslurm, 'Debian\'s libslurm-dev is required').toBe(true);
    const oracle = path.join(tempDir(), 'hostlist_probe');
    execFileSync('cc', ['-DSTANDALONE', '-o', oracle, path.join(repoRoot, 'test', 'fixtures', 'plugins', 'hostlist_probe.c'), '-lslurm'], { stdio: 'pipe' });
    const real = execFileSync(oracle, [EXPRESSIONS], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trimEnd().split('\n');
    expect(real.length).toBeGreaterThan(40);
    const ours = await underPlugstack('/usr/include', '22.05');
    expect(ours).toEqual(real);
    // 24.11 agrees with the real 22.05 wherever its rules did not change.
    const ours24 = byExpression(await underPlugstack(undefined, '24.11'));
    const real22 = byExpression(real);
    for (const [expr, line] of real22) if (!(expr in RULES_24_11)) expect(ours24.get(expr), expr).toBe(line);
  });
});
