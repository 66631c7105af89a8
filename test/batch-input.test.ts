/**
 * sbatch -i: slurmstepd opens the file (its name made as for -o, against
 * the job's working directory) for the batch script's standard input; one
 * that does not open fails the job before the script runs: no output file,
 * FAILED with slurmstepd's ESLURMD_IO_ERROR as its exit code (scontrol
 * shows 0:53), the node not drained. What the real 22.05 and 24.11 did
 * (compared by hand; test/conformance/environ.test.ts compares the job
 * prolog's environment).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { tempDir, writeFile } from './helpers/plugins.js';

const ESLURMD_IO_ERROR = 4021;

describe.each(['22.05', '24.11'] as const)('%s: sbatch -i', (release) => {
  async function sbatch(args: string[], input = 'in.txt') {
    const dir = tempDir('plugstack-batch-input-');
    writeFile(dir, input, 'first line\nsecond line\n');
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [], slurmVersion: release });
    const r = await stack.sbatch({ args, cwd: dir, env: { PATH: '/usr/bin:/bin', HOME: dir } });
    return { r, dir };
  }

  it("gives the script the file as its standard input, its name made as -o's (%u: the job's user)", async () => {
    const { r, dir } = await sbatch(['-i', 'in-%u.txt', '--wrap', 'cat; echo stdin=$(readlink /proc/self/fd/0)'], `in-${os.userInfo().username}.txt`);
    expect(r.job!.state).toBe('COMPLETED');
    expect(r.output!.text).toBe(`first line\nsecond line\nstdin=${path.join(fs.realpathSync(dir), `in-${os.userInfo().username}.txt`)}\n`);
  });

  it('fails the job when the file does not open: no output file, the error as exit code, the node not drained', async () => {
    const { r, dir } = await sbatch(['-i', 'missing.txt', '--wrap', 'echo ran']);
    expect(r.exitCode).toBe(0);
    expect(r.job).toMatchObject({ state: 'FAILED', exitCode: ESLURMD_IO_ERROR, drained: [] });
    expect(r.job!.exitCode & 0x7f).toBe(53);
    expect(fs.existsSync(path.join(dir, `slurm-${r.job!.jobId}.out`))).toBe(false);
    expect(r.output).toBeUndefined();
    expect(r.steps[0]!.log.map((l) => l.message)).toContain(`Could not open stdin file ${path.join(dir, 'missing.txt')}: No such file or directory`);
  });
});

describe.each(['22.05', '24.11'] as const)('%s: sbatch -o and -e in a directory that does not exist', (release) => {
  it('24.11 makes the directory (slurmstepd mkdirpath), 22.05 fails the IO setup as for -i', async () => {
    const dir = tempDir('plugstack-batch-output-');
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [], slurmVersion: release });
    const r = await stack.sbatch({ args: ['-o', 'made/out-%j.txt', '-e', 'made/too/err.txt', '--wrap', 'echo out; echo err >&2'], cwd: dir, env: { PATH: '/usr/bin:/bin', HOME: dir } });
    expect(r.exitCode).toBe(0);
    const out = path.join(dir, 'made', `out-${r.job!.jobId}.txt`);
    if (release === '24.11') {
      expect(r.job!.state).toBe('COMPLETED');
      expect(fs.readFileSync(out, 'utf8')).toBe('out\n');
      expect(fs.readFileSync(path.join(dir, 'made', 'too', 'err.txt'), 'utf8')).toBe('err\n');
      expect(fs.statSync(path.join(dir, 'made')).mode & 0o777).toBe(0o755 & ~process.umask());
    } else {
      expect(r.job).toMatchObject({ state: 'FAILED', exitCode: ESLURMD_IO_ERROR, drained: [] });
      expect(fs.existsSync(path.join(dir, 'made'))).toBe(false);
      expect(r.steps[0]!.log.map((l) => l.message)).toContain(`Could not open stdout file ${out}: No such file or directory`);
    }
  });
});
