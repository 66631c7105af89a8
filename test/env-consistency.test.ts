/**
 * Arrays paired with counters stay consistent (issue 12, "Data Structure
 * Consistency"): a SPANK plugin that writes into the job environment array
 * (S_JOB_ENV) itself is reported with its plugin and hook, and the tasks
 * get what is readable of it. (An mpi plugin's arrays are checked after
 * every hook: test/mpi.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { compilePlugin, tempDir, writeFile } from './helpers/plugins.js';

async function step(how: string) {
  const dir = tempDir('plugstack-envc-');
  const conf = writeFile(dir, 'plugstack.conf', `required ${compilePlugin('env_writer.c')} how=${how}\n`);
  const stack = await Plugstack.load(conf);
  return stack.launchStep({ argv: ['/bin/sh', '-c', 'echo ${ENV_WRITER-unset} ${FIRST-unset} ${SECOND-unset} ${THIRD-unset}'], env: ['FIRST=1', 'SECOND=2', 'THIRD=3', 'PATH=/usr/bin:/bin'], launcherEnv: false });
}

describe('a SPANK plugin writing into S_JOB_ENV itself', () => {
  it.each([
    ['replace', 'entry 0 was replaced in place', 'mine unset 2 3'],
    ['noequals', `entry 0 ("ENV_WRITER_NO_EQUALS") has no '='`, 'unset unset 2 3'],
    ['cut', 'a NULL written at entry 1 cuts the array short', 'unset 1 unset unset'],
  ])('%s: SPANK_ENV_BROKEN names the plugin and hook; the tasks get what is readable', async (how, what, output) => {
    const r = await step(how);
    const p = r.problems.find((x) => x.code === 'SPANK_ENV_BROKEN')!;
    expect(p.hook).toBe('slurm_spank_user_init');
    expect(p.plugin).toMatch(/env_writer/);
    expect(p.message).toContain(what);
    expect(r.tasks[0]!.stdout).toBe(`${output}\n`);
  });
});
