/**
 * Task input as srun does it (issue 14): srun's standard input goes to
 * every task, --input picks tasks or files as Slurm's fname_create reads it,
 * every reader sees EOF, a task that does not read holds no one up, and
 * nothing is left open. salloc's command reads salloc's input; plugstack
 * batch reads its script from standard input when none is named.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { srunInput } from '../lib/step/task-input.js';
import { taskFileName } from '../lib/step/file-names.js';
import { compilePlugin, readLog, repoRoot, tempDir, writeFile } from './helpers/plugins.js';
import { openDescriptors } from './helpers/processes.js';

const bin = path.join(repoRoot, 'bin', 'plugstack.cjs');
const FD0 = 'ls -l /proc/self/fd/0 | sed "s/.*-> //; s/:.*//"';

async function emptyStack(slurmVersion = '24.11') {
  const dir = tempDir();
  return { dir, stack: await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { slurmVersion, pluginDir: [] }) };
}

const sorted = (s: string) => s.split('\n').filter(Boolean).sort();

describe('srun --input, as srun reads it', () => {
  const ids = { jobId: 7, stepId: 0, jobName: 'named' };
  it('reads the special words, task ids and patterns as fname_create does', () => {
    expect(srunInput(undefined, 2, ids)).toEqual({ kind: 'all' });
    expect(srunInput('ALLfoo', 2, ids)).toEqual({ kind: 'all' });
    expect(srunInput('-x', 2, ids)).toEqual({ kind: 'all' });
    expect(srunInput('none', 2, ids)).toEqual({ kind: 'all', file: '/dev/null' });
    expect(srunInput('1', 2, ids)).toEqual({ kind: 'one', task: 1 });
    // A number past the last task is a file name.
    expect(srunInput('5', 2, ids)).toEqual({ kind: 'all', file: '5' });
    expect(srunInput('in-%j.%s-%3J-%x%%', 2, ids)).toEqual({ kind: 'all', file: 'in-7.0-007.0-named%' });
    expect(srunInput('in-%3t-%N', 2, ids)).toEqual({ kind: 'perTask', pattern: 'in-%3t-%N' });
    expect(srunInput('in\\-%t', 2, ids)).toEqual({ kind: 'all', file: 'in-%t' });
    expect(taskFileName('in-%3t-%n-%N-%u', { gtid: 4, nodeId: 1, nodeName: 'node1', user: 'root', cwd: '/w/' })).toBe('/w/in-004-1-node1-root');
  });
});

describe('srun: the tasks read srun\'s standard input', () => {
  it('sends it to every task by default, each sees EOF; without stdin every reader sees EOF at once', async () => {
    const { stack } = await emptyStack();
    const r = await stack.srun({ args: ['-N', '2', '-n', '3', '-l', 'sh', '-c', `${FD0}; cat`], stdin: 'hi\nthere\n' });
    expect(r.exitCode).toBe(0);
    expect(sorted(r.stdout)).toEqual(sorted('0: pipe\n0: hi\n0: there\n1: pipe\n1: hi\n1: there\n2: pipe\n2: hi\n2: there\n'));
    const none = await stack.srun({ args: ['-n', '2', '-l', 'sh', '-c', 'cat; echo eof'] });
    expect(sorted(none.stdout)).toEqual(['0: eof', '1: eof']);
  });

  it('--input=1 feeds task 1 only (the others read /dev/null); --input=none gives every task EOF', async () => {
    const { stack } = await emptyStack('22.05');
    const one = await stack.srun({ args: ['-n', '3', '-l', '--input=1', 'sh', '-c', `${FD0}; cat`], stdin: 'x\n' });
    expect(sorted(one.stdout)).toEqual(['0: /dev/null', '1: pipe', '1: x', '2: /dev/null']);
    const none = await stack.srun({ args: ['-n', '2', '-l', '-inone', 'sh', '-c', `${FD0}; cat; echo eof`], stdin: 'x\n' });
    expect(sorted(none.stdout)).toEqual(['0: eof', '0: pipe', '1: eof', '1: pipe']);
  });

  it('a file srun opens goes to every task; a missing one ends srun with status 1', async () => {
    const { stack, dir } = await emptyStack();
    writeFile(dir, 'in.txt', 'from file\n');
    const r = await stack.srun({ args: ['-n', '2', '-l', '--input=in.txt', 'cat'], cwd: dir, stdin: 'ignored\n' });
    expect(sorted(r.stdout)).toEqual(['0: from file', '1: from file']);
    const missing = await stack.srun({ args: ['-n', '2', '--input=nope.txt', 'cat'], cwd: dir });
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain('srun: error: Could not open stdin file: No such file or directory');
    expect(missing.steps).toHaveLength(0);
  });

  it('%t: each task opens its own file; a missing one fails the launch before user_init (1 under 24.11, 0 under 22.05)', async () => {
    for (const [release, status] of [['24.11', 1], ['22.05', 0]] as const) {
      const { stack, dir } = await emptyStack(release);
      writeFile(dir, 'in-0.txt', 'zero\n');
      writeFile(dir, 'in-1.txt', 'one\n');
      const r = await stack.srun({ args: ['-n', '2', '-l', '--input=in-%t.txt', 'cat'], cwd: dir });
      expect(sorted(r.stdout)).toEqual(['0: zero', '1: one']);
      const bad = await stack.srun({ args: ['-n', '2', '-l', '--input=nope-%t.txt', 'cat'], cwd: dir });
      expect(bad.exitCode).toBe(status);
      expect(bad.stderr).toContain('srun: error: task 0 launch failed: Slurmd could not connect IO');
      expect(bad.steps[0]!.nodes[0]!.failedAt).toBe('io');
    }
  });

  it('a task that does not read holds no one up, and a stream is read as the tasks take it; nothing is left open', async () => {
    const { stack } = await emptyStack();
    const before = openDescriptors();
    const big = Buffer.alloc(3 << 20, 0x61);
    const r = await stack.srun({
      args: ['-N', '2', '-n', '4', '-l', 'sh', '-c', 'if [ $SLURM_PROCID = 0 ]; then sleep 1; echo slept; else wc -c; fi'],
      stdin: Readable.from([big.subarray(0, 1 << 20), big.subarray(1 << 20)]),
    });
    expect(r.exitCode).toBe(0);
    expect(sorted(r.stdout)).toEqual(['0: slept', `1: ${3 << 20}`, `2: ${3 << 20}`, `3: ${3 << 20}`]);
    expect(openDescriptors()).toBe(before);
  });
});

