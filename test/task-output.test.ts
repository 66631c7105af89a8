/**
 * Task output as srun does it: -o and -e read as Slurm's fname_create reads
 * them, the error following the output without -e, srun's own files (24.11
 * making their directories), one task's output alone, /dev/null, per-task
 * files slurmstepd opens (a launch that fails on one that does not open),
 * --open-mode, and -l labels padded to the widest task id. Each expected
 * behaviour was seen on the real 22.05 and 24.11 (the conformance suite
 * compares them).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { labelWidth } from '../lib/commands/srun-output.js';
import { nodeOutputFiles, srunOutput } from '../lib/step/task-output.js';
import { tempDir, writeFile } from './helpers/plugins.js';
import { openDescriptors } from './helpers/processes.js';

async function emptyStack(slurmVersion = '24.11') {
  const dir = tempDir();
  return { dir, stack: await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { slurmVersion, pluginDir: [] }) };
}

const sorted = (s: string) => s.split('\n').filter(Boolean).sort();
const read = (file: string) => fs.readFileSync(file, 'utf8');
const BOTH = 'echo task $SLURM_PROCID; echo err $SLURM_PROCID >&2';

describe('srun -o and -e, as srun reads them', () => {
  const ids = { jobId: 7, stepId: 3 };
  it('the error follows the output without -e, and shares its descriptor when both name the same file or task', () => {
    expect(srunOutput(undefined, undefined, 2, ids)).toEqual({ stdout: { kind: 'all' }, stderr: { kind: 'all' }, errSharesOut: false });
    expect(srunOutput('out-%j.%s', undefined, 2, ids)).toEqual({ stdout: { kind: 'all', file: 'out-7.3' }, stderr: { kind: 'all', file: 'out-7.3' }, errSharesOut: true });
    expect(srunOutput('a', 'b', 2, ids).errSharesOut).toBe(false);
    expect(srunOutput('same', 'same', 2, ids).errSharesOut).toBe(true);
    expect(srunOutput('1', undefined, 2, ids)).toEqual({ stdout: { kind: 'one', task: 1 }, stderr: { kind: 'one', task: 1 }, errSharesOut: true });
    expect(srunOutput('1', 'e.txt', 2, ids).errSharesOut).toBe(false);
    // "none" is /dev/null on every node; a per-task name is each node's to open.
    expect(srunOutput('NONE', 'err.txt', 2, ids)).toEqual({ stdout: { kind: 'none' }, stderr: { kind: 'all', file: 'err.txt' }, errSharesOut: false });
    expect(srunOutput('out-%t', undefined, 2, ids)).toEqual({ stdout: { kind: 'perTask', pattern: 'out-%t' }, stderr: { kind: 'perTask', pattern: 'out-%t' }, errSharesOut: false });
  });

  it('names each task\'s files for its node: its output\'s, then its error\'s', () => {
    const plan = srunOutput('o-%2t-%N', 'e-%n-%u', 4, ids);
    expect(nodeOutputFiles(plan, { nodeId: 1, name: 'vm1', gtids: [2, 3] }, { user: 'root', cwd: '/w' })).toEqual(['/w/o-02-vm1', '/w/e-1-root', '/w/o-03-vm1', '/w/e-1-root']);
    expect(nodeOutputFiles(srunOutput('out.txt', undefined, 2, ids), { nodeId: 0, name: 'vm', gtids: [0] }, { user: 'u', cwd: '/w' })).toEqual(['', '']);
  });

  it('pads labels to the widest task id (step_io.c _wid)', () => {
    expect([1, 10, 11, 100, 101].map(labelWidth)).toEqual([1, 1, 2, 2, 3]);
  });
});

describe('srun: where the tasks\' output goes', () => {
  it('-o FILE: srun opens it and writes every task\'s output and error there, labelled with -l', async () => {
    const { stack, dir } = await emptyStack();
    const r = await stack.srun({ args: ['-n', '2', '-l', '-o', 'out-%j.txt', 'sh', '-c', BOTH], cwd: dir });
    expect(r.exitCode).toBe(0);
    expect(r.stdout + r.stderr).toBe('');
    expect(sorted(read(path.join(dir, `out-${r.job!.jobId}.txt`)))).toEqual(['0: err 0', '0: task 0', '1: err 1', '1: task 1']);
  });

  it('a directory that does not exist: 24.11\'s srun makes it, 22.05\'s ends with SLURM_EXIT_ERROR before the launch', async () => {
    const made = await emptyStack('24.11');
    const ok = await made.stack.srun({ args: ['-o', 'made/dir/out.txt', 'echo', 'hi'], cwd: made.dir });
    expect(ok.exitCode).toBe(0);
    expect(read(path.join(made.dir, 'made/dir/out.txt'))).toBe('hi\n');
    const old = await emptyStack('22.05');
    const bad = await old.stack.srun({ args: ['-o', 'made/dir/out.txt', 'echo', 'hi'], cwd: old.dir, env: { SLURM_EXIT_ERROR: '7' } });
    expect(bad.exitCode).toBe(7);
    expect(bad.stderr).toContain('srun: error: Could not open stdout file: No such file or directory');
    expect(bad.steps).toHaveLength(0);
    writeFile(old.dir, 'afile', '');
    const notDir = await old.stack.srun({ args: ['-o', 'out.txt', '-e', 'afile/err.txt', 'true'], cwd: old.dir });
    expect(notDir.stderr).toContain('srun: error: Could not open stderr file: Not a directory');
  });

  it('-o N: task N\'s output alone, its error with it; -o none -e FILE: the error alone', async () => {
    const { stack, dir } = await emptyStack('22.05');
    const one = await stack.srun({ args: ['-n', '2', '-o', '1', 'sh', '-c', BOTH], cwd: dir });
    expect(sorted(one.stdout)).toEqual(['err 1', 'task 1']);
    expect(one.stderr).toBe('');
    const none = await stack.srun({ args: ['-n', '2', '-o', 'none', '-e', 'err.txt', 'sh', '-c', BOTH], cwd: dir });
    expect(none.stdout + none.stderr).toBe('');
    expect(sorted(read(path.join(dir, 'err.txt')))).toEqual(['err 0', 'err 1']);
  });

  it('%t: each task\'s own file, made by its node (22.05: a missing directory fails the launch there)', async () => {
    for (const [release, status] of [['24.11', 1], ['22.05', 0]] as const) {
      const { stack, dir } = await emptyStack(release);
      const r = await stack.srun({ args: ['-N', '2', '-n', '3', '-o', 'out-%t-%N.txt', '-e', 'err-%2t.txt', 'sh', '-c', BOTH], cwd: dir });
      expect(r.exitCode).toBe(0);
      const names = r.job!.nodes;
      expect(read(path.join(dir, `out-2-${names[1]}.txt`))).toBe('task 2\n');
      expect(read(path.join(dir, 'err-00.txt'))).toBe('err 0\n');
      const deep = await stack.srun({ args: ['-o', 'deep/out-%t.txt', 'echo', 'hi'], cwd: dir });
      if (release === '24.11') expect(read(path.join(dir, 'deep/out-0.txt'))).toBe('hi\n');
      else {
        expect(deep.exitCode).toBe(status);
        expect(deep.stderr).toContain('srun: error: task 0 launch failed: Slurmd could not connect IO');
        expect(deep.steps[0]!.nodes[0]!.failedAt).toBe('io');
      }
    }
  });

  it('a relative -D is made full against srun\'s directory: the tasks run there, and their per-task files are made there', async () => {
    const { stack, dir } = await emptyStack();
    fs.mkdirSync(path.join(dir, 'sub'));
    const r = await stack.srun({ args: ['-D', 'sub', '-o', 'out-%t.txt', 'sh', '-c', 'pwd'], cwd: dir });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    expect(read(path.join(dir, 'sub', 'out-0.txt'))).toBe(`${fs.realpathSync(dir)}/sub\n`);
  });

  it('per task: a file that does not open ends that task\'s setup, the next task\'s is still made; with -l nothing is made past the first failure, and no directory', async () => {
    const { stack, dir } = await emptyStack('24.11');
    writeFile(dir, 'd0', '');
    const r = await stack.srun({ args: ['-n', '2', '-o', 'd%t/x.txt', 'echo', 'hi'], cwd: dir });
    expect(r.stderr).toContain('srun: error: task 0 launch failed: Slurmd could not connect IO');
    expect(read(path.join(dir, 'd1', 'x.txt'))).toBe('');
    const labelled = await stack.srun({ args: ['-l', '-o', 'mk/x-%t.txt', 'echo', 'hi'], cwd: dir });
    expect(labelled.stderr).toContain('srun: error: task 0 launch failed: Slurmd could not connect IO');
    expect(fs.existsSync(path.join(dir, 'mk'))).toBe(false);
  });

  it('--open-mode=append keeps what the files had; nothing is left open', async () => {
    const { stack, dir } = await emptyStack();
    writeFile(dir, 'app.txt', 'one\n');
    writeFile(dir, 'app-0.txt', 'one\n');
    const before = openDescriptors();
    await stack.srun({ args: ['--open-mode=append', '-o', 'app.txt', 'echo', 'two'], cwd: dir });
    await stack.srun({ args: ['--open-mode=a', '-o', 'app-%t.txt', 'echo', 'two'], cwd: dir });
    await stack.srun({ args: ['-o', 'trunc.txt', 'echo', 'x'], cwd: dir });
    expect(openDescriptors()).toBe(before);
    expect(read(path.join(dir, 'app.txt'))).toBe('one\ntwo\n');
    expect(read(path.join(dir, 'app-0.txt'))).toBe('one\ntwo\n');
  });

  it("slurm.conf's JobFileAppend appends, --open-mode=truncate undoes it; sbatch's files follow them too", async () => {
    const dir = tempDir();
    const slurmConf = writeFile(dir, 'slurm.conf', 'ClusterName=k\nJobFileAppend=1\nNodeName=node0 CPUs=4\nPartitionName=debug Nodes=node0 Default=YES\n');
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [], slurmConf });
    const env = { PATH: '/usr/bin:/bin' };
    writeFile(dir, 'o.txt', 'one\n');
    await stack.srun({ args: ['-o', 'o.txt', 'echo', 'two'], cwd: dir, env });
    expect(read(path.join(dir, 'o.txt'))).toBe('one\ntwo\n');
    await stack.srun({ args: ['--open-mode=truncate', '-o', 'o.txt', 'echo', 'three'], cwd: dir, env });
    expect(read(path.join(dir, 'o.txt'))).toBe('three\n');
    writeFile(dir, 'b.txt', 'kept\n');
    const batch = await stack.sbatch({ args: ['-W', '-o', 'b.txt', '--wrap', 'echo appended'], cwd: dir, env });
    expect(batch.exitCode).toBe(0);
    expect(read(path.join(dir, 'b.txt'))).toBe('kept\nappended\n');
    const plain = await emptyStack();
    writeFile(plain.dir, 'b.txt', 'gone\n');
    await plain.stack.sbatch({ args: ['-W', '-o', 'b.txt', '--wrap', 'echo only'], cwd: plain.dir, env });
    expect(read(path.join(plain.dir, 'b.txt'))).toBe('only\n');
    await plain.stack.sbatch({ args: ['-W', '--open-mode=append', '-o', 'b.txt', '--wrap', 'echo more'], cwd: plain.dir, env });
    expect(read(path.join(plain.dir, 'b.txt'))).toBe('only\nmore\n');
  });

  it('sbatch --open-mode reaches the sruns of its job (SLURM_OPEN_MODE: 22.05 sbatch\'s own, 24.11 slurmctld\'s)', async () => {
    for (const release of ['22.05', '24.11'] as const) {
      const { stack, dir } = await emptyStack(release);
      writeFile(dir, 's.txt', 'one\n');
      const r = await stack.sbatch({ args: ['-W', '--open-mode=append', '--wrap', 'echo mode=$SLURM_OPEN_MODE; srun -o s.txt echo two'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
      expect(r.exitCode).toBe(0);
      expect(r.output!.text).toBe('mode=a\n');
      expect(read(path.join(dir, 's.txt'))).toBe('one\ntwo\n');
    }
  });

  it('-l pads every label to the widest task id, and ends a last line without a newline', async () => {
    const { stack, dir } = await emptyStack();
    const r = await stack.srun({ args: ['-n', '11', '-O', '-l', 'sh', '-c', 'printf "t$SLURM_PROCID"'], cwd: dir });
    expect(sorted(r.stdout)).toContain(' 0: t0');
    expect(sorted(r.stdout)).toContain('10: t10');
  });
});
