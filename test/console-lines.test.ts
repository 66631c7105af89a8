/**
 * Lines srun prints are never lost or cut: with --label every output line
 * is labelled once, however the task writes it (a line in pieces, pieces of
 * several lines, a last line without a newline, which srun ends); and
 * slurmstepd's execve() error reaches srun on every run, whichever of the
 * step's processes reports first.
 */
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { tempDir, writeFile } from './helpers/plugins.js';

async function emptyStack() {
  const dir = tempDir();
  const conf = writeFile(dir, 'plugstack.conf', '');
  return { dir, stack: await Plugstack.load(conf, { pluginDir: [] }) };
}

describe('srun --label', () => {
  it('labels every line once, a line written in pieces included, and ends a last partial line', async () => {
    const { dir, stack } = await emptyStack();
    const script = 'printf abc; sleep 0.05; printf "def\\nghi\\njk"; sleep 0.05; printf "l\\nlast"';
    const r = await stack.srun({ args: ['-n', '2', '-l', 'sh', '-c', script], cwd: dir });
    expect(r.exitCode).toBe(0);
    for (const task of [0, 1]) {
      const mine = r.stdout.split('\n').filter((l) => l.startsWith(`${task}: `));
      expect(mine).toEqual([`${task}: abcdef`, `${task}: ghi`, `${task}: jkl`, `${task}: last`]);
    }
    expect(r.stdout.endsWith('\n')).toBe(true);
    // Nothing unlabelled in between.
    expect(r.stdout.split('\n').filter((l) => l && !/^[01]: /.test(l))).toEqual([]);
  });

  it('leaves output alone without --label', async () => {
    const { dir, stack } = await emptyStack();
    const r = await stack.srun({ args: ['sh', '-c', 'printf abc; sleep 0.05; printf def'], cwd: dir });
    expect(r.stdout).toBe('abcdef');
  });
});

describe("slurmstepd's execve() line", () => {
  it('reaches srun on every run, with one task or two', async () => {
    const { dir, stack } = await emptyStack();
    for (let i = 0; i < 10; i++) {
      for (const n of ['1', '2']) {
        const r = await stack.srun({ args: ['-n', n, '/nonexistent/program'], cwd: dir });
        const lines = r.stderr.split('\n').filter((l) => l === 'slurmstepd: error: execve(): /nonexistent/program: No such file or directory');
        expect(lines.length, `run ${i}, -n ${n}: ${r.stderr}`).toBe(Number(n));
        expect(r.exitCode).toBe(2);
      }
    }
  });
});
