/**
 * job_container plugins (issue 13), with the trace fixture
 * (test/fixtures/plugins/job_container_trace.c, built at test time against
 * <plugstack/job_container.h> for the release): loading as Slurm loads
 * them (the full version match, every hook of the release, Slurm 14.03's
 * API 101 refused on its version and then on its hooks), check, and
 * slurmd's calls (restore at start after SPANK's init, fini at the end).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { readSlurmConf } from '../lib/config/slurm-conf.js';
import { JobContainerJob } from '../lib/job-container/job.js';
import { jobContainerSettings } from '../lib/job-container/settings.js';
import { compilePlugin, readLog, repoRoot, tempDir, writeFile } from './helpers/plugins.js';

export const JC_NUMBER: Record<string, number> = { '22.05': 0x160508, '24.11': 0x180b05, '24.11.0': 0x180b00 };
const RELEASES = ['24.11', '22.05'] as const;

/** The trace plugin's directory (job_container_trace.so), for a release and variant. */
export function jcTrace(release: string, defines: Record<string, string | number | true> = {}, name = 'job_container_trace.so'): string {
  return path.dirname(compilePlugin('job_container_trace.c', { defines: { SLURM_VERSION_NUMBER: JC_NUMBER[release]!, ...defines }, name }));
}

function spankTrace(release: string): string {
  return compilePlugin('trace.c', release === '22.05' ? { defines: { PLUGIN_VERSION: 0x160508 } } : {});
}

function checkFile(dir: string, release = '24.11') {
  return spawnSync(
    process.execPath,
    [path.join(repoRoot, 'bin', 'plugstack.cjs'), 'check', '--slurm-version', release, '--json', path.join(dir, 'job_container_trace.so')],
    { encoding: 'utf8' },
  );
}

interface JcReport {
  ok: boolean;
  jobContainer: { ok: boolean; types: string[]; plugins: { type: string; loaded: boolean; code?: string }[]; problems: { code: string; message: string }[] };
}

describe.each(RELEASES)('Slurm %s: loading', (release) => {
  it('loads a plugin with every hook of the release, built for it to the micro version', () => {
    const r = checkFile(jcTrace(release), release);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toContain('is a job_container plugin: checking it as slurmd and slurmstepd load it');
    const report = JSON.parse(r.stdout) as JcReport;
    expect(report.jobContainer.types).toEqual(['job_container/trace']);
    expect(report.jobContainer.plugins).toEqual([expect.objectContaining({ type: 'trace', loaded: true })]);
  });

  it("refuses a plugin of the seed document's API 101 on its version, and names the hooks it would still lack", () => {
    const r = checkFile(jcTrace(release, { API101: true }), release);
    expect(r.status).toBe(1);
    const jc = (JSON.parse(r.stdout) as JcReport).jobContainer;
    expect(jc.ok).toBe(false);
    expect(jc.plugins[0]!.code).toBe('PLUGIN_VERSION_MISMATCH');
    const message = jc.problems.find((p) => p.code === 'PLUGIN_VERSION_MISMATCH')!.message;
    expect(message).toContain('built for Slurm 0.00.101');
    expect(message).toContain("its plugin_version 101 is the API number of Slurm 14.03's job_container interface");
    expect(message).toContain('container_p_add_pid (replaced by container_p_join in 20.02)');
    if (release === '24.11') {
      expect(message).toContain('it lacks container_p_join, container_p_join_external, container_p_stepd_create, container_p_stepd_delete, container_p_send_stepd, container_p_recv_stepd');
      expect(message).toContain('container_p_create (removed in 24.05');
      expect(message).toContain('container_p_reconfig (removed in 24.05)');
    } else {
      expect(message).toContain('it lacks container_p_join, container_p_join_external, container_p_stepd_create, container_p_stepd_delete');
      expect(message).not.toContain('container_p_create (removed');
    }
  });

  it('refuses an API 101 plugin that carries the right version on its hooks: the process ends, after init() ran', () => {
    const dir = tempDir('plugstack-jc-');
    const log = path.join(dir, 'trace.log');
    const r = checkFile(jcTrace(release, { API101: true, API101_VERSIONED: true, TRACE_LOG: JSON.stringify(log) }), release);
    expect(r.status).toBe(1);
    const jc = (JSON.parse(r.stdout) as JcReport).jobContainer;
    expect(jc.plugins[0]!.code).toBe('JOB_CONTAINER_MISSING_HOOKS');
    const message = jc.problems.find((p) => p.code === 'JOB_CONTAINER_MISSING_HOOKS')!.message;
    expect(message).toContain('ends the process (fatal)');
    expect(message).toContain('container_p_add_pid (replaced by container_p_join in 20.02)');
    expect(readLog(log).map((l) => l.split(' ')[0])).toEqual(['jc:init']);
  });

  it('refuses a plugin missing one hook, and one whose init() fails', () => {
    const missing = checkFile(jcTrace(release, { MISSING_JOIN: true }), release);
    const jc = (JSON.parse(missing.stdout) as JcReport).jobContainer;
    expect(jc.problems.find((p) => p.code === 'JOB_CONTAINER_MISSING_HOOKS')!.message).toMatch(/it lacks container_p_join;? /);
    const init = checkFile(jcTrace(release, { INIT_FAILS: true }), release);
    expect((JSON.parse(init.stdout) as JcReport).jobContainer.plugins[0]!.code).toBe('PLUGIN_INIT_FAILED');
  });
});

