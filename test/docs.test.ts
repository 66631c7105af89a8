/**
 * The README keeps its promises: every entry of the conformance allowlist
 * is listed there with its reason, and the quick start prints what it
 * shows.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, tempDir } from './helpers/plugins.js';

describe('README', () => {
  it('lists every allowed difference of the conformance suite with its reason', () => {
    const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const allowlist = JSON.parse(fs.readFileSync(path.join(repoRoot, 'test', 'conformance', 'allowlist.json'), 'utf8')) as { reason: string }[];
    expect(allowlist.length).toBeGreaterThan(0);
    for (const entry of allowlist) expect(readme).toContain(entry.reason);
  });

  it("shows what the quick start's `npm run example` prints, but for the job id and the order of the tasks' lines", () => {
    const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const after = readme.slice(readme.indexOf('`npm run example` compiles'));
    const shown = after.slice(after.indexOf('```\n') + 4, after.indexOf('\n```', after.indexOf('```\n') + 4)).split('\n');
    // The example's two commands, with the plugin compiled elsewhere than into the checkout.
    const [ccPart, runPart] = pkg.scripts.example!.split(' && ');
    const dir = tempDir();
    const cc = ccPart!.split(' ').slice(2).map((a) => (a === 'examples/hello/hello.so' ? path.join(dir, 'hello.so') : a));
    const run = runPart!.split(' ').slice(2).map((a) => (a === 'examples/hello' ? dir : a));
    const bin = path.join(repoRoot, 'bin', 'plugstack.cjs');
    const compiled = spawnSync(process.execPath, [bin, ...cc], { cwd: repoRoot, encoding: 'utf8' });
    expect(compiled.status, compiled.stderr).toBe(0);
    const ran = spawnSync(process.execPath, [bin, ...run], { cwd: repoRoot, encoding: 'utf8' });
    expect(ran.status, ran.stderr).toBe(0);
    const jobId = (lines: string[]) => lines.map((l) => l.replace(/step \d+\.0/, 'step N.0'));
    const taskLines = (lines: string[]) => lines.filter((l) => /^\d+: /.test(l)).sort();
    expect(compiled.stdout + compiled.stderr).toContain(shown[0]!.replace('/path/to/plugstack', repoRoot).replace('examples/hello/hello.so', path.join(dir, 'hello.so')));
    expect(jobId(ran.stderr.trim().split('\n'))).toEqual(jobId([shown[1]!]));
    expect(taskLines(ran.stdout.trim().split('\n'))).toEqual(taskLines(shown.slice(2)));
  });
});
