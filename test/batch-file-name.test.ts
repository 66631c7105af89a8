/**
 * A batch job's -o/-e file names as slurmstepd makes them (both releases),
 * and sbatch writing the job's output where they say. Found by a
 * differential run against the real 22.05 and 24.11: `sbatch -J pat -o
 * out-%j-%u.txt -e err-%j-%x.txt` wrote out-<id>-root.txt and
 * err-<id>-pat.txt there, plugstack out-<id>-%u.txt and err-<id>-job.txt.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { batchFileName, type BatchFileIds } from '../lib/commands/batch-file-name.js';
import { tempDir, writeFile } from './helpers/plugins.js';

const IDS: BatchFileIds = { jobId: 42, nodeName: 'node0', userName: 'alice', jobName: 'pat' };
const name = (format: string, release = '24.11', ids = IDS) => batchFileName(format, ids, '/work', release);

describe('batch file names', () => {
  it('expands the letters slurmstepd expands for a batch step', () => {
    expect(name('out-%j-%u-%x.txt')).toBe('/work/out-42-alice-pat.txt');
    expect(name('%A.%a.%J.%s.%N.%n.%t')).toBe('/work/42.4294967294.42.batch.node0.0.0');
    expect(name('/abs/%j.out')).toBe('/abs/42.out');
  });

  it('pads numbers to a width of at most 10, and not names', () => {
    expect(name('%5j-%3t-%12j-%4u')).toBe('/work/00042-000-0000000042-alice');
  });

  it('keeps %%, unknown letters and a trailing % as written', () => {
    expect(name('a%%j-%q-%3q-%')).toBe('/work/a%j-%q-3q-%');
    expect(name('x%3')).toBe('/work/x3');
  });

  it('%b is the array task id modulo 10 under 24.11; 22.05 leaves it', () => {
    expect(name('%b', '24.11')).toBe('/work/4');
    expect(name('%b', '22.05')).toBe('/work/%b');
  });

  it('a job without SLURM_JOB_NAME names (null)', () => {
    expect(name('%x.out', '22.05', { ...IDS, jobName: undefined })).toBe('/work/(null).out');
  });

  it('a backslash stops every expansion', () => {
    expect(name('out\\-%j.txt')).toBe('/work/out-%j.txt');
    expect(name('a\\\\b%j')).toBe('/work/a\\b%j');
  });

  it('a task number other than 0 is /dev/null for the batch step', () => {
    expect(name('1')).toBe('/dev/null');
    expect(name('0')).toBe('/work/0');
  });
});

describe('sbatch -o/-e patterns', () => {
  for (const slurmVersion of ['24.11', '22.05']) {
    it(`writes the job's files under the names slurmstepd would give them (${slurmVersion})`, async () => {
      const dir = tempDir();
      const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [], slurmVersion });
      const result = await stack.sbatch({
        args: ['-W', '-J', 'pat', '-o', 'out-%j-%u.txt', '-e', 'err-%j-%x-%N.txt', '--wrap', 'echo out; echo err >&2'],
        cwd: dir,
        env: { PATH: '/usr/bin:/bin' },
      });
      expect(result.exitCode).toBe(0);
      const id = result.job!.jobId;
      const user = os.userInfo().username;
      expect(result.output!.file).toBe(path.join(dir, `out-${id}-${user}.txt`));
      expect(fs.readFileSync(path.join(dir, `out-${id}-${user}.txt`), 'utf8')).toBe('out\n');
      expect(fs.readFileSync(path.join(dir, `err-${id}-pat-node0.txt`), 'utf8')).toBe('err\n');
    });
  }
});