describe('releases', () => {
  it("refuses the other release's plugins, and 24.11.0's join in 24.11.5 with the reason", () => {
    const r2205in2411 = (JSON.parse(checkFile(jcTrace('22.05'), '24.11').stdout) as JcReport).jobContainer;
    expect(r2205in2411.problems[0]!.message).toContain('built for Slurm 22.05.8, the host emulates 24.11.5');
    expect(r2205in2411.problems[0]!.message).toContain('it lacks container_p_send_stepd, container_p_recv_stepd');
    const r2411in2205 = (JSON.parse(checkFile(jcTrace('24.11'), '22.05').stdout) as JcReport).jobContainer;
    expect(r2411in2205.problems[0]!.message).toContain('it lacks container_p_create, container_p_add_cont, container_p_delete, container_p_reconfig');
    const zero = (JSON.parse(checkFile(jcTrace('24.11.0'), '24.11').stdout) as JcReport).jobContainer;
    expect(zero.problems[0]!.message).toContain("24.11.0's container_p_join takes (job_id, uid), 24.11.1's and later (step_id, uid, step_create)");
    const r = checkFile(jcTrace('24.11.0'), '24.11.0');
    expect(r.status, r.stdout).toBe(0);
  });

  it('check --slurm-conf reports JobContainerType in order; one that does not load fails slurmd', async () => {
    const dir = tempDir('plugstack-jc-');
    const conf = writeFile(dir, 'plugstack.conf', '');
    const slurmConf = writeFile(dir, 'slurm.conf', `PluginDir=${jcTrace('24.11')}\nJobContainerType=job_container/trace,bogus\nPrologFlags=Contain\n`);
    const report = await (await Plugstack.load(conf, { slurmConf })).check();
    expect(report.jobContainer!.types).toEqual(['job_container/trace', 'job_container/bogus']);
    expect(report.jobContainer!.plugins.map((p) => [p.type, p.loaded, p.code])).toEqual([
      ['trace', true, undefined],
      ['bogus', false, 'PLUGIN_NOT_FOUND'],
    ]);
    expect(report.jobContainer!.ok).toBe(false);
    expect(report.ok).toBe(false);
    expect(report.jobContainer!.log.map((l) => l.message)).toEqual(
      expect.arrayContaining(['cannot create job_container context for job_container/bogus', 'Unable to initialize job_container plugin.']),
    );
    const none = writeFile(dir, 'none.conf', `PluginDir=${jcTrace('24.11')}\nJobContainerType=job_container/none\n`);
    expect((await (await Plugstack.load(conf, { slurmConf: none })).check()).jobContainer).toBeUndefined();
  });
});

describe.each(RELEASES)('Slurm %s: slurmd', (release) => {
  it("loads JobContainerType after SPANK's init, restores from SlurmdSpoolDir, and unloads after slurmd_exit", async () => {
    const dir = tempDir('plugstack-jc-');
    const log = path.join(dir, 'trace.log');
    const conf = writeFile(dir, 'plugstack.conf', `required ${spankTrace(release)} log=${log}\n`);
    const slurmConf = writeFile(dir, 'slurm.conf', `PluginDir=${jcTrace(release)}\nJobContainerType=trace\nSlurmdSpoolDir=${dir}/spool\nPlugStackConfig=${conf}\n`);
    const stack = await Plugstack.load(conf, { slurmConf, slurmVersion: release, env: { ...process.env, JC_TRACE_LOG: log } });
    const d = await stack.slurmd();
    expect(d.started).toBe(true);
    await d.stop();
    expect(d.jobContainer!.calls).toEqual([
      expect.objectContaining({ plugin: 'job_container/trace', hook: 'restore', process: 'slurmd', dir: `${dir}/spool`, recover: true, rc: 0 }),
    ]);
    const names = readLog(log).map((l) => /^(jc:\w+|\w+)/.exec(l)![1]);
    expect(names.filter((n) => !n.startsWith('spank_') && !['OPTION_CB', 'option_register'].includes(n))).toEqual(['init', 'jc:init', 'jc:restore', 'slurmd_exit', 'jc:fini']);
    // A clean start (slurmd -c): recover false.
    const clean = await stack.slurmd({ cleanStart: true });
    await clean.stop();
    expect(clean.jobContainer!.calls[0]!.recover).toBe(false);
  });

  it('does not start when a plugin does not load; a failing restore is only logged', async () => {
    const dir = tempDir('plugstack-jc-');
    const conf = writeFile(dir, 'plugstack.conf', '');
    const bad = writeFile(dir, 'bad.conf', `PluginDir=${jcTrace(release, { INIT_FAILS: true })}\nJobContainerType=trace\n`);
    const d = await (await Plugstack.load(conf, { slurmConf: bad, slurmVersion: release })).slurmd();
    expect(d.started).toBe(false);
    expect(d.record.log.map((l) => l.message)).toContain('Unable to initialize job_container plugin.');
    const good = writeFile(dir, 'good.conf', `PluginDir=${jcTrace(release)}\nJobContainerType=trace\n`);
    const s = await (await Plugstack.load(conf, { slurmConf: good, slurmVersion: release, env: { ...process.env, JC_TRACE_FAIL: 'restore' } })).slurmd();
    expect(s.started).toBe(true);
    const stop = await s.stop();
    expect([...s.record.log, ...stop.log].map((l) => l.message)).toContain('Unable to restore job_container state.');
    expect(s.jobContainer!.calls[0]).toMatchObject({ hook: 'restore', rc: -1 });
  });
});

/** srun with the SPANK trace and the job_container trace logging into one file. */
async function srunJc(release: string, args: string[], opts: { env?: Record<string, string>; slurmConf?: string[]; jcDefines?: Record<string, string | number | true> } = {}) {
  const dir = tempDir('plugstack-jc-');
  const log = path.join(dir, 'trace.log');
  const conf = writeFile(dir, 'plugstack.conf', `required ${spankTrace(release)} log=${log}\n`);
  const slurmConf = writeFile(
    dir,
    'slurm.conf',
    [`PluginDir=${jcTrace(release, opts.jcDefines ?? {})}`, 'JobContainerType=job_container/trace', `PlugStackConfig=${conf}`, ...(opts.slurmConf ?? []), ''].join('\n'),
  );
  const env = { PATH: '/usr/bin:/bin', HOME: dir, JC_TRACE_LOG: log, ...(opts.env ?? {}) };
  const stack = await Plugstack.load(conf, { slurmConf, slurmVersion: release, env: { ...process.env, ...env } });
  const result = await stack.srun({ args, cwd: dir, env });
  return { result, log: readLog(log), dir };
}

/** The log's calls as "name" with their pid (SPANK's and job_container's). */
function calls(log: string[]) {
  return log
    .map((line) => ({ name: /^(jc:\w+|\w+)/.exec(line)?.[1] ?? '', pid: Number(/ pid=(\d+)/.exec(` ${line}`)?.[1] ?? NaN), line }))
    .filter((c) => !Number.isNaN(c.pid) && !/^(OPTION_CB|option_register|job_control_setenv|spank_setenv)/.test(c.name));
}
const fieldOf = (line: string, key: string) => new RegExp(`(?:^| )${key}=(\\S*)`).exec(line)?.[1];

