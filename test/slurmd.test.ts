/**
 * The slurmd context (spank-facts §2a, §2d): init at daemon start for the
 * plugins that define init or slurmd_exit, slurmd_exit at shutdown, the
 * job_prolog/job_epilog scan, and scenario 07 of real-slurm-22.05.md.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { compilePlugin, readLog, tempDir, writeFile } from './helpers/plugins.js';

async function stackOf(lines: string[], slurmVersion?: string) {
  const dir = tempDir();
  const log = path.join(dir, 'probe.log');
  const conf = writeFile(dir, 'plugstack.conf', lines.map((l) => l.replace('LOG', log)).join('\n') + '\n');
  const stack = await Plugstack.load(conf, { pluginDir: [], ...(slurmVersion ? { slurmVersion } : {}) });
  return { stack, log };
}

describe('stack.slurmd', () => {
  it('runs init at start and slurmd_exit at stop, in one process, with the SLURMD rows of the items table', async () => {
    const probe = compilePlugin('job_script_probe.c');
    const { stack, log } = await stackOf([`required ${probe} log=LOG`]);
    const slurmd = await stack.slurmd({ node: 'node3' });
    expect(slurmd).toMatchObject({ node: 'node3', started: true, initRc: 0, runsJobProlog: true, runsJobEpilog: true });
    expect(readLog(log).map((l) => l.split(' ')[0])).toEqual(['init']);
    const stop = await slurmd.stop();
    expect(stop.exitRc).toBe(0);
    // (slurmd's mpi plugins, plugstack's own pmi2 among them: test/mpi.test.ts.)
    const spank = (calls: { plugin: string }[]) => calls.filter((c) => !c.plugin.startsWith('mpi/'));
    expect(spank(stop.calls).map((c) => (c as { hook: string }).hook)).toEqual(['dlopen', 'slurm_spank_init', 'slurm_spank_slurmd_exit', 'dlclose']);
    const lines = readLog(log);
    expect(lines.map((l) => l.split(' ')[0])).toEqual(['init', 'slurmd_exit']);
    for (const l of lines) {
      expect(l).toContain(' ctx=4 remote=0 ');
      expect(l).toContain(' job=3009:0 step=3009 uid=3009:0 gid=3009:0 static=3009:(null) reg=3009:(null) spank_getenv=3006 ');
    }
    // One process: the second callback sees the first one's state.
    expect(lines[1]).toContain(' seq=2 ');
    expect(await slurmd.stop()).toBe(stop);
  });

  it('keeps only plugins with init or slurmd_exit, but any job_prolog in the file makes prologs run', async () => {
    const onlyProlog = compilePlugin('job_script_probe.c', { defines: { ONLY_PROLOG: true } });
    const { stack } = await stackOf([`required ${onlyProlog}`]);
    const slurmd = await stack.slurmd();
    expect(slurmd).toMatchObject({ started: true, runsJobProlog: true, runsJobEpilog: false });
    expect(slurmd.record.calls.filter((c) => !c.plugin.startsWith('mpi/')).map((c) => c.hook)).toEqual(['dlopen', 'dlclose']);
    await slurmd.stop();
    const empty = await (await stackOf([])).stack.slurmd();
    expect(empty).toMatchObject({ started: true, runsJobProlog: false, runsJobEpilog: false });
    await empty.stop();
  });

  it('a failing init stops slurmd from starting: no slurmd_exit, no fini', async () => {
    const probe = compilePlugin('job_script_probe.c');
    const { stack, log } = await stackOf([`required ${probe} log=LOG fail=init`]);
    const slurmd = await stack.slurmd();
    expect(slurmd).toMatchObject({ started: false, initRc: -1 });
    expect(slurmd.record.log.map((l) => l.message)).toContain('slurmd initialization failed');
    const stop = await slurmd.stop();
    expect(stop.exitRc).toBeNull();
    expect(readLog(log).map((l) => l.split(' ')[0])).toEqual(['init']);
    expect(stop.calls.map((c) => c.hook)).toEqual(['dlopen', 'slurm_spank_init']);
  });

  it('a failing slurmd_exit is logged by 24.11 and ignored by 22.05', async () => {
    const probe = compilePlugin('job_script_probe.c');
    const v24 = await (await stackOf([`required ${probe} fail=slurmd_exit`])).stack.slurmd();
    const s24 = await v24.stop();
    expect(s24.exitRc).toBe(-1);
    expect(s24.log.map((l) => l.message)).toContain('_slurmd_fini: SPANK slurmd exit failed: Unspecified error');
    const probe22 = compilePlugin('trace.c', { defines: { PLUGIN_VERSION: 0x160508 } });
    const v22 = await (await stackOf([`required ${probe22}`], '22.05')).stack.slurmd();
    expect((await v22.stop()).log.filter((l) => l.source === 'slurm' && l.level === 'error')).toEqual([]);
  });

  it('a plugin that crashes in slurmd_exit is reported with its hook; stop() still resolves', async () => {
    const probe = compilePlugin('job_script_probe.c');
    const { stack } = await stackOf([`required ${probe} crash=slurmd_exit`]);
    const stop = await (await stack.slurmd()).stop();
    expect(stop.problems[0]).toMatchObject({ code: 'PLUGIN_CRASHED', hook: 'slurm_spank_slurmd_exit', context: 'slurmd' });
  });
});

describe('scenario 07: restart slurmd (22.05)', () => {
  it('runs slurmd_exit in the old slurmd, then init in the new one, in SLURMD context', async () => {
    const trace = compilePlugin('trace.c', { defines: { PLUGIN_VERSION: 0x160508 } });
    const { stack, log } = await stackOf([`required ${trace} log=LOG`], '22.05');
    const old = await stack.slurmd();
    await old.stop();
    const fresh = await stack.slurmd();
    const lines = readLog(log);
    const calls = lines.filter((l) => / ctx=/.test(l));
    expect(calls.map((l) => l.split(' ')[0])).toEqual(['init', 'slurmd_exit', 'init']);
    expect(lines.filter((l) => l === 'option_register=0')).toHaveLength(2);
    const pid = (l: string) => /pid=(\d+)/.exec(l)![1];
    expect(pid(calls[0]!)).toBe(pid(calls[1]!));
    expect(pid(calls[2]!)).not.toBe(pid(calls[1]!));
    for (const l of calls)
      expect(l).toMatch(/ ctx=4 remote=0 JOB_ID=ERR3009 STEPID=ERR3009 NNODES=ERR3009 UID=ERR3009 TASK_ID=ERR3009 GTASK=ERR3009 TPID=ERR3009 EXIT=ERR3009 getenv=ERR3006 getopt=ERR3009 /);
    await fresh.stop();
  });
});
