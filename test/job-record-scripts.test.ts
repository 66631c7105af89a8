/**
 * slurm_load_job from the job prolog and epilog helpers (job_record.c, a
 * real C plugin): the record is the running job's at the prolog and, at
 * the epilog, the completing job's with the state, exit code, derived exit
 * code and reason slurmctld's _job_complete gives it. Under 24.11 the
 * helper has started no authentication plugins, so the call without the
 * plugin's own slurm_init() kills it, as it kills Slurm's: the prolog fails
 * and the node is drained. What each real release did is in README.md's
 * libslurm section; test/conformance has the 24.11 scenarios.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { compilePlugin, readLog, tempDir, writeFile } from './helpers/plugins.js';

const DEBIAN = '/usr/include/slurm/slurm.h';
const requireHeaders = process.env.PLUGSTACK_REQUIRE_SLURM_HEADERS === '1';
const ENV = { PATH: '/usr/bin:/bin' };
const RUNNING = '1';
const COMPLETE_COMPLETING = String(3 | 0x8000);
const FAILED_COMPLETING = String(5 | 0x8000);

async function stackWith(args: string, slurmVersion: '22.05' | '24.11' = '24.11', include?: string) {
  const dir = tempDir();
  const log = path.join(dir, 'record.log');
  const plugin = compilePlugin('job_record.c', include ? { include } : {});
  const conf = writeFile(dir, 'plugstack.conf', `required ${plugin} log=${log} ${args}\n`);
  const stack = await Plugstack.load(conf, { pluginDir: [], slurmVersion });
  return { dir, log, stack };
}

/** The answered lines, by callback: "key=value" fields. */
function answers(log: string): { cb: string; v: Record<string, string> }[] {
  return readLog(log)
    .filter((l) => / rc=/.test(l))
    .map((l) => ({ cb: l.split(' ')[0]!, v: Object.fromEntries(l.split(' ').slice(1).map((t) => t.split('=') as [string, string])) }));
}

