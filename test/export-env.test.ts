/**
 * srun's and sbatch's --export, as the real 22.05 and 24.11 showed it (a
 * differential run: `env` in a task and in a batch job, compared in order):
 * srun puts the named variables first and ends the list at NONE, and ALL
 * anywhere in it passes srun's whole environment, whose values win; sbatch
 * reads the list in order, ALL where it stands, and keeps the variables
 * Slurm always passes (24.11 also the remote option variables).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportItems, sbatchExportEnv, sbatchGetsUserEnv, srunExportEnv, withSbatchExportVar } from '../lib/cluster/export-env.js';
import { overLoginEnv } from '../lib/daemon/user-env.js';
import { recordCommand } from './helpers/command.js';
import { repoRoot, tempDir, writeFile } from './helpers/plugins.js';

const asRoot = process.getuid!() === 0;

/** The oracle: what root's login shell prints, run the way slurmd runs it (su -, ENVIRONMENT=BATCH alone). */
function loginShell(command: string): string {
  const r = spawnSync('/bin/su', ['-', os.userInfo().username, '-c', command], { env: { ENVIRONMENT: 'BATCH' }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`su: ${r.stderr}`);
  return r.stdout;
}

const names = (text: string) => text.split('\n').filter((l) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(l)).map((l) => l.slice(0, l.indexOf('=')));

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

  it("sbatch asks slurmd for the user's login environment for --get-user-env and any --export other than ALL (24.11: not for NIL)", () => {
    expect(sbatchGetsUserEnv(undefined, false, '24.11')).toBe(false);
    expect(sbatchGetsUserEnv('all', false, '24.11')).toBe(false);
    expect(sbatchGetsUserEnv(undefined, true, '22.05')).toBe(true);
    for (const option of ['NONE', 'ALL,FOO=bar', 'PATH', 'FOO=1']) expect(sbatchGetsUserEnv(option, false, '22.05')).toBe(true);
    expect(sbatchGetsUserEnv('NIL', false, '22.05')).toBe(true);
    expect(sbatchGetsUserEnv('nil', false, '24.11')).toBe(false);
  });

  it("slurmd merges the job's environment over the login's: the login's names first, the job's values winning", () => {
    expect(overLoginEnv(['HOME=/root', 'PATH=/login', 'SHELL=/bin/bash'], ['PATH=/job', 'SLURM_JOB_ID=7', 'HOME=/home'])).toEqual([
      'HOME=/home',
      'PATH=/job',
      'SHELL=/bin/bash',
      'SLURM_JOB_ID=7',
    ]);
  });

  for (const slurmVersion of ['22.05', '24.11'])
    it.skipIf(!asRoot)(`sbatch --export=NONE and --get-user-env: the batch job starts from the login environment su - gives, with its limits (${slurmVersion})`, async () => {
      const login = loginShell('/usr/bin/env');
      const expected = names(login).filter((n) => !['DISPLAY', 'ENVIRONMENT', 'HOSTNAME', '_'].includes(n));
      const none = await recordCommand('sbatch', [], ['-W', '--export=NONE', '--wrap', '/usr/bin/env'], { slurmVersion, env: { KEEP: 'no' } });
      expect(none.result.exitCode, none.result.stderr).toBe(0);
      const text = none.result.output!.text;
      // Every variable of the login's (the script's shell prints them in
      // an order of its own; the conformance suite compares the order
      // plugins see).
      expect(names(text)).toEqual(expect.arrayContaining(expected));
      expect(text).toMatch(/^SLURM_GET_USER_ENV=1$/m);
      expect(text).not.toContain('KEEP=');
      // The login shell ran `plugstack-host getenv`, as Slurm's runs `slurmstepd getenv`.
      expect(text).toMatch(/^_=\S+\/plugstack-host$/m);
      // The login's PATH, with plugstack's srun first.
      expect(text).toMatch(new RegExp(`^PATH=\\S+/bin:${loginShell('printf %s "$PATH"').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
      // --get-user-env: the caller's variables stay, and the limits are the login's, not sbatch's.
      const own = await recordCommand('sbatch', [], ['-W', '--get-user-env', '--wrap', 'ulimit -Sn; /usr/bin/env'], { slurmVersion, env: { KEEP: 'yes' } });
      expect(own.result.exitCode, own.result.stderr).toBe(0);
      const ownText = own.result.output!.text;
      expect(ownText.split('\n')[0]).toBe(loginShell('ulimit -Sn').trim());
      expect(ownText).toContain('KEEP=yes\n');
      expect(names(ownText)).toEqual(expect.arrayContaining(expected));
      // slurmd looks at the job's environment only: SLURM_GET_USER_ENV=1 from the caller counts too.
      const asked = await recordCommand('sbatch', [], ['-W', '--wrap', '/usr/bin/env'], { slurmVersion, env: { SLURM_GET_USER_ENV: '1' } });
      expect(names(asked.result.output!.text)).toContain('LOGNAME');
    });

  it.skipIf(!asRoot)("--get-user-env: the job's limits are the login shell's, which inherits slurmd's raised CPU limit, not sbatch's", () => {
    const dir = tempDir();
    const conf = writeFile(dir, 'plugstack.conf', '');
    // sbatch with a CPU time soft limit of its own, which it sends unless --get-user-env.
    const cpuLimit = (extra: string[]) => {
      const out = path.join(dir, `cpu${extra.length}.txt`);
      const r = spawnSync('prlimit', ['--cpu=1000:unlimited', process.execPath, path.join(repoRoot, 'bin', 'plugstack.cjs'), 'batch', '--conf', conf, '-W', ...extra, '-o', out, '--wrap', 'ulimit -St'], { cwd: dir, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      return fs.readFileSync(out, 'utf8').trim();
    };
    const login = loginShell('ulimit -St').trim();
    expect(login).not.toBe('1000');
    expect(cpuLimit([])).toBe('1000');
    expect(cpuLimit(['--get-user-env'])).toBe(login);
  });

  // As another user: where this checkout is readable by nobody.
  const asNobody = asRoot && spawnSync('runuser', ['-u', 'nobody', '--', 'test', '-r', path.join(repoRoot, 'bin', 'plugstack.cjs')]).status === 0;
  it.skipIf(!asNobody)('without root, a batch job that asks for the login environment runs with what it was sent, and sbatch says so once', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plugstack-nobody-'));
    try {
      fs.chmodSync(dir, 0o777);
      const conf = writeFile(dir, 'plugstack.conf', '');
      fs.chmodSync(conf, 0o644);
      const r = spawnSync('runuser', ['-u', 'nobody', '--', process.execPath, path.join(repoRoot, 'bin', 'plugstack.cjs'), 'batch', '--conf', conf, '-W', '--export=NONE', '-o', 'out.txt', '--wrap', 'echo "HOME=$HOME LOGNAME=$LOGNAME"'], { cwd: dir, encoding: 'utf8', env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' } });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr.trim().split('\n')).toEqual(["plugstack: error: slurmd: the batch job runs without the user's login environment (SLURM_GET_USER_ENV=1): slurmd loads it as root only"]);
      expect(fs.readFileSync(path.join(dir, 'out.txt'), 'utf8')).toBe('HOME= LOGNAME=\n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
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
      // the script has the directory with plugstack's srun that every job
      // has, then the login's (as root, where slurmd can load it); the
      // inner srun's task, none.
      expect(text.match(/^PATH=.*$/gm)).toEqual([expect.stringMatching(asRoot ? /^PATH=[^:]*\/bin:/ : /^PATH=[^:]*\/bin$/)]);
      expect(text).not.toContain('PATH=/usr/bin:/bin\n');
    });

    it(`srun --export=NONE with a plugin option: the option callback runs once remotely (${slurmVersion})`, async () => {
      // 22.05's slurmstepd calls it again for an option variable in the environment,
      // which --export=NONE drops; 24.11 skips options the launch request had.
      const { lines } = await recordCommand('srun', ['option=color'], ['--export=NONE', '--color=red', '/bin/true'], { slurmVersion });
      expect(lines.filter((l) => l.callback === 'option' && l.fields.remote === '1').map((l) => l.fields.optarg)).toEqual(['red']);
    });
  }
});