describe('24.11: the calls, in the processes Slurm makes them', () => {
  it("send_stepd in slurmd, join(step_create) in slurmd's child, recv_stepd with slurmd's bytes in slurmstepd, join in every task before task_init_privileged", async () => {
    const { result, log } = await srunJc('24.11', ['-N', '2', '-n', '3', 'true']);
    expect(result.exitCode, result.stderr).toBe(0);
    const seq = calls(log);
    const jobId = result.job!.jobId;
    const sends = seq.filter((c) => c.name === 'jc:send_stepd');
    expect(sends).toHaveLength(2);
    const recvs = seq.filter((c) => c.name === 'jc:recv_stepd');
    // Each slurmstepd got what a slurmd process wrote, in a process of its own.
    expect(recvs.map((r) => fieldOf(r.line, 'got')).sort()).toEqual(sends.map((s) => `jc-trace_from_${s.pid}`).sort());
    for (const r of recvs) expect(sends.map((s) => s.pid)).not.toContain(r.pid);
    for (const r of recvs) {
      const inStepd = seq.filter((c) => c.pid === r.pid).map((c) => c.name);
      // slurmd's child joins (its own plugin instance), then slurmstepd loads them afresh and receives, before SPANK's init.
      expect(inStepd.slice(0, 5)).toEqual(['jc:init', 'jc:join', 'jc:init', 'jc:recv_stepd', 'init']);
      const childJoin = seq.find((c) => c.pid === r.pid && c.name === 'jc:join')!.line;
      expect([fieldOf(childJoin, 'job'), fieldOf(childJoin, 'step'), fieldOf(childJoin, 'het'), fieldOf(childJoin, 'step_create')]).toEqual([String(jobId), '4294967294', '0', '1']);
      // exec discarded slurmd's instance: recv_stepd's sees no join.
      expect(fieldOf(r.line, 'joined')).toBe('0');
      expect(inStepd).not.toContain('jc:fini');
    }
    // Each task: join (as root) before task_init_privileged.
    const taskJoins = seq.filter((c) => c.name === 'jc:join' && fieldOf(c.line, 'step_create') === '0');
    expect(taskJoins).toHaveLength(3);
    for (const t of taskJoins) {
      expect(seq.filter((c) => c.pid === t.pid).map((c) => c.name)).toEqual(['jc:join', 'task_init_privileged', 'task_init']);
      expect([fieldOf(t.line, 'step'), fieldOf(t.line, 'het'), fieldOf(t.line, 'euid')]).toEqual(['0', '4294967294', '0']);
    }
    // The record.
    const jc = result.jobContainer!;
    expect(jc.types).toEqual(['job_container/trace']);
    // Tasks of a node run at once: their calls may come in any order.
    const byTask = (a: (typeof jc.calls)[number], b: (typeof jc.calls)[number]) =>
      a.process === 'task' && b.process === 'task' && a.node === b.node ? a.task! - b.task! : 0;
    expect([...jc.calls].sort(byTask).map((c) => [c.hook, c.process, c.node, c.task ?? null, c.rc])).toEqual([
      // The job's slurmd has just started (plugstack starts one per job).
      ['restore', 'slurmd', 0, null, 0],
      ['restore', 'slurmd', 1, null, 0],
      ['send_stepd', 'slurmd', 0, null, 0],
      ['send_stepd', 'slurmd', 1, null, 0],
      ['join', 'slurmd_child', 0, null, 0],
      ['recv_stepd', 'slurmstepd', 0, null, 0],
      ['join', 'task', 0, 0, 0],
      ['join', 'task', 0, 1, 0],
      ['join', 'slurmd_child', 1, null, 0],
      ['recv_stepd', 'slurmstepd', 1, null, 0],
      ['join', 'task', 1, 2, 0],
    ]);
    const childJoin = jc.calls.find((c) => c.process === 'slurmd_child')!;
    expect([childJoin.stepCreate, childJoin.stepId, childJoin.stepHetComp]).toEqual([true, 4294967294, 0]);
    for (const c of jc.calls) expect(c.mntNs).toBeGreaterThan(0);
  });

  it('a failing recv_stepd ends slurmstepd before the step; a failing join in a task ends that task with status 1', async () => {
    const recv = await srunJc('24.11', ['-n', '2', 'true'], { env: { JC_TRACE_FAIL: 'recv_stepd' } });
    const stepds = new Set(calls(recv.log).filter((c) => c.name === 'jc:recv_stepd').map((c) => c.pid));
    expect(calls(recv.log).filter((c) => stepds.has(c.pid)).map((c) => c.name)).toEqual(['jc:init', 'jc:join', 'jc:init', 'jc:recv_stepd']);
    expect(recv.result.steps[0]!.problems.map((p) => p.code)).toContain('JOB_CONTAINER_FAILED');
    expect(recv.result.steps[0]!.log.map((l) => l.message)).toContain('Failed to read job_container.conf from slurmd.');
    expect(recv.result.steps[0]!.tasks.every((t) => t.status === undefined || t.status === null)).toBe(true);
  });
});