describe('salloc and sbatch on the command line', () => {
  it("salloc's command reads salloc's standard input; plugstack batch reads a script from it", () => {
    const dir = tempDir();
    const conf = writeFile(dir, 'plugstack.conf', '');
    const alloc = spawnSync(process.execPath, [bin, 'alloc', '--conf', conf, 'sh', '-c', 'read line; echo got $line'], { input: 'hello\n', encoding: 'utf8', cwd: dir });
    expect(alloc.status).toBe(0);
    expect(alloc.stdout).toContain('got hello');
    const batch = spawnSync(process.execPath, [bin, 'batch', '--conf', conf, '-o', 'out.txt', '-W'], { input: '#!/bin/sh\necho from stdin $SLURM_JOB_ID\n', encoding: 'utf8', cwd: dir });
    expect(batch.status).toBe(0);
    expect(batch.stdout).toMatch(/^Submitted batch job \d+/);
    expect(spawnSync('cat', [path.join(dir, 'out.txt')], { encoding: 'utf8' }).stdout).toMatch(/^from stdin \d+/);
    const run = spawnSync(process.execPath, [bin, 'run', '--conf', conf, '-n', '2', '-l', 'cat'], { input: 'piped\n', encoding: 'utf8', cwd: dir });
    expect(sorted(run.stdout)).toEqual(['0: piped', '1: piped']);
  });
});

describe('S_JOB_ALLOC_MEM and S_STEP_ALLOC_MEM', () => {
  // The real 22.05 and 24.11 with the default SelectType (memory not a
  // consumable resource) answer 0 in every remote callback whatever --mem
  // or --mem-per-cpu says, and ESPANK_NOT_REMOTE (3006) in srun.
  it('answer as the real releases do with --mem=1024 and --mem-per-cpu', async () => {
    for (const release of ['24.11', '22.05'] as const) {
      const dir = tempDir();
      const so = compilePlugin('alloc_mem.c', release === '22.05' ? { defines: { SLURM_VERSION_NUMBER: 0x160508 } } : {});
      const log = path.join(dir, 'mem.log');
      const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', `required ${so} log=${log}\n`), { slurmVersion: release, pluginDir: [] });
      for (const args of [['--mem=1024'], ['--mem-per-cpu=300', '-n', '2']]) {
        const r = await stack.srun({ args: [...args, 'true'] });
        expect(r.exitCode).toBe(0);
      }
      const lines = readLog(log);
      expect(lines.filter((l) => / ctx=2 /.test(l)).every((l) => / JOB_MEM=0 STEP_MEM=0 /.test(l))).toBe(true);
      expect(lines.filter((l) => / ctx=1 /.test(l)).every((l) => / JOB_MEM=ERR3006 STEP_MEM=ERR3006 /.test(l))).toBe(true);
    }
  });
});