describe('slurm_load_job in the job prolog and epilog', () => {
  it('24.11, with slurm_init: RUNNING at the prolog; at the epilog FAILED|COMPLETING, the status, the derived code, FAIL_EXIT_CODE, the end', async () => {
    const { dir, log, stack } = await stackWith('init');
    const r = await stack.srun({ args: ['-n', '2', 'sh', '-c', 'exit 3'], cwd: dir, env: ENV });
    expect(r.exitCode).toBe(3);
    const a = answers(log);
    expect(a.map((x) => x.cb).sort()).toEqual(['job_epilog', 'job_prolog']);
    const at = (cb: string) => a.find((x) => x.cb === cb)!.v;
    expect(at('job_prolog')).toMatchObject({ rc: '0', state: RUNNING, exit: '0', derived: '0', reason: '0', ended: '0', desc: '-' });
    expect(at('job_epilog')).toMatchObject({ rc: '0', state: FAILED_COMPLETING, exit: '768', derived: '768', reason: '24', batch: '0', ended: '1', desc: '-', JOB_ID: String(r.job!.jobId) });
  });

  it('24.11, with slurm_init: a task killed by a signal gives FAILED with FAIL_SIGNAL (22.05: FAIL_LAUNCH) and the signal as exit code', async () => {
    const { dir, log, stack } = await stackWith('init');
    const r = await stack.srun({ args: ['-n', '1', 'sh', '-c', 'kill -9 $$'], cwd: dir, env: ENV });
    expect(r.exitCode).toBe(137);
    const epilog = answers(log).find((x) => x.cb === 'job_epilog')!.v;
    // 33, FAIL_SIGNAL, as a real 24.11 gave (_job_complete); 22.05 gives 23, FAIL_LAUNCH.
    // state_desc describes it, as a real 24.11's did: 22.05 leaves it unset.
    expect(epilog).toMatchObject({ state: FAILED_COMPLETING, exit: '9', derived: '9', reason: '33', desc: 'RaisedSignal:9(Killed)' });
  });

  it('24.11, with slurm_init: a batch job is COMPLETE by its script’s status, its derived code its srun’s', async () => {
    const { dir, log, stack } = await stackWith('init');
    const r = await stack.sbatch({ args: ['-W', '-o', '/dev/null', '--wrap', 'srun -n 1 sh -c "exit 4"; exit 0'], cwd: dir, env: ENV });
    expect(r.exitCode).toBe(0);
    const epilog = answers(log).find((x) => x.cb === 'job_epilog')!.v;
    expect(epilog).toMatchObject({ state: COMPLETE_COMPLETING, exit: '0', derived: '1024', reason: '0', batch: '1', ended: '1' });
  });

  it('24.11, with slurm_init: a batch job cancelled (a signal to sbatch) or past its time limit finishes first; its script’s SIGTERM fills in the exit code', async () => {
    const { dir, log, stack } = await stackWith('init');
    // Cancelled as scancel does it: SIGCONT, then SIGTERM, which ends the script.
    const controller = new AbortController();
    const started = path.join(dir, 'started');
    const cancelled = stack.sbatch({ args: ['-o', '/dev/null', '--wrap', `touch ${started}; sleep 30`], cwd: dir, env: ENV, signal: controller.signal });
    // Cancelled once the script runs.
    const giveUp = Date.now() + 30_000;
    while (!fs.existsSync(started) && Date.now() < giveUp) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    const c = await cancelled;
    expect(c.job).toMatchObject({ state: 'CANCELLED', exitCode: 15 });
    // A real 24.11 (scancel of a sleeping script, then -t 1) gave these
    // two records, as a real 22.05 did: no state_desc.
    expect(answers(log).find((x) => x.cb === 'job_epilog')!.v).toMatchObject({ state: String(4 | 0x8000), exit: '15', derived: '0', reason: '0', batch: '1', ended: '1', desc: '-' });
    fs.rmSync(log);
    // -t 0:1: one second; TIMEOUT with FAIL_TIMEOUT.
    const t = await stack.sbatch({ args: ['-t', '0:1', '-o', '/dev/null', '--wrap', 'sleep 30'], cwd: dir, env: ENV });
    expect(t.job).toMatchObject({ state: 'TIMEOUT', exitCode: 15 });
    expect(answers(log).find((x) => x.cb === 'job_epilog')!.v).toMatchObject({ state: String(6 | 0x8000), exit: '15', derived: '0', reason: '25', batch: '1', ended: '1', desc: '-' });
  });

  it('stack.prolog() and stack.epilog(): a record made of the options (running; ended with exitStatus), or the one given as `job`', async () => {
    const { dir, log, stack } = await stackWith('init');
    const pro = await stack.prolog({ jobId: 4242, nodes: ['node0', 'node1'], ntasks: 3, credential: { batch: true }, workDir: dir });
    expect(pro.ok).toBe(true);
    expect(answers(log)).toEqual([{ cb: 'job_prolog', v: expect.objectContaining({ rc: '0', state: RUNNING, exit: '0', reason: '0', batch: '1', ended: '0', JOB_ID: '4242' }) }]);
    fs.rmSync(log);
    const epi = await stack.epilog({ jobId: 4242, exitStatus: 768, derivedExitCode: 512 });
    expect(epi.ok).toBe(true);
    expect(answers(log)[0]!.v).toMatchObject({ rc: '0', state: FAILED_COMPLETING, exit: '768', derived: '512', reason: '24', batch: '0', ended: '1', JOB_ID: '4242' });
    fs.rmSync(log);
    // A record of the caller's own: what slurmctld would have said of a cancelled job.
    const { jobScriptRecord } = await import('../lib/daemon/job-script.js');
    const given = { ...jobScriptRecord({ conf: '', slurmVersion: '24.11', pluginDirs: [] }, 'prolog', { jobId: 77 }), job_state: 4 | 0x8000, exit_code: 15 };
    await stack.epilog({ jobId: 77, job: given });
    expect(answers(log)[0]!.v).toMatchObject({ state: String(4 | 0x8000), exit: '15', JOB_ID: '77' });
    fs.rmSync(log);
    // A whole environment (plugstack epilog without --job-id): the job as that environment names it.
    const uid = String(process.getuid!());
    const environment = { SLURM_JOBID: '31', SLURM_JOB_ID: '31', SLURM_UID: uid, SLURM_JOB_UID: uid, SLURM_JOB_GID: String(process.getgid!()), SLURMD_NODENAME: 'node0', SLURM_JOB_EXIT_CODE: '9', SLURM_JOB_DERIVED_EC: '0', PATH: '/usr/bin:/bin' };
    expect((await stack.epilog({ jobId: 0, environment })).ok).toBe(true);
    expect(answers(log)[0]!.v).toMatchObject({ state: FAILED_COMPLETING, exit: '9', reason: '33', JOB_ID: '31' });
  });

  it('24.11, without slurm_init: the helper dies in the call with Slurm’s fatal line, the prolog fails and drains the node', async () => {
    const { dir, log, stack } = await stackWith('');
    const r = await stack.srun({ args: ['-n', '1', 'true'], cwd: dir, env: ENV });
    expect(r.stderr).toContain('Job prolog failed');
    expect(r.steps).toEqual([]);
    // The prolog and the epilog each got as far as the call.
    expect(readLog(log).map((l) => l.split(' ').slice(0, 3).join(' ')).sort()).toEqual(['job_epilog ctx=5 asking', 'job_prolog ctx=5 asking']);
    expect(answers(log)).toEqual([]);
    for (const js of r.jobScripts) {
      expect(js.ok).toBe(false);
      expect(js.status).toBe(1);
      expect(js.slurmdLog).toEqual([`spank/${js.mode} returned status 0x0100 response=`]);
      expect(js.log).toContainEqual(expect.objectContaining({ source: 'slurm', message: expect.stringContaining('No hash plugins loaded. Was slurm_init() called before calling any Slurm API functions?') }));
      expect(js.problems).toContainEqual(expect.objectContaining({ code: 'PLUGIN_EXITED', hook: `slurm_spank_job_${js.mode}` }));
    }
    expect(r.job).toMatchObject({ state: 'FAILED', drained: expect.arrayContaining([{ node: 'node0', reason: 'Prolog error' }]) });
  });

  it('24.11: in slurmstepd’s user_init slurm_init takes the lock slurmstepd holds there, and slurmstepd aborts', async () => {
    const { dir, log, stack } = await stackWith('init userinit');
    const r = await stack.srun({ args: ['-n', '1', 'true'], cwd: dir, env: ENV });
    expect(readLog(log).filter((l) => l.startsWith('user_init')).map((l) => l.split(' ').slice(0, 3).join(' '))).toEqual(['user_init ctx=2 asking']);
    expect(r.stderr).toContain('slurmstepd: fatal: auth_g_init: pthread_rwlock_wrlock(): Resource deadlock avoided\n');
    const problems = r.steps.flatMap((st) => st.problems);
    expect(problems).toContainEqual(expect.objectContaining({ code: 'PLUGIN_CRASHED', hook: 'slurm_spank_user_init' }));
    expect(problems.find((p) => p.code === 'PLUGIN_CRASHED')!.message).toContain('SIGABRT');
  });

  it.skipIf(!fs.existsSync(DEBIAN) && !requireHeaders)(`22.05 (${DEBIAN}), without slurm_init: the helper answers`, async () => {
    const { dir, log, stack } = await stackWith('', '22.05', '/usr/include');
    const r = await stack.srun({ args: ['-n', '1', 'sh', '-c', 'exit 2'], cwd: dir, env: ENV });
    expect(r.exitCode).toBe(2);
    const a = answers(log);
    expect(a.find((x) => x.cb === 'job_prolog')!.v).toMatchObject({ rc: '0', state: RUNNING, exit: '0' });
    expect(a.find((x) => x.cb === 'job_epilog')!.v).toMatchObject({ rc: '0', state: FAILED_COMPLETING, exit: '512', derived: '512', reason: '24', ended: '1' });
    // A task killed by a signal: FAIL_LAUNCH, 23, as a real 22.05 gave (24.11: FAIL_SIGNAL).
    fs.rmSync(log);
    const k = await stack.srun({ args: ['-n', '1', 'sh', '-c', 'kill -9 $$'], cwd: dir, env: ENV });
    expect(k.exitCode).toBe(137);
    expect(answers(log).find((x) => x.cb === 'job_epilog')!.v).toMatchObject({ state: FAILED_COMPLETING, exit: '9', derived: '9', reason: '23', desc: '-' });
  });
});
