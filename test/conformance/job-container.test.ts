/**
 * job_container plugins against the real Slurm (issue 13): the trace
 * fixture (test/fixtures/plugins/job_container_trace.c, built against
 * plugstack's own <plugstack/job_container.h> for the release: Debian ships
 * no job_container header, so this checks our ABI too) is the real
 * cluster's JobContainerType (slurmd loads it at start: it is restarted,
 * and put back afterwards), beside the SPANK trace fixture logging to the
 * same file, with and without PrologFlags=Contain. The same srun runs on
 * the cluster and on plugstack (a copy of the cluster's slurm.conf): each
 * Slurm process's job_container hooks and SPANK callbacks, in order.
 *
 * Left out of the comparison, as the README's differences say: slurmd's
 * restore and init (plugstack's slurmd for a job is a process of its own
 * per call) and fini.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Plugstack } from '../../lib/plugstack.js';
import { compilePlugin, readLog, tempDir } from '../helpers/plugins.js';
import { cluster, releases, type Release } from './run.js';

const NUMBER: Record<Release, number> = { '22.05': 0x160508, '24.11': 0x180b05 };
const DEBIAN_PLUGINS = '/usr/lib/x86_64-linux-gnu/slurm-wlm';
const EXTERN = '4294967292';

interface Observed {
  exitCode: number;
  stdout: string;
  stderr: string;
  log: string[];
}

const field = (line: string, key: string) => new RegExp(`(?:^| )${key}=(\\S*)`).exec(line)?.[1];
const nameOf = (l: string) => /^(jc:\w+|\w+)/.exec(l)?.[1] ?? '';

/**
 * The log, per Slurm process: slurmd (its job_container calls), slurmd's
 * child that becomes a slurmstepd (join with step_create), each slurmstepd
 * (by step: its SPANK callbacks and job_container calls), each task (by
 * rank). plugstack's slurmd's child is its slurmstepd's own process before
 * it loads the plugins afresh: its first two lines are moved to that role.
 */
function perProcess(log: string[]): Record<string, string[]> {
  const byPid = new Map<string, string[]>();
  for (const l of log) {
    const pid = field(l, 'pid');
    if (!pid || /^(OPTION_CB|option_register|job_control_setenv|spank_setenv)/.test(nameOf(l))) continue;
    byPid.set(pid, [...(byPid.get(pid) ?? []), l]);
  }
  const out: Record<string, string[]> = {};
  const push = (role: string, lines: string[]) =>
    (out[role] ??= []).push(...lines.map(nameOf).filter((n) => !['jc:init', 'jc:fini', 'jc:restore'].includes(n)));
  for (const lines of byPid.values()) {
    let rest = lines;
    if (nameOf(rest[0]!) === 'jc:init' && nameOf(rest[1] ?? '') === 'jc:join' && field(rest[1]!, 'step_create') === '1') {
      push('slurmd_child', rest.slice(0, 2));
      rest = rest.slice(2);
      if (rest.length === 0) continue;
    }
    const names = rest.map(nameOf);
    const rank = rest.map((l) => /^task_init_privileged .*GTASK=(\d+)/.exec(l)?.[1]).find((r) => r !== undefined);
    let role: string;
    if (names.some((n) => n === 'jc:stepd_create' || n === 'jc:stepd_delete')) role = 'extern';
    else if (rank !== undefined) role = `task${rank}`;
    else if (rest.some((l) => /^init ctx=1 /.test(l))) role = 'srun';
    else if (rest.some((l) => /^init ctx=2 /.test(l))) role = 'slurmstepd';
    else if (names.some((n) => ['jc:send_stepd', 'jc:create', 'jc:delete'].includes(n))) role = 'slurmd';
    else if (names.every((n) => n === 'jc:join' || n === 'jc:init')) role = 'slurmd_child';
    else if (names.includes('job_prolog') || names.includes('job_epilog')) role = names.includes('job_prolog') ? 'job_prolog' : 'job_epilog';
    else role = `other:${names.filter((n) => n !== 'jc:init').join(',')}`;
    push(role, rest);
  }
  for (const k of Object.keys(out)) if (out[k]!.length === 0) delete out[k];
  return out;
}

