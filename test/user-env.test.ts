/**
 * slurmd's _get_user_env (lib/daemon/user-env.ts, native lifecycle/
 * user_env.cc): the login environment comes from the real su and the
 * user's real login shell, checked against what su - prints when run here
 * the same way; a user su does not know gives Slurm's lines and no
 * environment.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadUserEnv } from '../lib/daemon/user-env.js';
import { tempDir, writeFile } from './helpers/plugins.js';

const asRoot = process.getuid!() === 0;

function stackIn(slurmVersion: string) {
  return { conf: writeFile(tempDir(), 'plugstack.conf', ''), slurmVersion, pluginDirs: [] };
}

const names = (list: string[]) => list.map((e) => e.slice(0, e.indexOf('=')));

describe.skipIf(!asRoot)("slurmd's login environment for a batch job", () => {
  for (const slurmVersion of ['22.05', '24.11'])
    it(`su - prints the login shell's limits, then its environment (${slurmVersion})`, async () => {
      const user = os.userInfo().username;
      const loaded = await loadUserEnv(stackIn(slurmVersion), 'node0', user);
      expect(loaded.env, JSON.stringify(loaded.log)).toBeDefined();
      const env = loaded.env!;
      // print_rlimits: Slurm's ten limits, in its table's order, the soft values.
      expect(names(env).slice(0, 10)).toEqual(['CPU', 'FSIZE', 'DATA', 'STACK', 'CORE', 'RSS', 'NPROC', 'NOFILE', 'MEMLOCK', 'AS'].map((n) => `SLURM_RLIMIT_${n}`));
      const oracle = spawnSync('/bin/su', ['-', user, '-c', 'ulimit -Sn; /usr/bin/env; /bin/echo'], { env: { ENVIRONMENT: 'BATCH' }, encoding: 'utf8' }).stdout.split('\n');
      expect(env).toContain(`SLURM_RLIMIT_NOFILE=${oracle[0]}`);
      // The same variables su's shell has here (env not last, as Slurm's
      // getenv is not: bash would exec it and lower SHLVL), but those
      // slurmd drops and _, which names the program that printed them.
      const expected = oracle.slice(1).filter((l) => /^[A-Za-z_]\w*=/.test(l) && !/^(DISPLAY|ENVIRONMENT|HOSTNAME|_)=/.test(l));
      // (Names in order; values but a session's own, which pam_systemd gives each su.)
      const perSession = /^XDG_SESSION_ID=/;
      const got = env.filter((e) => !e.startsWith('SLURM_RLIMIT_') && !e.startsWith('_='));
      expect(names(got)).toEqual(names(expected));
      expect(got.filter((e) => !perSession.test(e))).toEqual(expected.filter((e) => !perSession.test(e)));
      expect(env.find((e) => e.startsWith('_='))).toMatch(/\/plugstack-host$/);
      expect(loaded.log.filter((l) => l.level === 'error')).toEqual([]);
    });

  it('a user su does not know: no environment, and the lines Slurm logs', async () => {
    const loaded = await loadUserEnv(stackIn('24.11'), 'node0', 'plugstack-no-such-user');
    expect(loaded.env).toBeUndefined();
    expect(loaded.log.filter((l) => l.level === 'error').map((l) => l.message)).toEqual([
      'Failed to get current user environment variables',
      "_get_user_env: Unable to get user's local environment, running only with passed environment",
    ]);
  });
});