describe('22.05: the calls, in the processes Slurm makes them', () => {
  it('create in slurmd before the step, add_cont after task_post_fork, join in every task before task_init_privileged, delete in slurmd after', async () => {
    const { result, log } = await srunJc('22.05', ['-N', '2', '-n', '3', 'true']);
    expect(result.exitCode, result.stderr).toBe(0);
    const seq = calls(log);
    const names = seq.map((c) => c.name);
    const creates = seq.filter((c) => c.name === 'jc:create');
    expect(creates).toHaveLength(2);
    const addConts = seq.filter((c) => c.name === 'jc:add_cont');
    const stepds = new Set(addConts.map((c) => c.pid));
    // Before any node's slurmstepd; delete after every one has ended.
    expect(names.lastIndexOf('jc:create')).toBeLessThan(seq.findIndex((c) => stepds.has(c.pid)));
    expect(names.indexOf('jc:delete')).toBeGreaterThan(seq.map((c) => stepds.has(c.pid)).lastIndexOf(true));
    expect(addConts).toHaveLength(2);
    for (const a of addConts) {
      const inStepd = seq.filter((c) => c.pid === a.pid).map((c) => c.name);
      expect(inStepd[0]).toBe('jc:init');
      expect(inStepd.indexOf('jc:add_cont')).toBe(inStepd.lastIndexOf('task_post_fork') + 1);
    }
    for (const t of seq.filter((c) => c.name === 'jc:join'))
      expect(seq.filter((c) => c.pid === t.pid).map((c) => c.name)).toEqual(['jc:join', 'task_init_privileged', 'task_init']);
    expect(result.jobContainer!.calls.map((c) => [c.hook, c.process])).toEqual([
      ['restore', 'slurmd'],
      ['restore', 'slurmd'],
      ['create', 'slurmd'],
      ['create', 'slurmd'],
      ...result.jobContainer!.calls.slice(4, -2).map((c) => [c.hook, c.hook === 'add_cont' ? 'slurmstepd' : 'task']),
      ['delete', 'slurmd'],
      ['delete', 'slurmd'],
    ]);
    expect(result.jobContainer!.calls.find((c) => c.hook === 'create')).toMatchObject({ jobId: result.job!.jobId, uid: process.getuid!() });
  });

  it('a failing join ends each task with status 1 before task_init_privileged; failing create, add_cont and delete are only logged', async () => {
    const join = await srunJc('22.05', ['-n', '2', 'true'], { env: { JC_TRACE_FAIL: 'join' } });
    expect(join.result.exitCode).toBe(1);
    expect(join.result.steps[0]!.tasks.map((t) => t.status)).toEqual([256, 256]);
    expect(calls(join.log).map((c) => c.name)).not.toContain('task_init_privileged');
    expect(join.result.stderr).toContain(`container_g_join failed: ${join.result.job!.jobId}`);
    for (const hook of ['create', 'add_cont', 'delete']) {
      const r = await srunJc('22.05', ['-n', '1', 'true'], { env: { JC_TRACE_FAIL: hook } });
      expect(r.result.exitCode, hook).toBe(0);
      expect(r.result.steps[0]!.log.map((l) => l.message).join('\n')).toContain(`container_g_${hook}(${r.result.job!.jobId})`);
    }
  });
});

describe.each(RELEASES)('Slurm %s: the extern step and the run\'s mount namespace', (release) => {
  it('PrologFlags=Contain: stepd_create in each node\'s extern step before the step, stepd_delete after it; every process of the run in one namespace of its own', async () => {
    const mountsBefore = fs.readFileSync('/proc/self/mountinfo', 'utf8');
    const { result, log } = await srunJc(release, ['-N', '2', '-n', '2', 'true'], { slurmConf: ['PrologFlags=Contain'] });
    expect(result.exitCode, result.stderr).toBe(0);
    const jc = result.jobContainer!;
    const extern = jc.calls.filter((c) => c.step === 4294967292);
    const hooks = (node: number) => extern.filter((c) => c.node === node).map((c) => c.hook);
    for (const node of [0, 1])
      expect(hooks(node)).toEqual(release === '24.11' ? ['recv_stepd', 'stepd_create', 'stepd_delete'] : ['stepd_create', 'add_cont', 'stepd_delete']);
    // Before the step's calls, and stepd_delete after them.
    const first = jc.calls.findIndex((c) => c.step === 0);
    expect(jc.calls.findIndex((c) => c.hook === 'stepd_create')).toBeLessThan(first);
    expect(jc.calls.findIndex((c) => c.hook === 'stepd_delete')).toBeGreaterThan(jc.calls.map((c) => c.step === 0).lastIndexOf(true));
    if (release === '22.05') expect(jc.calls.at(-1)!.hook).toBe('delete');
    // stepd_create's arguments in the trace: the job and its uid (24.11: from the step record).
    const create = log.find((l) => l.startsWith('jc:stepd_create'))!;
    expect(fieldOf(create, 'job')).toBe(String(result.job!.jobId));
    expect(fieldOf(create, 'uid')).toBe(String(process.getuid!()));
    if (process.getuid!() === 0) {
      const spaces = new Set(jc.calls.map((c) => c.mntNs));
      expect(spaces.size).toBe(1);
      expect(fs.readFileSync('/proc/self/mountinfo', 'utf8')).toBe(mountsBefore);
    }
    // The extern step runs the SPANK stack as slurmstepd does (mgr.c _spawn_job_container):
    // init and init_post_opt after stepd_create, task_post_fork of no task, exit before stepd_delete.
    const externPid = calls(log).find((c) => c.name === 'jc:stepd_create')!.pid;
    expect(calls(log).filter((c) => c.pid === externPid).map((c) => c.name).filter((n) => n !== 'jc:init')).toEqual(
      release === '24.11'
        ? ['jc:recv_stepd', 'jc:stepd_create', 'init', 'init_post_opt', 'task_post_fork', 'exit', 'jc:stepd_delete']
        : ['jc:stepd_create', 'init', 'init_post_opt', 'jc:add_cont', 'task_post_fork', 'exit', 'jc:stepd_delete'],
    );
    // No extern step's sleeper is left.
    for (const c of extern) expect(fs.existsSync(`/proc/${c.pid}`)).toBe(false);
  });
});

const asRoot = process.getuid!() === 0;

/** A site with plugstack's job_container/tmpfs: BasePath outside /tmp and /dev/shm. */
function tmpfsSite(release: string, jobContainerConf: (base: string) => string, extra: string[] = []) {
  const dir = fs.mkdtempSync('/var/tmp/plugstack-jc-test-');
  const conf = writeFile(dir, 'plugstack.conf', '');
  const slurmConf = writeFile(dir, 'slurm.conf', ['JobContainerType=job_container/tmpfs', 'PrologFlags=Contain', `PlugStackConfig=${conf}`, ...extra, ''].join('\n'));
  writeFile(dir, 'job_container.conf', jobContainerConf(`${dir}/base`));
  return { dir, conf, slurmConf, load: () => Plugstack.load(conf, { slurmConf, slurmVersion: release }) };
}

const SHARE =
  'if [ $SLURM_PROCID = 0 ]; then echo hi > /tmp/from0; else i=0; while [ ! -e /tmp/from0 ] && [ $i -lt 1000 ]; do i=$((i+1)); sleep 0.01; done; fi; ' +
  'echo T$SLURM_PROCID $(ls -A /tmp | tr "\\n" " ")$(stat -c %U:%a /tmp)';