describe.each(releases())('job_container plugins: plugstack and the real Slurm %s agree', (release) => {
  const c = cluster(release);
  const dir = tempDir('conformance-jc-');
  const log = path.join(dir, 'trace.log');
  let saved = '';
  let rest: string[] = [];
  let traceDir = '';
  let plugstackConf = '';

  beforeAll(() => {
    fs.chmodSync(dir, 0o777);
    traceDir = path.dirname(
      compilePlugin('job_container_trace.c', {
        defines: { SLURM_VERSION_NUMBER: NUMBER[release], TRACE_LOG: JSON.stringify(log) },
        name: 'job_container_trace.so',
      }),
    );
    saved = fs.readFileSync(c.conf, 'utf8');
    rest = saved.split('\n').filter((l) => l && !/^(PluginDir|JobContainerType|PrologFlags|TaskProlog|TaskEpilog)=/i.test(l));
    c.useStack(`required ${c.compile('trace.c')} log=${log}\n`);
    const spank = release === '22.05' ? compilePlugin('trace.c', { defines: { PLUGIN_VERSION: 0x160508 } }) : compilePlugin('trace.c');
    plugstackConf = path.join(dir, 'plugstack.conf');
    fs.writeFileSync(plugstackConf, `required ${spank} log=${log}\n`);
  });

  afterAll(() => {
    if (!saved) return;
    fs.writeFileSync(c.conf, saved);
    // slurmctld re-reads it too: a PrologFlags=Contain left in slurmctld
    // would run every later scenario's prolog at allocation.
    spawnSync(c.command('scontrol'), ['reconfigure'], { env: c.env(), stdio: 'ignore' });
    c.verb('restart-slurmd');
  });

  /** The cluster's slurm.conf with the trace plugin as JobContainerType; slurmd restarted. */
  function configure(extra: string[], plugins = traceDir): string {
    const lines = ['JobContainerType=job_container/trace', ...extra];
    fs.writeFileSync(c.conf, [...rest, `PluginDir=${DEBIAN_PLUGINS}:${plugins}`, ...lines, ''].join('\n'));
    // PrologFlags is slurmctld's too: it re-reads the file, then slurmd restarts.
    spawnSync(c.command('scontrol'), ['reconfigure'], { env: c.env(), stdio: 'ignore' });
    c.verb('restart-slurmd');
    const site = path.join(dir, 'slurm.conf');
    fs.writeFileSync(site, [...rest, `PluginDir=${path.join(c.root ?? '/', DEBIAN_PLUGINS)}:${plugins}`, ...lines, ''].join('\n'));
    return site;
  }

  async function both(site: string, args: string[], waitExtern: boolean | ((log: string[]) => boolean) = false): Promise<{ real: Observed; ours: Observed }> {
    const base = c.env({ HOME: dir });
    c.verb('resume');
    fs.writeFileSync(log, '');
    fs.chmodSync(log, 0o666);
    const r = spawnSync(c.command('srun'), args, { cwd: dir, env: base, encoding: 'utf8', timeout: 90_000 });
    c.cancelAll();
    // The extern step ends after srun has returned: wait for its last call.
    const end = Date.now() + 10_000;
    const done = typeof waitExtern === 'function' ? waitExtern : (l: string[]) => !waitExtern || l.some((x) => x.startsWith('jc:stepd_delete'));
    while (Date.now() < end && !done(readLog(log))) spawnSync('sleep', ['0.1']);
    const real: Observed = { exitCode: r.status ?? 128, stdout: r.stdout, stderr: r.stderr, log: readLog(log) };
    fs.writeFileSync(log, '');
    const stack = await Plugstack.load(plugstackConf, { slurmConf: site, slurmVersion: release });
    const result = await stack.srun({ args, cwd: dir, env: base });
    const ours: Observed = { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, log: readLog(log) };
    return { real, ours };
  }

  it('the same hooks in the same Slurm processes, in the same order around SPANK', async () => {
    const site = configure([]);
    const { real, ours } = await both(site, ['-n', '2', '-O', 'true']);
    expect(real.exitCode, real.stderr).toBe(0);
    expect(ours.exitCode, ours.stderr).toBe(0);
    const processes = perProcess(real.log);
    expect(processes.task0).toContain('jc:join');
    expect(perProcess(ours.log)).toEqual(processes);
    // What each join is handed: the job, the uid and (24.11) the step's id.
    const joins = (o: Observed) =>
      o.log
        .filter((l) => l.startsWith('jc:join'))
        .map((l) => [field(l, 'step'), field(l, 'het'), field(l, 'step_create'), field(l, 'uid'), field(l, 'euid')].join(' '))
        .sort();
    expect(joins(ours)).toEqual(joins(real));
  });

  it('PrologFlags=Contain: the extern step creates and deletes the container around the job', async () => {
    const site = configure(['PrologFlags=Contain']);
    const { real, ours } = await both(site, ['-n', '1', '-O', 'true'], true);
    expect(real.exitCode, real.stderr).toBe(0);
    expect(ours.exitCode, ours.stderr).toBe(0);
    const processes = perProcess(real.log);
    const oursBy = perProcess(ours.log);
    expect(oursBy.extern).toEqual(processes.extern);
    for (const role of Object.keys(processes).filter((r) => r !== 'extern')) expect(oursBy[role], role).toEqual(processes[role]);
    expect(real.log.find((l) => l.startsWith('jc:stepd_create'))).toBeDefined();
    expect(field(real.log.find((l) => l.startsWith('jc:stepd_create'))!, 'job')).toBeDefined();
    if (release === '24.11') expect(field(real.log.find((l) => l.startsWith('jc:stepd_create'))!, 'step')).toBe(EXTERN);
  });

  it('a join that fails (a -D build: slurmstepd does not get the job\'s environment): the same status and output', async () => {
    const failing = path.dirname(
      compilePlugin('job_container_trace.c', {
        defines: { SLURM_VERSION_NUMBER: NUMBER[release], TRACE_LOG: JSON.stringify(log), JC_FAIL: JSON.stringify('join') },
        name: 'job_container_trace.so',
      }),
    );
    const site = configure([], failing);
    const { real, ours } = await both(site, ['-n', '2', '-O', 'sh', '-c', 'echo ran']);
    expect(ours.exitCode, `real: ${real.stderr}\nours: ${ours.stderr}`).toBe(real.exitCode);
    expect(ours.stdout).toBe(real.stdout);
    // srun's lines (24.11: slurmd's child fails to join, the launch fails on the node; 22.05: each task exits 1).
    const lines = (o: Observed) =>
      o.stderr
        .split('\n')
        // 'write to unblock task N failed': a race in slurmstepd (the task that
        // failed may or may not have exited when it is released), as in the
        // main suite's allowlist.
        .filter((l) => l !== '' && !/^plugstack:|queued and waiting|has been allocated|write to unblock task \d+ failed/.test(l))
        .map((l) => l.replace(/StepId=\d+/g, 'StepId=J').replace(/^slurmstepd-node0:/, 'slurmstepd:').replace(/failed: \d+$/, 'failed: J'))
        .sort();
    expect(lines(ours)).toEqual(lines(real));
  });
  it("the job's container around its prolog and epilog: 22.05's create before the prolog and delete after the epilog, the extern step between them", async () => {
    for (const contain of [false, true]) {
      const site = configure(contain ? ['PrologFlags=Contain'] : []);
      // slurmd runs the epilog (and 22.05's delete after it) once srun has gone.
      const ended = (l: string[]) =>
        l.some((x) => x.startsWith('job_epilog')) &&
        (release !== '22.05' || l.some((x) => x.startsWith('jc:delete'))) &&
        (!contain || l.some((x) => x.startsWith('jc:stepd_delete')));
      const { real, ours } = await both(site, ['-n', '1', '-O', 'true'], ended);
      expect(real.exitCode, real.stderr).toBe(0);
      expect(ours.exitCode, ours.stderr).toBe(0);
      const order = (o: Observed) =>
        o.log.map(nameOf).filter((n) => ['jc:create', 'jc:delete', 'jc:stepd_create', 'jc:stepd_delete', 'job_prolog', 'job_epilog'].includes(n));
      expect(order(real)).toContain('job_prolog');
      expect(order(ours), `PrologFlags=${contain ? 'Contain' : ''}`).toEqual(order(real));
    }
  });
  it("TaskProlog and TaskEpilog: the same processes, joins and order around SPANK, the same effects on the task's environment and output", async () => {
    const sh = (name: string, body: string) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
      return file;
    };
    // The prolog's parent is its task: its line goes with the task's calls.
    const prolog = sh(
      'task-prolog.sh',
      [
        `echo "task_prolog pid=$PPID ctx=$SLURM_SCRIPT_CONTEXT" >> ${log}`,
        'echo "export  FROM_PROLOG = value $SLURM_PROCID"',
        'echo "unset HOME"',
        'echo "print   hello from $SLURM_PROCID"',
        'echo "ignored line"',
      ].join('\n'),
    );
    const epilog = sh('task-epilog.sh', `echo "task_epilog pid=$$ ctx=$SLURM_SCRIPT_CONTEXT procid=$SLURM_PROCID" >> ${log}`);
    const site = configure([`TaskProlog=${prolog}`, `TaskEpilog=${epilog}`]);
    const ended = (l: string[]) => l.some((x) => x.startsWith('task_epilog'));
    const { real, ours } = await both(site, ['-n', '1', '-O', 'sh', '-c', 'echo "F=[$FROM_PROLOG] H=${HOME-unset} C=$SLURM_SCRIPT_CONTEXT"'], ended);
    expect(real.exitCode, real.stderr).toBe(0);
    expect(ours.exitCode, ours.stderr).toBe(0);
    expect(real.stdout).toContain('hello from 0');
    expect(ours.stdout).toBe(real.stdout);
    expect(perProcess(ours.log)).toEqual(perProcess(real.log));
    expect(readLog(log).length).toBeGreaterThan(0);
    // One task: slurmd's child's and the task's joins, task_init, the prolog, then the epilog's join and the epilog before task_exit.
    const order = (o: Observed) =>
      o.log
        .filter((l) => ['task_init', 'task_prolog', 'task_epilog', 'task_exit', 'jc:join'].includes(nameOf(l)))
        .map((l) => (/^task_(pro|epi)log/.test(l) ? l.replace(/ pid=\d+/, '') : nameOf(l)));
    expect(order(ours)).toEqual(order(real));

    // srun's --task-prolog after slurm.conf's (and sees its export), --task-epilog before slurm.conf's.
    const userProlog = sh('user-prolog.sh', `echo "user_prolog pid=$PPID from=$FROM_PROLOG" >> ${log}; echo "export FROM_PROLOG=user"`);
    const userEpilog = sh('user-epilog.sh', `echo "user_epilog pid=$$ ctx=$SLURM_SCRIPT_CONTEXT" >> ${log}`);
    const withUser = await both(
      site,
      ['-n', '1', '-O', `--task-prolog=${userProlog}`, `--task-epilog=${userEpilog}`, 'sh', '-c', 'echo "F=[$FROM_PROLOG]"'],
      (l) => l.some((x) => x.startsWith('task_epilog')),
    );
    expect(withUser.real.exitCode, withUser.real.stderr).toBe(0);
    expect(withUser.real.stdout).toContain('F=[user]');
    expect(withUser.ours.stdout).toBe(withUser.real.stdout);
    expect(withUser.ours.exitCode, withUser.ours.stderr).toBe(0);
    const scripts = (o: Observed) =>
      o.log.filter((l) => /^(task_init|task_exit|task_prolog|task_epilog|user_prolog|user_epilog|jc:join) /.test(l)).map((l) => l.replace(/ pid=\d+/, '').replace(/^(task_init|task_exit|jc:join) .*/, '$1'));
    expect(scripts(withUser.ours)).toEqual(scripts(withUser.real));
    expect(perProcess(withUser.ours.log)).toEqual(perProcess(withUser.real.log));

    // A prolog that fails: the task's status, output and srun's lines.
    const failing = sh('task-prolog-fail.sh', 'echo "print before"; exit 3');
    const site2 = configure([`TaskProlog=${failing}`]);
    const failed = await both(site2, ['-n', '1', '-O', 'echo', 'never']);
    const lines = (o: Observed) =>
      o.stderr
        .split('\n')
        .filter((l) => l !== '' && !/^plugstack:|queued and waiting|has been allocated/.test(l))
        .map((l) => l.replace(/StepId=\d+/g, 'StepId=J').replace(/^slurmstepd-node0:/, 'slurmstepd:').replace(/\d{3,}/g, 'N'))
        .sort();
    expect(failed.ours.exitCode, `real: ${failed.real.stderr}\nours: ${failed.ours.stderr}`).toBe(failed.real.exitCode);
    expect(failed.ours.stdout).toBe(failed.real.stdout);
    expect(lines(failed.ours)).toEqual(lines(failed.real));

    // One that is missing: run_command's messages, status 1.
    const site3 = configure([`TaskProlog=${path.join(dir, 'no-such-prolog.sh')}`]);
    const missing = await both(site3, ['-n', '1', '-O', 'echo', 'never']);
    expect(missing.real.stderr).toContain('TaskProlog failed status=1');
    expect(missing.ours.exitCode, `real: ${missing.real.stderr}\nours: ${missing.ours.stderr}`).toBe(missing.real.exitCode);
    expect(missing.ours.stdout).toBe(missing.real.stdout);
    expect(lines(missing.ours)).toEqual(lines(missing.real));
  });

  it('a stepd_create that fails (PrologFlags=Contain): the same status and srun lines', async () => {
    const failing = path.dirname(
      compilePlugin('job_container_trace.c', {
        defines: { SLURM_VERSION_NUMBER: NUMBER[release], TRACE_LOG: JSON.stringify(log), JC_FAIL: JSON.stringify('stepd_create') },
        name: 'job_container_trace.so',
      }),
    );
    const site = configure(['PrologFlags=Contain'], failing);
    const { real, ours } = await both(site, ['-n', '1', '-O', 'sh', '-c', 'echo ran']);
    const lines = (o: Observed) =>
      o.stderr
        .split('\n')
        .filter((l) => l !== '' && !/^plugstack:|queued and waiting|has been allocated/.test(l))
        .map((l) => l.replace(/\d{3,}/g, 'N'))
        .sort();
    // Each process's calls too: the extern step's stepd_create then stepd_delete, the prolog and epilog, no step.
    expect(perProcess(ours.log)).toEqual(perProcess(real.log));
    expect(ours.exitCode, `real: ${real.stderr}\nours: ${ours.stderr}`).toBe(real.exitCode);
    expect(ours.stdout).toBe(real.stdout);
    expect(lines(ours)).toEqual(lines(real));
  });
});
