/**
 * slurm.conf's TaskProlog and TaskEpilog (and srun's --task-prolog and
 * --task-epilog), as slurmstepd runs them (task.c exec_task and
 * _run_script_and_set_env, mgr.c _wait_for_any_task and
 * _run_script_as_user): the prolog in each task after task_init, as the
 * user, its output's export/unset/print lines changing the task; the
 * epilog in slurmstepd after each task, before task_exit, in the job's
 * container; failures with Slurm's effects and messages, per release.
 */
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { compilePlugin, readLog, tempDir, writeFile } from './helpers/plugins.js';
import { leftBehind, uniqueTag } from './helpers/processes.js';

const RELEASES = ['24.11', '22.05'] as const;
const JC_NUMBER: Record<string, number> = { '24.11': 0x180b05, '22.05': 0x160508 };

function script(dir: string, name: string, body: string): string {
  const file = writeFile(dir, name, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

const spankTrace = (release: string) =>
  compilePlugin('trace.c', release === '22.05' ? { defines: { PLUGIN_VERSION: 0x160508 } } : {});

/** A stack whose slurm.conf has the given lines and the SPANK trace logging into log. */
async function site(release: string, lines: (dir: string, log: string) => string[], jc = false, extraEnv: Record<string, string> = {}, mpi = false) {
  const dir = tempDir('plugstack-taskprolog-');
  const log = path.join(dir, 'trace.log');
  const conf = writeFile(dir, 'plugstack.conf', `required ${spankTrace(release)} log=${log}\n`);
  const jcLines = jc
    ? [
        `PluginDir=${path.dirname(compilePlugin('job_container_trace.c', { defines: { SLURM_VERSION_NUMBER: JC_NUMBER[release]! }, name: `job_container_trace_${release.replace('.', '')}` }))}`,
        'JobContainerType=job_container/trace',
      ]
    : [];
  const mpiLines = mpi
    ? [`PluginDir=${path.dirname(compilePlugin('mpi_trace.c', { defines: { SLURM_VERSION_NUMBER: JC_NUMBER[release]! }, name: 'mpi_trace.so' }))}`]
    : [];
  const slurmConf = writeFile(dir, 'slurm.conf', [`PlugStackConfig=${conf}`, ...jcLines, ...mpiLines, ...lines(dir, log), ''].join('\n'));
  const env = { PATH: '/usr/bin:/bin', HOME: dir, JC_TRACE_LOG: log, MPI_TRACE_LOG: log, ...extraEnv };
  const stack = await Plugstack.load(conf, { slurmConf, slurmVersion: release, env: { ...process.env, ...env } });
  const srun = (args: string[]) => stack.srun({ args, cwd: dir, env });
  return { dir, log, srun, stack, env };
}

const sorted = (s: string) => s.split('\n').filter(Boolean).sort();
const logOf = (file: string) => readLog(file).map((l) => /^(\S+)/.exec(l)![1]!);

describe.each(RELEASES)('%s: TaskProlog', (release) => {
  it("runs in each task after task_init as the user; its export, unset and print lines change the task's environment and output", async () => {
    const { srun, log } = await site(release, (dir, log) => [
      `TaskProlog=${script(
        dir,
        'prolog.sh',
        [
          `echo "task_prolog pid=$PPID uid=$(id -u) ctx=$SLURM_SCRIPT_CONTEXT procid=$SLURM_PROCID cwd=$(pwd)" >> ${log}`,
          'echo "export  FROM_PROLOG = task $SLURM_PROCID"',
          'echo "unset GONE "',
          'echo "print   hello from $SLURM_PROCID"',
          'echo "something else"',
          'echo "to stderr, ignored" >&2',
        ].join('\n'),
      )}`,
    ]);
    // The value starts right after '=' (its leading space kept); the name loses the spaces around it.
    const r = await srun(['-n', '2', '-l', 'sh', '-c', 'echo "FROM_PROLOG=[$FROM_PROLOG] GONE=${GONE-unset} ctx=$SLURM_SCRIPT_CONTEXT"']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(sorted(r.stdout)).toEqual(
      sorted('0: hello from 0\n1: hello from 1\n0: FROM_PROLOG=[ task 0] GONE=unset ctx=prolog_task\n1: FROM_PROLOG=[ task 1] GONE=unset ctx=prolog_task\n'),
    );
    const lines = readLog(log).filter((l) => l.startsWith('task_prolog'));
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(l).toContain(`uid=${process.getuid!()} ctx=prolog_task`);
    // After task_init of its own task (the prolog's parent is the task).
    const names = logOf(log);
    const pids = readLog(log).map((l) => / pid=(\d+)/.exec(l)?.[1]);
    for (let i = 0; i < names.length; i++)
      if (names[i] === 'task_prolog') {
        const init = names.findIndex((n, j) => n === 'task_init' && pids[j] === pids[i]);
        expect(init, readLog(log).join('\n')).toBeGreaterThanOrEqual(0);
        expect(init).toBeLessThan(i);
      }
  });

  it('a failing prolog ends its task with its status; a missing or relative one with 1, saying why', async () => {
    const { srun } = await site(release, (dir) => [`TaskProlog=${script(dir, 'fail.sh', 'echo "print before" ; exit 3')}`]);
    const r = await srun(['-n', '1', 'echo', 'never']);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('before\n');
    expect(r.stderr).toContain('TaskProlog failed status=3');

    const missing = await site(release, (dir) => [`TaskProlog=${dir}/nope.sh`]);
    const m = await missing.srun(['-n', '1', 'echo', 'never']);
    expect(m.exitCode).toBe(1);
    expect(m.stdout).toBe('');
    expect(m.stderr).toMatch(/run_command: slurm task_prolog can not be executed \(\S+nope\.sh\) No such file or directory/);
    expect(m.stderr).toContain('slurm task_prolog did not exit normally. reason: Run command failed - configuration error');
    expect(m.stderr).toContain('TaskProlog failed status=1');

    const relative = await site(release, () => ['TaskProlog=prolog.sh']);
    const rel = await relative.srun(['-n', '1', 'echo', 'never']);
    expect(rel.exitCode).toBe(1);
    expect(rel.stderr).toContain(
      `run_command: slurm task_prolog ${release === '22.05' ? 'is not fully qualified pathname' : 'is not a fully qualified pathname'} (prolog.sh)`,
    );
  });

  it("runs after the mpi plugin's slurmstepd_task and task_init, in the task's process, and sees what both set", async () => {
    const { srun, log } = await site(
      release,
      (dir, log) => [`TaskProlog=${script(dir, 'prolog.sh', `echo "task_prolog pid=$PPID mpi=$MPI_TRACE_TASK" >> ${log}`)}`],
      false,
      {},
      true,
    );
    const r = await srun(['--mpi=trace', '-n', '1', 'true']);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = readLog(log);
    const prolog = lines.find((l) => l.startsWith('task_prolog'))!;
    expect(prolog).toBe(`task_prolog pid=${/pid=(\d+)/.exec(prolog)![1]} mpi=0`);
    const pid = /pid=(\d+)/.exec(prolog)![1];
    const inTask = lines.filter((l) => new RegExp(`(^| )pid=${pid}( |$)`).test(l)).map((l) => /^(\S+)/.exec(l)![1]);
    expect(inTask.filter((n) => ['mpi:task', 'task_init', 'task_prolog'].includes(n))).toEqual(['mpi:task', 'task_init', 'task_prolog']);
  });

  it('what a prolog leaves running (its output closed) does not hold the task, and ends with the step', async () => {
    const tag = uniqueTag('taskprolog');
    const { srun } = await site(release, (dir) => [`TaskProlog=${script(dir, 'bg.sh', `sh -c 'sleep 30; true' ${tag} >/dev/null 2>&1 &\necho export BG=started`)}`]);
    const r = await srun(['-n', '1', 'sh', '-c', 'echo $BG']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('started\n');
    expect(await leftBehind([tag])).toEqual([]);
  });

  it("srun's --task-prolog runs after slurm.conf's; --task-epilog before slurm.conf's TaskEpilog", async () => {
    const { srun, log, dir } = await site(release, (dir, log) => [
      `TaskProlog=${script(dir, 'site-prolog.sh', `echo site_prolog >> ${log}; echo export WHO=site`)}`,
      `TaskEpilog=${script(dir, 'site-epilog.sh', `echo site_epilog >> ${log}`)}`,
    ]);
    const user = script(dir, 'user-prolog.sh', `echo "user_prolog who=$WHO" >> ${log}; echo export WHO=user`);
    const userEpilog = script(dir, 'user-epilog.sh', `echo user_epilog >> ${log}`);
    const r = await srun(['-n', '1', `--task-prolog=${user}`, `--task-epilog=${userEpilog}`, 'sh', '-c', 'echo who=$WHO']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('who=user\n');
    const order = logOf(log).filter((n) => /^(task_init|task_exit|site_prolog|user_prolog|site_epilog|user_epilog)$/.test(n));
    expect(order).toEqual(['task_init', 'site_prolog', 'user_prolog', 'user_epilog', 'site_epilog', 'task_exit']);
    expect(readLog(log)).toContain('user_prolog who=site');
  });
});

describe.each(RELEASES)('%s: a batch job', (release) => {
  it('runs them around its script and around each step inside it', async () => {
    const { stack, dir, env, log } = await site(release, (dir, log) => [
      `TaskProlog=${script(dir, 'prolog.sh', 'echo "print prolog of $SLURM_STEP_ID"')}`,
      `TaskEpilog=${script(dir, 'epilog.sh', `echo "task_epilog ctx=$SLURM_SCRIPT_CONTEXT" >> ${log}`)}`,
    ]);
    const r = await stack.sbatch({ args: [], script: '#!/bin/sh\necho batch\nsrun -n 1 echo step\n', cwd: dir, env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.output!.text).toMatch(/^prolog of .*\nbatch\nprolog of 0\nstep\n$/);
    expect(readLog(log).filter((l) => l.startsWith('task_epilog'))).toEqual(['task_epilog ctx=epilog_task', 'task_epilog ctx=epilog_task']);
  });
});

describe.each(RELEASES)('%s: TaskEpilog', (release) => {
  it("runs in slurmstepd's child after each task ends and before its task_exit, as the user in the step's cwd, with the task's rebuilt environment", async () => {
    const { srun, log, dir } = await site(release, (dir, log) => [
      `TaskEpilog=${script(dir, 'epilog.sh', `echo "task_epilog uid=$(id -u) ctx=$SLURM_SCRIPT_CONTEXT procid=$SLURM_PROCID cwd=$(pwd)" >> ${log}; echo "print ignored"`)}`,
    ]);
    const r = await srun(['-n', '2', 'true']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    const epilogs = readLog(log).filter((l) => l.startsWith('task_epilog'));
    expect(epilogs.sort()).toEqual([0, 1].map((t) => `task_epilog uid=${process.getuid!()} ctx=epilog_task procid=${t} cwd=${dir}`));
    const names = logOf(log).filter((n) => n === 'task_epilog' || n === 'task_exit');
    expect(names).toEqual(['task_epilog', 'task_exit', 'task_epilog', 'task_exit']);
  });

  it('a failing or missing epilog is only logged, with the message naming the other script as Slurm does', async () => {
    const { srun } = await site(release, (dir) => [`TaskEpilog=${script(dir, 'fail.sh', 'exit 4')}`]);
    const r = await srun(['-n', '1', 'true']);
    expect(r.exitCode).toBe(0);
    expect(r.steps[0]!.log.map((l) => l.message)).toContain('--task-epilog failed status=4');

    const missing = await site(release, (dir) => [`TaskEpilog=${dir}/nope.sh`]);
    const m = await missing.srun(['-n', '1', 'true']);
    expect(m.exitCode).toBe(0);
    const messages = m.steps[0]!.log.map((l) => l.message);
    if (release === '22.05') {
      // Checked before any fork: access denied, status -1.
      expect(messages.some((s) => /^Could not run slurm task_epilog \[\S+nope\.sh\]: access denied$/.test(s)), messages.join('\n')).toBe(true);
      expect(messages).toContain('--task-epilog failed status=-1');
    } else {
      expect(messages.some((s) => /^execve\(\S+nope\.sh\): No such file or directory$/.test(s)), messages.join('\n')).toBe(true);
      expect(messages).toContain('--task-epilog failed status=127');
    }
  });

  it("joins the job's container in the epilog's process (role script); the prolog runs in the task's", async () => {
    const { srun } = await site(
      release,
      (dir) => [`TaskProlog=${script(dir, 'p.sh', 'true')}`, `TaskEpilog=${script(dir, 'e.sh', 'true')}`],
      true,
    );
    const r = await srun(['-n', '2', 'true']);
    expect(r.exitCode, r.stderr).toBe(0);
    const joins = r.jobContainer!.calls.filter((c) => c.hook === 'join');
    const scripts = joins.filter((c) => c.process === 'script');
    expect(scripts.map((c) => c.task).sort()).toEqual([0, 1]);
    for (const c of scripts) expect(c.rc).toBe(0);
    expect(joins.filter((c) => c.process === 'task')).toHaveLength(2);
  });

  if (release === '22.05')
    it("an epilog's join that fails is logged and the epilog runs (22.05: the tasks' joins fail too, each task exits 1)", async () => {
      const { srun, log } = await site(release, (dir, log) => [`TaskEpilog=${script(dir, 'e.sh', `echo task_epilog >> ${log}`)}`], true, { JC_TRACE_FAIL: 'join' });
      const r = await srun(['-n', '1', 'true']);
      expect(r.exitCode).toBe(1);
      expect(readLog(log).filter((l) => l === 'task_epilog')).toHaveLength(1);
      const joins = r.jobContainer!.calls.filter((c) => c.hook === 'join' && c.process === 'script');
      expect(joins).toHaveLength(1);
      expect(joins[0]!.rc).not.toBe(0);
      expect(r.steps[0]!.log.map((l) => l.message).some((m) => m.startsWith(`container_g_join(${r.job!.jobId}): `))).toBe(true);
    });
});

describe('check --slurm-conf: task prolog and epilog slurmstepd could not run', () => {
  it('a TaskProlog that is relative or cannot be executed is an error (every task would fail); such a TaskEpilog a warning', async () => {
    const dir = tempDir('plugstack-taskprolog-');
    const conf = writeFile(dir, 'plugstack.conf', '');
    const good = script(dir, 'good.sh', 'true');
    const load = (lines: string[]) => Plugstack.load(conf, { slurmConf: writeFile(dir, 'slurm.conf', [`PlugStackConfig=${conf}`, ...lines, ''].join('\n')) });
    const fine = await (await load([`TaskProlog=${good}`, `TaskEpilog=${good}`])).check();
    expect(fine.ok).toBe(true);
    expect(fine.slurmConf!.problems).toEqual([]);
    const bad = await (await load(['TaskProlog=prolog.sh', `TaskEpilog=${dir}/missing.sh`])).check();
    expect(bad.ok).toBe(false);
    expect(bad.slurmConf!.problems.map((p) => [p.severity, p.code, p.line])).toEqual([
      ['error', 'TASK_PROLOG_UNUSABLE', 2],
      ['warning', 'TASK_EPILOG_UNUSABLE', 3],
    ]);
    expect(bad.slurmConf!.problems[0]!.message).toContain('is not a fully qualified path');
    expect(bad.slurmConf!.problems[1]!.message).toContain('can not be executed (ENOENT)');
  });
});
