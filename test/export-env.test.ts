/**
 * srun's and sbatch's --export, as the real 22.05 and 24.11 showed it (a
 * differential run: `env` in a task and in a batch job, compared in order):
 * srun puts the named variables first and ends the list at NONE, and ALL
 * anywhere in it passes srun's whole environment, whose values win; sbatch
 * reads the list in order, ALL where it stands, and keeps the variables
 * Slurm always passes (24.11 also the remote option variables).
 */
import { describe, expect, it } from 'vitest';
import { exportItems, sbatchExportEnv, srunExportEnv, withSbatchExportVar } from '../lib/cluster/export-env.js';
import { recordCommand } from './helpers/command.js';

const ENV = ['PATH=/bin', 'X=old', 'Y=y', 'SLURM_JOB_ID=7', '_SLURM_SPANK_OPTION_p_o=v', 'SLURMD_NODENAME=node0'];

describe('--export lists', () => {
  it('cuts the list at commas outside quotes', () => {
    expect(exportItems('"A,B",C=1,\'D,E\'')).toEqual(['A,B', 'C=1', 'D,E']);
    expect(exportItems('ALL,')).toEqual(['ALL']);
  });

  it('srun: the named variables first, in the list order, then Slurm\'s', () => {
    expect(srunExportEnv(ENV, 'Y,X=1', '22.05')).toEqual(['Y=y', 'X=1', 'SLURM_JOB_ID=7', 'SLURMD_NODENAME=node0']);
    expect(srunExportEnv(ENV, 'Y,X=1', '24.11')).toEqual(['Y=y', 'X=1', 'SLURM_JOB_ID=7', '_SLURM_SPANK_OPTION_p_o=v', 'SLURMD_NODENAME=node0']);
  });

  it('srun: NONE ends the list; ALL anywhere passes everything, srun\'s values winning', () => {
    expect(srunExportEnv(ENV, 'NONE,X=1', '22.05')).toEqual(['SLURM_JOB_ID=7', 'SLURMD_NODENAME=node0']);
    expect(srunExportEnv(ENV, 'X=1,ALL', '22.05')).toEqual(['X=old', 'PATH=/bin', 'Y=y', 'SLURM_JOB_ID=7', '_SLURM_SPANK_OPTION_p_o=v', 'SLURMD_NODENAME=node0']);
    expect(srunExportEnv(ENV, undefined, '22.05')).toEqual(ENV);
  });

  it('sbatch: the list in order, ALL where it stands, then Slurm\'s', () => {
    expect(sbatchExportEnv(ENV, 'ALL,X=1', '22.05')).toEqual(['PATH=/bin', 'X=1', 'Y=y', 'SLURM_JOB_ID=7', '_SLURM_SPANK_OPTION_p_o=v', 'SLURMD_NODENAME=node0']);
    expect(sbatchExportEnv(ENV, 'Y,X=1', '22.05')).toEqual(['Y=y', 'X=1', 'SLURM_JOB_ID=7', 'SLURMD_NODENAME=node0']);
    expect(sbatchExportEnv(ENV, 'NONE', '22.05')).toEqual(['SLURM_JOB_ID=7', 'SLURMD_NODENAME=node0']);
    expect(sbatchExportEnv(ENV, 'NONE', '24.11')).toEqual(['SLURM_JOB_ID=7', '_SLURM_SPANK_OPTION_p_o=v', 'SLURMD_NODENAME=node0']);
    expect(sbatchExportEnv(ENV, 'NIL', '24.11')).toEqual(['SLURM_JOB_ID=7', '_SLURM_SPANK_OPTION_p_o=v', 'SLURMD_NODENAME=node0']);
  });

  it('sbatch writes an --export other than ALL into its environment as SLURM_EXPORT_ENV, before the option variables', () => {
    const own = ['PATH=/bin', 'SLURM_JOB_NAME=wrap', '_SLURM_SPANK_OPTION_p_o=v', 'SLURM_SPANK_TRACE=1'];
    expect(withSbatchExportVar(own, 'NONE', { PATH: '/bin' })).toEqual(['PATH=/bin', 'SLURM_JOB_NAME=wrap', 'SLURM_EXPORT_ENV=NONE', '_SLURM_SPANK_OPTION_p_o=v', 'SLURM_SPANK_TRACE=1']);
    expect(withSbatchExportVar(['PATH=/bin'], 'Y,X=1', {})).toEqual(['PATH=/bin', 'SLURM_EXPORT_ENV=Y,X=1']);
    expect(withSbatchExportVar(['PATH=/bin'], 'all', {})).toEqual(['PATH=/bin']);
    expect(withSbatchExportVar(['SLURM_EXPORT_ENV=X'], 'NONE', {})).toEqual(['SLURM_EXPORT_ENV=X']);
  });

  it('srun reads SLURM_EXPORT_ENV and SRUN_EXPORT_ENV, the command line winning', async () => {
    const env = await recordCommand('srun', [], ['/usr/bin/env'], { env: { KEEP: 'no', SLURM_EXPORT_ENV: 'NONE' } });
    expect(env.result.stdout).not.toContain('KEEP=');
    const srunEnv = await recordCommand('srun', [], ['/usr/bin/env'], { env: { KEEP: 'no', SLURM_EXPORT_ENV: 'ALL', SRUN_EXPORT_ENV: 'NONE' } });
    expect(srunEnv.result.stdout).not.toContain('KEEP=');
    const argv = await recordCommand('srun', [], ['--export=ALL', '/usr/bin/env'], { env: { KEEP: 'yes', SLURM_EXPORT_ENV: 'NONE' } });
    expect(argv.result.stdout).toContain('KEEP=yes\n');
  });

  for (const slurmVersion of ['22.05', '24.11']) {
    it(`sbatch --export=NONE: the job's sruns export NONE too (${slurmVersion})`, async () => {
      const { result, lines } = await recordCommand('sbatch', ['option=color'], ['-W', '--export=NONE', '--color=q', '--wrap', 'MINE=1 srun /usr/bin/env; /usr/bin/env'], { slurmVersion, env: { KEEP: 'no' } });
      expect(result.exitCode).toBe(0);
      const text = result.output!.text;
      expect(text.match(/^SLURM_EXPORT_ENV=NONE$/gm)).toHaveLength(2);
      expect(text).not.toContain('KEEP=');
      // The inner srun exports NONE: not the script's MINE, and under 22.05
      // not the option variable, so its step calls the option callback once.
      // 24.11 keeps the option variables: its batch step calls it too.
      expect(text).not.toContain('MINE=');
      expect(lines.filter((l) => l.callback === 'option' && l.fields.remote === '1')).toHaveLength(slurmVersion === '24.11' ? 2 : 1);
      // Neither the script nor the inner srun's task gets the caller's PATH:
      // only the directory with plugstack's srun that every job has.
      expect(text.match(/^PATH=.*$/gm)!.every((l) => !l.includes(':') && l.endsWith('/bin'))).toBe(true);
    });

    it(`srun --export=NONE with a plugin option: the option callback runs once remotely (${slurmVersion})`, async () => {
      // 22.05's slurmstepd calls it again for an option variable in the environment,
      // which --export=NONE drops; 24.11 skips options the launch request had.
      const { lines } = await recordCommand('srun', ['option=color'], ['--export=NONE', '--color=red', '/bin/true'], { slurmVersion });
      expect(lines.filter((l) => l.callback === 'option' && l.fields.remote === '1').map((l) => l.fields.optarg)).toEqual(['red']);
    });
  }
});