describe.each(RELEASES)('Slurm %s: plugstack\'s job_container/tmpfs (root)', (release) => {
  it.skipIf(!asRoot)('tasks of one job share a private /tmp; a second job does not see it; the machine is untouched', async () => {
    const mounts = fs.readFileSync('/proc/self/mountinfo', 'utf8');
    const site = tmpfsSite(release, (base) => `AutoBasePath=true\nBasePath=${base}\n`);
    try {
      const stack = await site.load();
      const first = await stack.srun({ args: ['-n', '2', '-l', 'sh', '-c', SHARE], cwd: '/', env: { PATH: '/usr/bin:/bin' } });
      expect(first.exitCode, `${first.stderr}\n${first.steps[0]!.log.map((l) => l.message).join('\n')}`).toBe(0);
      expect(first.stdout.split('\n').filter(Boolean).sort()).toEqual(['0: T0 from0 root:700', '1: T1 from0 root:700']);
      const jc = first.jobContainer!;
      const tasks = jc.calls.filter((c) => c.process === 'task');
      expect(tasks.map((c) => c.rc)).toEqual([0, 0]);
      // The tasks are in the job's namespace, not the run's, and both in the same one.
      const runNs = jc.calls.find((c) => c.hook === 'stepd_create')!.mntNs;
      expect(new Set(tasks.map((c) => c.mntNs)).size).toBe(1);
      expect(tasks[0]!.mntNs).not.toBe(runNs);
      expect(jc.calls.find((c) => c.hook === 'stepd_delete')!.rc).toBe(0);
      const second = await stack.srun({ args: ['-n', '1', 'sh', '-c', 'ls -A /tmp; echo end'], cwd: '/', env: { PATH: '/usr/bin:/bin' } });
      expect(second.stdout, `${second.stderr}\n${second.steps[0]!.log.map((l) => l.message).join('\n')}\n${JSON.stringify(second.jobContainer)}`).toBe('end\n');
      expect(fs.existsSync('/tmp/from0')).toBe(false);
      expect(fs.readdirSync(`${site.dir}/base`)).toEqual([]);
      expect(fs.readFileSync('/proc/self/mountinfo', 'utf8')).toBe(mounts);
    } finally {
      fs.rmSync(site.dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!asRoot)('NodeName= lines scope the settings (%n expanded): BasePath=none leaves a node without a private /tmp', async () => {
    const site = tmpfsSite(release, (base) => `AutoBasePath=true\nBasePath=${base}/%n\nNodeName=node1 BasePath=none\n`);
    try {
      const stack = await site.load();
      fs.writeFileSync(`${site.dir}/marker`, '');
      const r = await stack.srun({ args: ['-N', '2', '-n', '2', '-l', 'sh', '-c', `echo N$SLURM_NODEID $(ls -A /tmp | wc -l)`], cwd: '/', env: { PATH: '/usr/bin:/bin' } });
      expect(r.exitCode, r.stderr).toBe(0);
      const lines = r.stdout.split('\n').filter(Boolean).sort();
      expect(lines[0]).toBe('0: N0 0');
      expect(Number(lines[1]!.split(' ')[2])).toBeGreaterThan(0);
      expect(fs.readdirSync(`${site.dir}/base`)).toEqual(['node0']);
    } finally {
      fs.rmSync(site.dir, { recursive: true, force: true });
    }
  });

  it('a BasePath inside Dirs is refused, as Slurm refuses it (fatal)', async () => {
    const site = tmpfsSite(release, () => 'BasePath=/tmp/jobs\nDirs=/tmp,/dev/shm\n');
    try {
      const report = await (await site.load()).check();
      expect(report.jobContainer!.plugins[0]).toMatchObject({ type: 'tmpfs', loaded: false, code: 'PLUGIN_INIT_FAILED' });
      expect(report.jobContainer!.log.map((l) => l.message).join('\n')).toContain('BasePath(/tmp/jobs) cannot also be mounted as a directory in Dirs (/tmp)');
      expect(report.ok).toBe(false);
    } finally {
      fs.rmSync(site.dir, { recursive: true, force: true });
    }
  });
});

describe.each(RELEASES)('Slurm %s: what no Slurm says', (release) => {
  it.skipIf(!asRoot)('a mount a plugin leaves behind, and tasks that end up in different namespaces, are reported; the machine never sees the mount', async () => {
    const mounts = fs.readFileSync('/proc/self/mountinfo', 'utf8');
    const target = fs.mkdtempSync('/var/tmp/plugstack-jc-leak-');
    try {
      const { result } = await srunJc(release, ['-n', '2', 'true'], { slurmConf: ['PrologFlags=Contain'], env: { JC_TRACE_MOUNT: target, JC_TRACE_UNSHARE: '1' } });
      const problems = result.steps[0]!.problems;
      const codes = problems.map((p) => p.code);
      expect(codes).toContain('JOB_CONTAINER_MOUNT_LEFT');
      expect(problems.find((p) => p.code === 'JOB_CONTAINER_MOUNT_LEFT')!.message).toContain(`${target} (tmpfs tmpfs)`);
      expect(codes).toContain('JOB_CONTAINER_TASK_OUTSIDE');
      expect(fs.readFileSync('/proc/self/mountinfo', 'utf8')).toBe(mounts);
    } finally {
      fs.rmSync(target, { recursive: true, force: true });
    }
  });
});

describe("24.11: SPANK and job_container/tmpfs together (upstream's test_147_1)", () => {
  it.skipIf(!asRoot)(
    "with contain_spank, user_init, task_post_fork and task_exit run in joining clone children that see the job's /tmp and share slurmstepd's memory; without it they do not see it",
    async () => {
      for (const contain of [true, false]) {
        const site = tmpfsSite('24.11', (base) => `AutoBasePath=true\nBasePath=${base}\n`, contain ? ['SlurmdParameters=contain_spank'] : []);
        try {
          const log = path.join(site.dir, 'probe.log');
          fs.writeFileSync(site.conf, `required ${compilePlugin('tmp_probe.c')} log=${log}\n`);
          const stack = await site.load();
          const r = await stack.srun({ args: ['-n', '1', 'sh', '-c', 'touch /tmp/from_task'], cwd: '/', env: { PATH: '/usr/bin:/bin' } });
          expect(r.exitCode, r.stderr).toBe(0);
          // The extern step's task_post_fork (of no task) runs too, as in slurmstepd;
          // under contain_spank in a joining child that sees the job's empty /tmp.
          const all = readLog(log);
          const externLines = all.filter((l) => fieldOf(l, 'step') === '4294967292');
          expect(externLines.map((l) => [l.split(' ')[0], fieldOf(l, 'tmp')])).toEqual([['task_post_fork', contain ? '' : expect.anything()]]);
          const lines = all.filter((l) => !externLines.includes(l));
          const exit = lines.find((l) => l.startsWith('task_exit'))!;
          const userInit = lines.find((l) => l.startsWith('user_init'))!;
          if (contain) {
            expect(fieldOf(exit, 'tmp')).toBe('from_task');
            // The job's /tmp was empty when user_init ran, in the job's namespace.
            expect(fieldOf(userInit, 'tmp')).toBe('');
            // Each ran in a child of its own, yet the counts carry on: one address space.
            expect(new Set(lines.map((l) => fieldOf(l, 'pid'))).size).toBe(3);
            expect(lines.map((l) => fieldOf(l, 'seen'))).toEqual(['0', '1', '2']);
            const children = r.jobContainer!.calls.filter((c) => c.process === 'spank_child' && c.step !== 4294967292);
            expect(children.map((c) => [c.spank, c.rc])).toEqual([
              ['user_init', 0],
              ['task_post_fork', 0],
              ['task_exit', 0],
            ]);
          } else {
            expect(fieldOf(exit, 'tmp')).not.toContain('from_task');
            expect(new Set(lines.map((l) => fieldOf(l, 'pid'))).size).toBe(1);
            expect(r.jobContainer!.calls.some((c) => c.process === 'spank_child')).toBe(false);
          }
          if (contain) {
            const externChild = r.jobContainer!.calls.filter((c) => c.process === 'spank_child' && c.step === 4294967292);
            expect(externChild.map((c) => [c.spank, c.rc])).toEqual([['task_post_fork', 0]]);
          }
        } finally {
          fs.rmSync(site.dir, { recursive: true, force: true });
        }
      }
    },
  );
});

describe('24.11: contain_spank clone children that die inside plugin code', () => {
  it.skipIf(!asRoot)('are reported as the crash they are, with plugin, hook and task', async () => {
    const site = tmpfsSite('24.11', (base) => `AutoBasePath=true\nBasePath=${base}\n`, ['SlurmdParameters=contain_spank']);
    try {
      const { recorder } = await import('./helpers/step.js');
      fs.writeFileSync(site.conf, `required ${recorder()} crash=task_exit only=0\n`);
      const stack = await site.load();
      const r = await stack.srun({ args: ['-n', '2', 'true'], cwd: '/', env: { PATH: '/usr/bin:/bin' } });
      expect(r.steps[0]!.problems).toEqual([
        expect.objectContaining({ code: 'PLUGIN_CRASHED', hook: 'slurm_spank_task_exit', signal: 'SIGSEGV', task: 0, node: 0 }),
      ]);
    } finally {
      fs.rmSync(site.dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!asRoot)(
    "leave slurmstepd as it was: at the command's time bound the step is cancelled as it waits for its tasks, not killed as hung",
    async () => {
      const site = tmpfsSite('24.11', (base) => `AutoBasePath=true\nBasePath=${base}\n`, ['SlurmdParameters=contain_spank']);
      try {
        const { recorder } = await import('./helpers/step.js');
        // Task 0's task_exit crashes in its clone child, which shares
        // slurmstepd's memory; task 1 is still running at the bound.
        fs.writeFileSync(site.conf, `required ${recorder()} crash=task_exit only=0\n`);
        const stack = await site.load();
        // The bound well after task 0's end, well before task 1's.
        const r = await stack.srun({
          args: ['-n', '2', 'sh', '-c', 'if [ $SLURM_PROCID = 1 ]; then sleep 8; fi'],
          cwd: '/',
          env: { PATH: '/usr/bin:/bin' },
          timeoutMs: 3000,
        });
        const step = r.steps[0]!;
        expect(step.problems.map((p) => p.code)).toEqual(['PLUGIN_CRASHED']);
        expect(step.nodes[0]!.failedAt, JSON.stringify(step.problems)).toBeNull();
        expect(r.stderr).toMatch(/CANCELLED AT/);
      } finally {
        fs.rmSync(site.dir, { recursive: true, force: true });
      }
    },
  );
});

describe.each(RELEASES)('Slurm %s: adopting a process into a job (pam_slurm_adopt)', (release) => {
  it.skipIf(!asRoot)("join_external's fd puts an outside process into the job's namespace: it sees and writes the job's /tmp, never the machine's", async () => {
    const site = tmpfsSite(release, (base) => `AutoBasePath=true\nBasePath=${base}\n`);
    const mounts = fs.readFileSync('/proc/self/mountinfo', 'utf8');
    try {
      const conf = readSlurmConf(site.slurmConf, release);
      const job = new JobContainerJob(
        { conf: site.conf, slurmVersion: release, pluginDirs: conf.pluginDirs, hostEnv: process.env },
        jobContainerSettings(conf)!,
        [{ nodeId: 0, name: 'node0' }],
        { jobId: 4242, uid: 0, gid: 0, cwd: '/', env: ['PATH=/usr/bin:/bin'] },
      );
      await job.begin();
      await job.startExtern();
      try {
        const first = await job.adopt(0, ['sh', '-c', 'touch /tmp/adopted; ls -A /tmp']);
        expect(first.fd).toBeGreaterThan(0);
        expect(first.status).toBe(0);
        expect(first.stdout).toBe('adopted\n');
        const second = await job.adopt(0, ['ls', '-A', '/tmp']);
        expect(second.stdout).toBe('adopted\n');
        expect(fs.existsSync('/tmp/adopted')).toBe(false);
      } finally {
        await job.finish();
      }
      const calls = job.out.record.calls.filter((c) => c.hook === 'join_external');
      expect(calls.map((c) => [c.process, c.step, c.fd! > 0])).toEqual([
        ['slurmstepd', 4294967292, true],
        ['slurmstepd', 4294967292, true],
      ]);
      expect(fs.readdirSync(`${site.dir}/base`)).toEqual([]);
      expect(fs.readFileSync('/proc/self/mountinfo', 'utf8')).toBe(mounts);
    } finally {
      fs.rmSync(site.dir, { recursive: true, force: true });
    }
  });
});

describe('the job around its steps (slurmd/req.c, slurmstepd/mgr.c)', () => {
  it("22.05: slurmd's create comes before the job's prolog and delete after its epilog; the extern step after the prolog and before the epilog", async () => {
    for (const contain of [false, true]) {
      const { result, log } = await srunJc('22.05', ['-N', '2', '-n', '2', 'true'], { slurmConf: contain ? ['PrologFlags=Contain'] : [] });
      expect(result.exitCode, result.stderr).toBe(0);
      const names = calls(log).map((c) => c.name);
      const first = (n: string) => names.indexOf(n);
      const last = (n: string) => names.lastIndexOf(n);
      expect(names.filter((n) => n === 'jc:create')).toHaveLength(2);
      expect(last('jc:create')).toBeLessThan(first('job_prolog'));
      expect(first('jc:delete')).toBeGreaterThan(last('job_epilog'));
      if (contain) {
        expect(first('jc:stepd_create')).toBeGreaterThan(last('job_prolog'));
        expect(last('jc:stepd_delete')).toBeLessThan(first('job_epilog'));
      }
      expect(result.jobContainer!.calls.map((c) => c.hook).filter((h) => h !== 'join' && h !== 'add_cont')).toEqual([
        'restore',
        'restore',
        'create',
        'create',
        ...(contain ? ['stepd_create', 'stepd_create', 'stepd_delete', 'stepd_delete'] : []),
        'delete',
        'delete',
      ]);
    }
  });

  it.each(RELEASES)("Slurm %s: slurmd's restore runs once per node when the stack's emulated slurmd starts, not at every job", async (release) => {
    const dir = tempDir('plugstack-jc-');
    const log = path.join(dir, 'trace.log');
    const conf = writeFile(dir, 'plugstack.conf', '');
    const slurmConf = writeFile(dir, 'slurm.conf', `PluginDir=${jcTrace(release)}\nJobContainerType=job_container/trace\nPlugStackConfig=${conf}\n`);
    const env = { PATH: '/usr/bin:/bin', HOME: dir, JC_TRACE_LOG: log };
    const stack = await Plugstack.load(conf, { slurmConf, slurmVersion: release, env: { ...process.env, ...env } });
    const restores = async (args: string[]) => {
      const r = await stack.srun({ args, cwd: dir, env });
      expect(r.exitCode, r.stderr).toBe(0);
      return r.jobContainer!.calls.filter((c) => c.hook === 'restore').map((c) => c.node);
    };
    expect(await restores(['-n', '1', 'true'])).toEqual([0]);
    expect(await restores(['-n', '1', 'true'])).toEqual([]);
    // A node the stack had not used yet: its slurmd starts now.
    expect(await restores(['-N', '2', '-n', '2', 'true'])).toEqual([1]);
    expect(readLog(log).filter((l) => l.startsWith('jc:restore'))).toHaveLength(2);
  });

  it.each(RELEASES)('Slurm %s: the sruns inside a batch job run in its container (one extern step per node of the job, no restore of their own)', async (release) => {
    const dir = tempDir('plugstack-jc-');
    const log = path.join(dir, 'trace.log');
    const conf = writeFile(dir, 'plugstack.conf', `required ${spankTrace(release)} log=${log}\n`);
    const slurmConf = writeFile(dir, 'slurm.conf', `PluginDir=${jcTrace(release)}\nJobContainerType=job_container/trace\nPrologFlags=Contain\nPlugStackConfig=${conf}\n`);
    const env = { PATH: '/usr/bin:/bin', HOME: dir, JC_TRACE_LOG: log };
    const stack = await Plugstack.load(conf, { slurmConf, slurmVersion: release, env: { ...process.env, ...env } });
    const r = await stack.sbatch({ args: ['-N', '2', '--wait', '--wrap', 'srun -N 2 -n 2 true; srun -n 1 true'], cwd: dir, env });
    expect(r.exitCode, `${r.stderr}\n${r.output?.text}`).toBe(0);
    expect(r.steps.map((s) => s.stepId)).toEqual([4294967291, 0, 1]);
    const jc = r.jobContainer!;
    const hooks = jc.calls.map((c) => `${c.hook}:${c.step ?? '-'}:${c.node}`);
    // One extern step per node of the job, first and last; restore once per node, before anything.
    expect(hooks.filter((h) => h.startsWith('restore'))).toEqual(['restore:-:0', 'restore:-:1']);
    expect(hooks.filter((h) => h.startsWith('stepd_create')).sort()).toEqual(['stepd_create:4294967292:0', 'stepd_create:4294967292:1']);
    const lastCreate = Math.max(...hooks.map((h, i) => (h.startsWith('stepd_create') ? i : -1)));
    const firstDelete = hooks.findIndex((h) => h.startsWith('stepd_delete'));
    expect(hooks.findIndex((h) => h.startsWith('join:'))).toBeGreaterThan(lastCreate);
    expect(hooks.map((h, i) => (h.startsWith('join:') ? i : -1)).reduce((a, b) => Math.max(a, b))).toBeLessThan(firstDelete);
    // Every step's tasks joined: the batch script, step 0 on both nodes, step 1.
    expect(jc.calls.filter((c) => c.process === 'task' && c.hook === 'join').map((c) => `${c.step}:${c.node}`).sort()).toEqual(
      ['0:0', '0:1', '1:0', '4294967291:0'].sort(),
    );
    if (release === '22.05')
      // create at the job's first launch on each node: the batch host, then node1 by the srun inside.
      expect(jc.calls.filter((c) => c.hook === 'create').map((c) => c.node)).toEqual([0, 1]);
    if (asRoot) expect(new Set(jc.calls.map((c) => c.mntNs)).size).toBe(1);
    expect(readLog(log).filter((l) => l.startsWith('jc:restore'))).toHaveLength(2);
  });

  // The job's srun is plugstack itself: where this checkout lies below /tmp
  // (a CI clone), a private /tmp would hide it, so /dev/shm is the private
  // directory shown instead.
  const priv = repoRoot.startsWith('/tmp/') ? '/dev/shm' : '/tmp';
  it.skipIf(!asRoot).each(RELEASES)(`Slurm %s: with job_container/tmpfs, the steps of a batch job share the job's private ${priv}, on every node`, async (release) => {
    // One BasePath per emulated node (%n): they are all on this machine.
    const site = tmpfsSite(release, (base) => `AutoBasePath=true\nBasePath=${base}/%n\nDirs=${priv}\n`);
    // The jobs' directory (the batch script, the srun on the job's PATH) has
    // to be seen inside the job's container, whose /tmp is private: as a
    // spool directory is in Slurm, it is kept outside /tmp here.
    const runtime = fs.mkdtempSync('/var/tmp/plugstack-jc-run-');
    const saved = process.env.XDG_RUNTIME_DIR;
    process.env.XDG_RUNTIME_DIR = runtime;
    try {
      const stack = await site.load();
      const script = `srun -N 2 -n 2 sh -c 'echo > ${priv}/n$SLURM_NODEID'; srun -N 2 -n 2 -l sh -c 'ls -A ${priv} | tr "\\n" " "; echo'; ls -A ${priv}`;
      const r = await stack.sbatch({ args: ['-N', '2', '--wait', '--wrap', script], cwd: site.dir, env: { PATH: '/usr/bin:/bin', XDG_RUNTIME_DIR: runtime } });
      expect(r.exitCode, `${r.stderr}\n${r.output?.text}`).toBe(0);
      expect(r.output!.text.split('\n').filter(Boolean).sort()).toEqual(['0: n0 ', '1: n1 ', 'n0'].sort());
      expect(fs.existsSync(`${priv}/n0`)).toBe(false);
      for (const n of ['node0', 'node1']) expect(fs.readdirSync(`${site.dir}/base/${n}`)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
      else process.env.XDG_RUNTIME_DIR = saved;
      fs.rmSync(site.dir, { recursive: true, force: true });
      fs.rmSync(runtime, { recursive: true, force: true });
    }
  });

  // A container that hides plugstack's own files from the job (its Dirs over
  // the checkout's directory): the job's srun says so in one line.
  const hiding = path.dirname(repoRoot);
  it.skipIf(!asRoot || hiding === '/' || '/var/tmp/'.startsWith(`${hiding}/`))("an srun inside a job whose container hides plugstack says so, and why", async () => {
    const site = tmpfsSite('24.11', (base) => `AutoBasePath=true\nBasePath=${base}\nDirs=${hiding}\n`);
    const runtime = fs.mkdtempSync('/var/tmp/plugstack-jc-run-');
    try {
      const stack = await site.load();
      const r = await stack.sbatch({ args: ['--wait', '--wrap', 'srun true'], cwd: site.dir, env: { PATH: '/usr/bin:/bin', XDG_RUNTIME_DIR: runtime } });
      expect(r.exitCode).toBe(1);
      expect(r.output!.text).toContain(`plugstack: error: srun inside job ${r.job!.jobId} cannot reach plugstack at ${path.join(repoRoot, 'bin')}: is it hidden by the job's container`);
      expect(r.output!.text).not.toContain('ModuleLoader');
    } finally {
      fs.rmSync(site.dir, { recursive: true, force: true });
      fs.rmSync(runtime, { recursive: true, force: true });
    }
  });

  it.each(RELEASES)('Slurm %s: an extern step that fails (stepd_create) leaves the nodes not ready: srun gives up before its step, without its exit callbacks', async (release) => {
    const { result, log } = await srunJc(release, ['-n', '1', 'sh', '-c', 'echo ran'], { slurmConf: ['PrologFlags=Contain'], env: { JC_TRACE_FAIL: 'stepd_create' } });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('srun: error: Nodes node0 are still not ready\nsrun: error: Something is wrong with the boot of the nodes.\n');
    expect(result.steps).toEqual([]);
    const names = calls(log).map((c) => c.name);
    expect(names).not.toContain('local_user_init');
    expect(names).not.toContain('exit');
    expect(names.filter((n) => n.startsWith('jc:stepd'))).toEqual(['jc:stepd_create', 'jc:stepd_delete']);
    expect(names.indexOf('job_epilog')).toBeGreaterThan(names.indexOf('jc:stepd_delete'));
    expect(result.job).toMatchObject({ state: 'FAILED', reason: 'launch failed requeued held' });
    expect(result.jobContainer!.calls.find((c) => c.hook === 'stepd_create')!.rc).not.toBe(0);
  });
});

describe.each(RELEASES)('Slurm %s: without root', (release) => {
  const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => fs.existsSync(p));
  // Run as nobody (root is needed only to become nobody).
  it.skipIf(!asRoot || !setpriv)(
    "the run makes a user namespace of its own (the caller's ids mapped to themselves) for its mount namespace: plugstack's tmpfs gives the job a private /tmp, tasks keep the caller's uid, the machine is untouched",
    () => {
      const dir = fs.mkdtempSync('/var/tmp/plugstack-jc-nobody-');
      fs.chmodSync(dir, 0o777);
      try {
        const conf = writeFile(dir, 'plugstack.conf', '');
        const slurmConf = writeFile(dir, 'slurm.conf', `JobContainerType=job_container/tmpfs\nPrologFlags=Contain\nPlugStackConfig=${conf}\n`);
        writeFile(dir, 'job_container.conf', `AutoBasePath=true\nBasePath=${dir}/base/%n\n`);
        for (const f of ['plugstack.conf', 'slurm.conf', 'job_container.conf']) fs.chmodSync(path.join(dir, f), 0o644);
        const mounts = fs.readFileSync('/proc/self/mountinfo', 'utf8');
        const r = spawnSync(
          setpriv!,
          ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, path.join(repoRoot, 'bin', 'plugstack.cjs'), 'run', '--json', '--slurm-version', release, '--slurm-conf', slurmConf, '-n', '2', 'sh', '-c', 'touch /tmp/t$SLURM_PROCID; sleep 0.3; echo $(id -u) $(ls /tmp | tr "\\n" " ")'],
          { cwd: dir, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: dir, TMPDIR: dir } },
        );
        const out = JSON.parse(r.stdout) as { exitCode: number; stdout: string; stderr: string; jobContainer: { calls: { hook: string; process: string; rc?: number; mntNs: number }[] } };
        expect(out.exitCode, out.stderr).toBe(0);
        const nobody = spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).stdout.trim();
        expect(out.stdout.split('\n').filter(Boolean)).toEqual([`${nobody} t0 t1`, `${nobody} t0 t1`]);
        const joins = out.jobContainer.calls.filter((c) => c.process === 'task' && c.hook === 'join');
        expect(joins.map((c) => c.rc)).toEqual([0, 0]);
        expect(new Set(joins.map((c) => c.mntNs)).size).toBe(1);
        expect(out.jobContainer.calls.find((c) => c.hook === 'stepd_delete')!.rc).toBe(0);
        expect(fs.existsSync('/tmp/t0')).toBe(false);
        expect(fs.readdirSync(`${dir}/base/node0`)).toEqual([]);
        expect(fs.readFileSync('/proc/self/mountinfo', 'utf8')).toBe(mounts);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
