/**
 * The job_script context (spank-facts §2l): one fresh helper per prolog and
 * epilog, only job_prolog/job_epilog, slurmd's environment, the items and
 * calls allowed there, getopt's static-table quirk, failures and timeouts.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { compilePlugin, readLog, repoRoot, tempDir, writeFile } from './helpers/plugins.js';

interface ProbeLine {
  callback: string;
  f: Record<string, string>;
}

async function probeStack(args: string[] = [], options: { optional?: boolean; extra?: string; slurmVersion?: string } = {}) {
  const dir = tempDir();
  const log = path.join(dir, 'probe.log');
  const so = compilePlugin('job_script_probe.c');
  const conf = writeFile(dir, 'plugstack.conf', `${options.optional ? 'optional' : 'required'} ${so} log=${log} ${args.join(' ')}\n${options.extra ?? ''}`);
  const stack = await Plugstack.load(conf, { pluginDir: [], ...(options.slurmVersion ? { slurmVersion: options.slurmVersion } : {}) });
  const lines = (): ProbeLine[] =>
    readLog(log)
      .filter((l) => / ctx=/.test(l))
      .map((l) => {
        const [callback, ...kv] = l.split(' ');
        return { callback: callback!, f: Object.fromEntries(kv.map((x) => [x.slice(0, x.indexOf('=')), x.slice(x.indexOf('=') + 1)])) };
      });
  return { stack, lines, log, dir, conf };
}

describe('stack.prolog / stack.epilog', () => {
  it('runs only job_prolog, in job_script context, with the items and calls Slurm allows there', async () => {
    const { stack, lines } = await probeStack();
    const result = await stack.prolog({ jobId: 42, uid: process.getuid!(), gid: process.getgid!() });
    expect(result).toMatchObject({ mode: 'prolog', jobId: 42, node: 'node0', status: 0, ok: true, timedOut: false, slurmdLog: [] });
    expect(result.calls.map((c) => c.hook)).toEqual(['dlopen', 'slurm_spank_job_prolog', 'dlclose']);
    const [l] = lines();
    expect(l!.callback).toBe('job_prolog');
    expect(l!.f).toMatchObject({
      ctx: '5', remote: '0', job: '0:42', step: '3009', uid: `0:${process.getuid!()}`, gid: `0:${process.getgid!()}`,
      spank_getenv: '3006', // ESPANK_NOT_REMOTE
    });
  });

  it('gives the helper slurmd’s environment: SPANK_ job control and options, the job, the script context', async () => {
    const { stack } = await probeStack();
    const prolog = await stack.prolog({
      jobId: 7, node: 'node1', nodes: ['node0', 'node1'], workDir: '/srv/work', ntasks: 4,
      jobControlEnv: { TRACE: '1', SPANK_ALREADY: 'x' },
      options: [{ plugin: 'trace', name: 'trace-opt', value: 'hello' }, { plugin: 'trace', name: 'flag', value: null }],
    });
    expect(prolog.environment).toMatchObject({
      SPANK_TRACE: '1', SPANK_ALREADY: 'x',
      SPANK__SLURM_SPANK_OPTION_trace_trace_opt: 'hello', SPANK__SLURM_SPANK_OPTION_trace_flag: '(null)',
      SLURMD_NODENAME: 'node1', SLURM_JOB_ID: '7', SLURM_JOBID: '7', SLURM_UID: String(process.getuid!()),
      SLURM_JOB_UID: String(process.getuid!()), SLURM_JOB_GID: String(process.getgid!()), SLURM_JOB_WORK_DIR: '/srv/work',
      SLURM_NODELIST: 'node[0-1]', SLURM_JOB_NODELIST: 'node[0-1]', SLURM_JOB_NUM_NODES: '2', SLURM_JOB_NTASKS: '4',
      SLURM_SCRIPT_CONTEXT: 'prolog_slurmd', SLURM_CLUSTER_NAME: 'plugstack',
    });
    expect(prolog.environment.PATH).toBeUndefined();
    expect(prolog.environment.SLURM_JOB_EXIT_CODE).toBeUndefined();
    const epilog = await stack.epilog({ jobId: 7, exitStatus: (3 << 8) });
    expect(epilog.environment).toMatchObject({ SLURM_SCRIPT_CONTEXT: 'epilog_slurmd', SLURM_JOB_EXIT_CODE: '768', SLURM_JOB_EXIT_CODE2: '3:0', SLURM_JOB_DERIVED_EC: '0' });
    expect((await stack.epilog({ jobId: 7, exitStatus: 0, derivedExitCode: 512 })).environment.SLURM_JOB_DERIVED_EC).toBe('512');
    await expect(stack.epilog({ jobId: 7, derivedExitCode: -1 })).rejects.toThrow(/derivedExitCode/);
    const killed = await stack.epilog({ jobId: 7, exitStatus: 9 });
    expect(killed.environment.SLURM_JOB_EXIT_CODE2).toBe('0:9');
  });

  it('takes the job’s credential and slurmd’s SLURM_CONF from the caller, and refuses bad ones', async () => {
    const { stack } = await probeStack();
    const r = await stack.prolog({ jobId: 3, slurmConf: '/etc/slurm/slurm.conf', credential: { batch: true, cpusPerNode: '2(x2)', startTime: 100, endTime: 400, stdIn: '/dev/null' } });
    expect(r.ok).toBe(true);
    expect(r.environment).toMatchObject({ SLURM_CONF: '/etc/slurm/slurm.conf', SLURM_JOB_CPUS_PER_NODE: '2(x2)', SLURM_JOB_START_TIME: '100', SLURM_JOB_END_TIME: '400', SLURM_JOB_STDIN: '/dev/null' });
    expect(Object.keys(r.environment).at(-1)).toBe('SLURM_JOB_USER');
    expect((await stack.prolog({ jobId: 3, slurmConf: null })).environment.SLURM_CONF).toBeUndefined();
    for (const bad of [{ credential: 'x' }, { credential: { cpusPerNode: 'two' } }, { credential: { startTime: -1 } }, { credential: { stdOut: 3 } }, { credential: { batch: 'yes' } }, { slurmConf: '' }])
      await expect(stack.prolog({ jobId: 3, ...(bad as object) }), JSON.stringify(bad)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('22.05 has no SLURM_JOB_NODELIST in the helper’s environment', async () => {
    const { stack } = await probeStack([], { slurmVersion: '22.05', extra: '' });
    const r = await stack.prolog({ jobId: 1 });
    expect(r.environment.SLURM_JOB_NODELIST).toBeUndefined();
    expect(r.environment.SLURM_NODELIST).toBe('node0');
  });

  it('getopt: a registered option is found through SPANK__SLURM_SPANK_OPTION_*, a static-table one answers ESPANK_ERROR with a warning', async () => {
    const { stack, lines } = await probeStack();
    const r = await stack.prolog({
      jobId: 3,
      options: [{ plugin: 'jsprobe', name: 'static-opt', value: 'a' }, { plugin: 'jsprobe', name: 'reg-opt', value: 'b' }],
    });
    expect(lines()[0]!.f).toMatchObject({ static: '3000:(null)', reg: '0:b', OPT: 'a' });
    expect(r.problems).toEqual([
      expect.objectContaining({ severity: 'warning', code: 'GETOPT_STATIC_IN_JOB_SCRIPT', hook: 'slurm_spank_job_prolog', context: 'job_script' }),
    ]);
    // Without the variable there is nothing to warn about.
    const quiet = await stack.epilog({ jobId: 3 });
    expect(quiet.problems).toEqual([]);
  });

  it('spank_job_control_getenv answers ESPANK_NOT_AVAIL and warns that Slurm’s helper crashes there', async () => {
    const { stack, log } = await probeStack(['jc=job_prolog']);
    const r = await stack.prolog({ jobId: 3 });
    expect(readLog(log)).toContain('jc_getenv=3009');
    expect(r.ok).toBe(true);
    expect(r.problems.map((p) => p.code)).toEqual(['JOB_CONTROL_IN_JOB_SCRIPT']);
  });

  it('starts a fresh process each time: no state from one prolog to the next', async () => {
    const { stack, lines } = await probeStack();
    await stack.prolog({ jobId: 1 });
    await stack.epilog({ jobId: 1 });
    await stack.prolog({ jobId: 2 });
    const l = lines();
    expect(l.map((x) => [x.callback, x.f.seq])).toEqual([['job_prolog', '1'], ['job_epilog', '1'], ['job_prolog', '1']]);
    expect(new Set(l.map((x) => x.f.pid)).size).toBe(3);
  });

  it('a required plugin returning -1 fails the helper (status 1); an optional one does not', async () => {
    const required = await probeStack(['fail=job_prolog']);
    const r = await required.stack.prolog({ jobId: 5 });
    expect(r).toMatchObject({ ok: false, status: 1, signal: null });
    expect(r.slurmdLog).toEqual(['spank/prolog returned status 0x0100 response=']);
    const optional = await probeStack(['fail=job_epilog'], { optional: true });
    expect((await optional.stack.epilog({ jobId: 5 })).ok).toBe(true);
  });

  it('a crash, or a hang past PrologEpilogTimeout, fails it and names plugin and hook; nothing is left running', async () => {
    const crash = await probeStack(['crash=job_prolog']);
    const c = await crash.stack.prolog({ jobId: 5 });
    expect(c).toMatchObject({ ok: false, status: null, signal: 'SIGSEGV' });
    expect(c.problems[0]).toMatchObject({ code: 'PLUGIN_CRASHED', hook: 'slurm_spank_job_prolog', signal: 'SIGSEGV' });
    const hang = await probeStack(['hang=job_epilog']);
    const h = await hang.stack.epilog({ jobId: 5, timeoutMs: 300 });
    expect(h).toMatchObject({ ok: false, timedOut: true, signal: 'SIGKILL' });
    expect(h.slurmdLog).toEqual(['spank/epilog timed out', 'spank/epilog returned status 0x0009 response=']);
    expect(h.problems[0]).toMatchObject({ code: 'PLUGIN_TIMEOUT', hook: 'slurm_spank_job_epilog' });
    const pid = hang.lines()[0]!.f.pid!;
    expect(() => process.kill(Number(pid), 0)).toThrow();
  });

  it('exits 1 with Slurm’s errors when the job is missing from its environment', async () => {
    const { stack, lines } = await probeStack();
    const r = await stack.prolog({ jobId: 0, environment: { SLURM_JOBID: '4', SLURM_UID: 'x1', SLURM_JOB_GID: '0' } });
    expect(r.status).toBe(1);
    expect(r.log.map((l) => l.message)).toEqual(['Invalid SLURM_UID=x1', 'spank environment invalid']);
    expect(lines()).toEqual([]);
  });

  it('loads only plugins that define job_prolog or job_epilog', async () => {
    const only = compilePlugin('job_script_probe.c', { defines: { ONLY_PROLOG: true } });
    const recorder = compilePlugin('options_probe.c', { defines: { ONLY_MAIN: true } });
    const dir = tempDir();
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', `required ${recorder}\nrequired ${only}\n`), { pluginDir: [] });
    const r = await stack.epilog({ jobId: 1 });
    // Both are opened; the one without either callback is closed at once.
    expect(r.calls.map((c) => `${path.basename(c.plugin).split('-')[0]} ${c.hook}`)).toEqual([
      'options_probe dlopen', 'options_probe dlclose', 'job_script_probe dlopen', 'job_script_probe dlclose',
    ]);
  });
});

describe('plugstack prolog / epilog', () => {
  const bin = path.join(repoRoot, 'bin', 'plugstack.cjs');
  it('reads the job from the environment like the helper, prints its errors, exits with its status', async () => {
    const { conf } = await probeStack(['fail=job_epilog']);
    const run = (args: string[], env: Record<string, string>) =>
      spawnSync(process.execPath, [bin, ...args, '--conf', conf], { encoding: 'utf8', env: { PATH: process.env.PATH!, ...env } });
    const ok = run(['prolog'], { SLURM_JOBID: '8', SLURM_UID: String(process.getuid!()), SLURM_JOB_GID: '0' });
    expect([ok.status, ok.stderr]).toEqual([0, '']);
    const missing = run(['prolog'], {});
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe('spank-prolog: error: Unable to get SLURM_JOBID in env!\nspank-prolog: error: spank environment invalid\n');
    const failing = run(['epilog', '--job-id', '8'], {});
    expect(failing.status).toBe(1);
  });
});
