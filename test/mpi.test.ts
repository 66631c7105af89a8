/**
 * mpi plugins in srun and slurmstepd (issue 12), with the trace fixture
 * (test/fixtures/plugins/mpi_trace.c, built at test time against
 * <plugstack/mpi.h> for the release; Debian's real 22.05 loads the same
 * file: test/conformance/mpi.test.ts compares) beside the SPANK trace
 * fixture, both logging to one file: where each hook runs (which process,
 * in which order around SPANK), what it is handed and what its changes do
 * to the tasks, how srun chooses the type, and how each failure ends the
 * step.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandResult } from '../lib/commands/types.js';
import { Plugstack } from '../lib/plugstack.js';
import { compilePlugin, readLog, repoRoot, tempDir, writeFile } from './helpers/plugins.js';

const NUMBER: Record<string, number> = { '22.05': 0x160508, '24.11': 0x180b05 };
const RELEASES = ['24.11', '22.05'] as const;
type Release = (typeof RELEASES)[number];

/** The trace plugin's directory (mpi_trace.so), for a release and variant. */
function mpiTrace(release: string, defines: Record<string, string | number | true> = {}, name = 'mpi_trace.so'): string {
  return path.dirname(compilePlugin('mpi_trace.c', { defines: { SLURM_VERSION_NUMBER: NUMBER[release]!, ...defines }, name }));
}

function spankTrace(release: string): string {
  return compilePlugin('trace.c', release === '22.05' ? { defines: { PLUGIN_VERSION: 0x160508 } } : {});
}

interface Run {
  result: CommandResult;
  log: string[];
  dir: string;
}

/** srun with the trace plugins; the log is both plugins' lines in order. */
async function srun(
  release: Release,
  args: string[],
  opts: { env?: Record<string, string>; slurmConf?: string[]; pluginDirs?: string[]; spank?: boolean } = {},
): Promise<Run> {
  const dir = tempDir('plugstack-mpi-');
  const log = path.join(dir, 'trace.log');
  const conf = writeFile(dir, 'plugstack.conf', opts.spank === false ? '' : `required ${spankTrace(release)} log=${log}\n`);
  const pluginDirs = opts.pluginDirs ?? [mpiTrace(release)];
  const slurmConf = writeFile(dir, 'slurm.conf', [`PluginDir=${pluginDirs.join(':')}`, `PlugStackConfig=${conf}`, ...(opts.slurmConf ?? []), ''].join('\n'));
  const env = { PATH: '/usr/bin:/bin', HOME: dir, MPI_TRACE_LOG: log, ...(opts.env ?? {}) };
  const stack = await Plugstack.load(conf, { slurmConf, slurmVersion: release, env: { ...process.env, MPI_TRACE_LOG: log } });
  const result = await stack.srun({ args, cwd: dir, env });
  return { result, log: readLog(log), dir };
}

/** The callbacks of the log, "name@pid" (SPANK's and mpi's). */
function sequence(log: string[]): { name: string; pid: number; line: string }[] {
  return log
    .map((line) => {
      const name = /^(mpi:\w+|\w+)/.exec(line)?.[1] ?? '';
      const pid = Number(/pid=(\d+)/.exec(line)?.[1] ?? NaN);
      return { name, pid, line };
    })
    .filter((c) => !Number.isNaN(c.pid) && !/^(OPTION_CB|option_register|job_control_setenv|spank_setenv)/.test(c.name));
}

const field = (line: string, key: string) => new RegExp(`(?:^| )${key}=(\\S*)`).exec(line)?.[1];

const TASK_ECHO = 'echo T$SLURM_PROCID client=$MPI_TRACE_CLIENT over=$MPI_TRACE_OVER prefork=$MPI_TRACE_PREFORK task=$MPI_TRACE_TASK type=${SLURM_MPI_TYPE-unset} gone=${MPI_TRACE_GONE-gone}';

describe.each(RELEASES)('Slurm %s', (release) => {
  it('runs each hook where Slurm runs it: srun, each slurmstepd, each task, around SPANK', async () => {
    const { result, log } = await srun(release, ['--mpi=trace', '-N', '2', '-n', '3', '-l', 'sh', '-c', TASK_ECHO], { env: { MPI_TRACE_GONE: '1' } });
    expect(result.exitCode, result.stderr).toBe(0);
    const seq = sequence(log);
    const at = (name: string, pid?: number) => seq.findIndex((c) => c.name === name && (pid === undefined || c.pid === pid));
    const srunPid = seq.find((c) => c.name === 'init')!.pid;
    const inSrun = seq.filter((c) => c.pid === srunPid).map((c) => c.name);
    // 22.05 loads the plugin while checking options, before init_post_opt;
    // 24.11 once they are all processed.
    const early = release === '22.05';
    expect(inSrun).toEqual(
      early
        ? ['init', 'mpi:init', 'init_post_opt', 'local_user_init', 'mpi:client_prelaunch', 'mpi:client_fini', 'exit']
        : ['init', 'init_post_opt', 'mpi:init', 'local_user_init', 'mpi:client_prelaunch', 'mpi:client_fini', 'exit'],
    );
    // client_prelaunch comes before any node hears of the step: before the prologs.
    expect(at('mpi:client_prelaunch')).toBeLessThan(at('job_prolog'));
    // Each node's slurmstepd: the plugin loaded before SPANK's init, prefork
    // between init_post_opt and user_init; fini last.
    const stepdPids = [...new Set(seq.filter((c) => c.name === 'mpi:prefork').map((c) => c.pid))];
    expect(stepdPids).toHaveLength(2);
    for (const pid of stepdPids) {
      const inStepd = seq.filter((c) => c.pid === pid).map((c) => c.name);
      expect(inStepd.slice(0, 5)).toEqual(['mpi:init', 'init', 'init_post_opt', 'mpi:prefork', 'user_init']);
      expect(inStepd.at(-1)).toBe('mpi:fini');
      expect(inStepd.indexOf('exit')).toBeLessThan(inStepd.indexOf('mpi:fini'));
    }
    // Each task's process: task_init_privileged, the plugin's task hook, task_init.
    const taskLines = seq.filter((c) => c.name === 'mpi:task');
    expect(taskLines.map((c) => Number(field(c.line, 'gtaskid'))).sort()).toEqual([0, 1, 2]);
    for (const t of taskLines) {
      expect(seq.filter((c) => c.pid === t.pid).map((c) => c.name)).toEqual(['task_init_privileged', 'mpi:task', 'task_init']);
      expect(field(t.line, 'euid')).toBe(String(process.getuid!()));
    }
    // What each hook was handed.
    const pre = seq[at('mpi:client_prelaunch')]!.line;
    expect(pre).toContain('layout{nodes=2 list=node[0-1] tasks=3 dist=2 plane=0 front_end=(unset) tids=[0 1],[2]}');
    expect(pre).toContain(`het=4294967294/4294967294 env=0 first=(unset) SLURM_MPI_TYPE=trace`);
    const forks = seq.filter((c) => c.name === 'mpi:prefork').map((c) => c.line).sort((a, b) => Number(field(a, 'nodeid')) - Number(field(b, 'nodeid')));
    expect(forks.map((l) => [field(l, 'nnodes'), field(l, 'ntasks'), field(l, 'nodeid'), field(l, 'node_tasks'), field(l, 'task_cnts'), field(l, 'node'), field(l, 'gtid0'), field(l, 'same_env'), field(l, 'SLURM_MPI_TYPE')])).toEqual([
      ['2', '3', '0', '2', '2,1', 'node0', '0', '1', 'trace'],
      ['2', '3', '1', '1', '2,1', 'node1', '2', '1', 'trace'],
    ]);
    for (const t of taskLines) {
      const rank = Number(field(t.line, 'gtaskid'));
      expect([field(t.line, 'ltaskid'), field(t.line, 'nodeid'), field(t.line, 'ntasks'), field(t.line, 'nnodes'), field(t.line, 'SLURM_PROCID')]).toEqual([
        String(rank === 2 ? 0 : rank),
        String(rank === 2 ? 1 : 0),
        '3',
        '2',
        String(rank),
      ]);
      // The task hook sees what prelaunch and prefork set, and not what prefork took out.
      expect(field(t.line, 'MPI_TRACE_PREFORK')).toBe(rank === 2 ? '1' : '0');
      expect(field(t.line, 'MPI_TRACE_GONE')).toBe('(unset)');
    }
    // The tasks get every change.
    const jobStep = `${result.job!.jobId}.0`;
    expect(result.stdout.split('\n').filter(Boolean).sort()).toEqual([
      `0: T0 client=${jobStep} over=over prefork=0 task=0 type=trace gone=gone`,
      `1: T1 client=${jobStep} over=over prefork=0 task=1 type=trace gone=gone`,
      `2: T2 client=${jobStep} over=over prefork=1 task=2 type=trace gone=gone`,
    ]);
    // The record.
    const mpi = result.mpi!;
    expect(mpi.type).toBe('trace');
    expect(mpi.pluginId).toBe(4242);
    expect(mpi.plugin).toMatch(/mpi_trace\.so$/);
    expect(mpi.calls.map((c) => [c.hook, c.process, c.node ?? null, c.task ?? null])).toEqual([
      ['client_prelaunch', 'srun', null, null],
      ...[0, 1].flatMap((node) => [
        ['slurmstepd_prefork', 'slurmstepd', node, null],
        ...(node === 0 ? [0, 1] : [2]).map(() => ['slurmstepd_task', 'task', node, expect.any(Number)]),
      ]),
      ['client_fini', 'srun', null, null],
    ]);
    expect(mpi.calls[0]!.changes).toEqual([
      { op: 'set', name: 'MPI_TRACE_CLIENT', value: jobStep },
      { op: 'set', name: 'MPI_TRACE_OVER', value: 'over' },
    ]);
    expect(mpi.calls.find((c) => c.hook === 'slurmstepd_prefork' && c.node === 1)!.changes).toEqual([
      { op: 'set', name: 'MPI_TRACE_PREFORK', value: '1' },
      { op: 'unset', name: 'MPI_TRACE_GONE' },
    ]);
    expect(mpi.calls.find((c) => c.hook === 'slurmstepd_task' && c.task === 2)!.changes).toEqual([{ op: 'set', name: 'MPI_TRACE_TASK', value: '2' }]);
    expect(result.steps[0]!.problems).toEqual([]);
  });

  it("gives plugins Slurm's environment helpers: the same results as in Slurm's slurmstepd", async () => {
    const { log } = await srun(release, ['--mpi=trace', 'true'], { spank: false });
    // The line the real 22.05 slurmstepd wrote (test/conformance/mpi.test.ts).
    expect(log.filter((l) => l.startsWith('mpi:envcheck'))).toEqual([
      'mpi:envcheck count0=0 app1=1 app2=0 A=1 ow=1 A=3 off=2 owf=1 B=7-x sf=0 C=c apf=1 D=5 slots=5 unset: count=3 ' +
        'B=(unset) slots=5 merge: count=2 X=3 Y=2 BAD=(unset) copy: count=2 first=X=3 setenvf(NULL): rc=0 array=NULL getenv=p',
    ]);
  });

  it('chooses the type as srun does: --mpi, then SLURM_MPI_TYPE, then MpiDefault', async () => {
    const conf = ['MpiDefault=trace'];
    const byDefault = await srun(release, ['printenv', 'SLURM_MPI_TYPE'], { slurmConf: conf, spank: false });
    expect(byDefault.result.stdout).toBe('trace\n');
    expect(byDefault.result.mpi?.type).toBe('trace');
    const none = release === '22.05' ? 'none' : null;
    const byEnv = await srun(release, ['sh', '-c', 'echo ${SLURM_MPI_TYPE-unset}'], { slurmConf: conf, spank: false, env: { SLURM_MPI_TYPE: 'none' } });
    // "none" is taken out of the step's environment by slurmstepd.
    expect(byEnv.result.stdout).toBe('unset\n');
    expect(byEnv.result.mpi?.type ?? null).toBe(none);
    // (slurmd, which loads every mpi plugin and reads mpi.conf when it
    // starts, is not srun's nor the step's: its lines aside.)
    const slurmd = new Set(byEnv.log.filter((l) => l.startsWith('mpi:conf_options')).map((l) => /pid=(\d+)/.exec(l)![1]));
    expect(byEnv.log.filter((l) => l.startsWith('mpi:') && !slurmd.has(/pid=(\d+)/.exec(l)?.[1]))).toEqual([]);
    const byOption = await srun(release, ['--mpi=trace', 'printenv', 'SLURM_MPI_TYPE'], { spank: false, env: { SLURM_MPI_TYPE: 'none' } });
    expect(byOption.result.stdout).toBe('trace\n');
  });

  it(release === '22.05' ? "runs none as a plugin of stubs (openmpi is none)" : 'loads nothing for none or openmpi', async () => {
    for (const type of ['none', 'openmpi']) {
      const { result } = await srun(release, [`--mpi=${type}`, 'sh', '-c', 'echo ${SLURM_MPI_TYPE-unset}'], { spank: false });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toBe('unset\n');
      if (release === '22.05') {
        expect(result.mpi!.type).toBe('none');
        expect(result.mpi!.pluginId).toBe(101);
        expect(result.mpi!.calls.map((c) => c.hook)).toEqual(['client_prelaunch', 'slurmstepd_prefork', 'slurmstepd_task', 'client_fini']);
      } else {
        expect(result.mpi!.type).toBeNull();
        expect(result.mpi!.calls).toEqual([]);
      }
    }
  });

  it('lists the types of PluginDir with --mpi=list, and ends', async () => {
    const { result, log } = await srun(release, ['--mpi=list'], { spank: false });
    expect(result.exitCode).toBe(0);
    const types = result.stdout.split('\n').slice(1).filter(Boolean).map((l) => l.trim()).sort();
    expect(result.stdout.split('\n')[0]).toBe('MPI plugin types are...');
    expect(types).toEqual(release === '22.05' ? ['none', 'pmi2', 'trace'] : ['pmi2', 'trace']);
    expect(log).toEqual([]);
  });

  it("refuses an unknown type with srun's message and its error status", async () => {
    const { result } = await srun(release, ['--mpi=bogus', 'true'], { spank: false, env: { SLURM_EXIT_ERROR: '7' } });
    expect(result.exitCode).toBe(7);
    expect(result.stderr).toContain("srun: error: MPI: Cannot create context for mpi/bogus\n");
    expect(result.stderr).toContain("srun: error: Invalid MPI type 'bogus', --mpi=list for acceptable types\n");
    expect(result.job).toBeUndefined();
  });

  it('says pmix is not provided, and passes a site\'s Slurm mpi_pmi2.so over for its own', async () => {
    const pmix = await srun(release, ['--mpi=pmix', 'true'], { spank: false });
    expect(pmix.result.exitCode).toBe(1);
    expect(pmix.result.client.problems.map((p) => p.code)).toContain('MPI_NOT_PROVIDED');
    // A directory with a file of that name (here the trace plugin under it).
    const site = mpiTrace(release, { SITE_COPY: true }, 'mpi_pmi2.so');
    const pmi2 = await srun(release, ['--mpi=pmi2', 'true'], { spank: false, pluginDirs: [site] });
    expect(pmi2.result.exitCode, pmi2.result.stderr).toBe(0);
    expect(pmi2.result.client.problems.find((p) => p.code === 'MPI_PLUGSTACK_PMI2')?.message).toContain(`${site}/mpi_pmi2.so is passed over`);
    expect(pmi2.result.mpi!.plugin).not.toContain(site);
    expect(pmi2.log).toEqual([]);
  });

  describe('when a hook fails', () => {
    it('client_prelaunch (NULL): the launch fails before any node, client_fini still runs, status 242', async () => {
      const { result, log } = await srun(release, ['--mpi=trace', '-n', '2', 'true'], { env: { MPI_TRACE_FAIL: 'client_prelaunch' } });
      expect(result.exitCode).toBe(242);
      expect(result.stderr).toContain("srun: error: Application launch failed: MPI plugin's pre-launch setup failed\n");
      expect(result.stderr).toContain('srun: error: Timed out waiting for job step to complete\n');
      const names = sequence(log).map((c) => c.name);
      expect(names).not.toContain('job_prolog');
      expect(names).not.toContain('mpi:prefork');
      expect(log.find((l) => l.startsWith('mpi:client_fini'))).toContain('state=NULL');
      expect(result.steps).toEqual([]);
    });

    // A launch that failed on a node: 22.05's srun ends as the tasks it ran
    // did (none), 24.11's with 1 at least.
    it('slurmstepd_prefork: every task of the node fails to launch (Unspecified error), status 0 (22.05) or 1 (24.11), the exit callbacks run', async () => {
      const { result, log } = await srun(release, ['--mpi=trace', '-n', '2', 'true'], { env: { MPI_TRACE_FAIL: 'prefork' } });
      expect(result.exitCode).toBe(release === '22.05' ? 0 : 1);
      expect(result.stderr).toBe('srun: error: task 0 launch failed: Unspecified error\nsrun: error: task 1 launch failed: Unspecified error\n');
      const stepd = sequence(log).filter((c) => c.pid === sequence(log).find((x) => x.name === 'mpi:prefork')!.pid).map((c) => c.name);
      expect(stepd).toEqual(['mpi:init', 'init', 'init_post_opt', 'mpi:prefork', 'exit', 'mpi:fini']);
      expect(result.steps[0]!.nodes[0]).toMatchObject({ failedAt: 'mpi_prefork', launchRc: -1, exitCallbacksRan: true });
    });

    it("slurmstepd_task: that task ends with status 1 before exec ('Unable to configure MPI plugin')", async () => {
      const all = await srun(release, ['--mpi=trace', '-n', '2', 'echo', 'ran'], { env: { MPI_TRACE_FAIL: 'task' } });
      expect(all.result.exitCode).toBe(1);
      expect(all.result.stdout).toBe('');
      expect(all.result.stderr.split('\n').filter((l) => l.includes('Unable to configure MPI plugin'))).toHaveLength(2);
      expect(all.result.stderr).toContain('srun: error: node0: tasks 0-1: Exited with exit code 1\n');
      // task_init never ran.
      expect(sequence(all.log).map((c) => c.name)).not.toContain('task_init');
      const one = await srun(release, ['--mpi=trace', '-n', '2', 'echo', 'ran'], { env: { MPI_TRACE_FAIL: 'task1' } });
      expect(one.result.stdout).toBe('ran\n');
      expect(one.result.steps[0]!.tasks.map((t) => t.exitCode)).toEqual([0, 1]);
      expect(one.result.stderr).toContain(': error: Unable to configure MPI plugin: No error\n');
    });

    // 22.05 keeps client_fini's result apart (-1 is 255); 24.11 takes the
    // MAX of it and the launch's own result, where a negative one is lost.
    it.each([
      ['3', 3, 3],
      ['-1', 255, 0],
    ])("client_fini returning %s: srun's status is its result (22.05: %s, 24.11: %s)", async (rc, old, current) => {
      const { result } = await srun(release, ['--mpi=trace', 'true'], { spank: false, env: { MPI_TRACE_FAIL: `client_fini=${rc}` } });
      expect(result.exitCode).toBe(release === '22.05' ? old : current);
      expect(result.mpi!.calls.at(-1)).toMatchObject({ hook: 'client_fini', rc: Number(rc) });
    });
  });

  it('reports a hook that breaks the array it was handed, with plugin and hook', async () => {
    for (const hook of ['client_prelaunch', 'prefork', 'task']) {
      const { result } = await srun(release, ['--mpi=trace', 'true'], { spank: false, env: { MPI_TRACE_BREAK: hook } });
      const problems = [...result.client.problems, ...result.steps.flatMap((s) => s.problems)].filter((p) => p.code === 'MPI_ENV_BROKEN');
      expect(problems, hook).toHaveLength(1);
      expect(problems[0]!.message).toContain('("BROKEN_ENTRY") has no \'=\'');
      expect(problems[0]!.plugin).toMatch(/mpi\/trace$/);
      // Slurm's env code skips such an entry: the step still runs.
      expect(result.exitCode, hook).toBe(0);
    }
  });

  it("refuses the plugins Slurm refuses: 21.08's hook names, no plugin_id, another micro release", async () => {
    const old = await srun(release, ['--mpi=trace', 'true'], { pluginDirs: [mpiTrace(release, { OLD_NAMES: true })] });
    expect(old.result.exitCode).toBe(1);
    expect(old.result.stderr).toContain('srun: fatal: plugin_load_and_link: Plugin loading failed due to missing symbols. Plugin is corrupted.\n');
    const missing = old.result.client.problems.find((p) => p.code === 'MPI_MISSING_HOOKS')!;
    if (release === '22.05') expect(missing.message).toContain('lacks mpi_p_client_prelaunch; it defines p_mpi_hook_client_prelaunch');
    // init() ran before the hooks were looked up.
    expect(old.log.filter((l) => l.startsWith('mpi:'))).toEqual([expect.stringMatching(/^mpi:init /)]);
    const noId = await srun(release, ['--mpi=trace', 'true'], { spank: false, pluginDirs: [mpiTrace(release, { NO_PLUGIN_ID: true })] });
    expect(noId.result.exitCode).toBe(1);
    expect(noId.result.client.problems.find((p) => p.code === 'MPI_MISSING_HOOKS')!.message).toContain('lacks plugin_id');
    const micro = path.dirname(compilePlugin('mpi_trace.c', { defines: { SLURM_VERSION_NUMBER: NUMBER[release]! - 1 }, name: 'mpi_trace.so' }));
    const other = await srun(release, ['--mpi=trace', 'true'], { spank: false, pluginDirs: [micro] });
    expect(other.result.exitCode).toBe(1);
    expect(other.result.stderr).toContain("Invalid MPI type 'trace'");
    expect(other.result.client.problems.find((p) => p.code === 'PLUGIN_VERSION_MISMATCH')!.message).toContain('must match all three numbers');
  });
});

describe('launchStep with an mpi type', () => {
  it("runs the plugin's slurmstepd side on every node; SLURM_MPI_TYPE must be in the step's environment", async () => {
    const dir = tempDir('plugstack-mpi-');
    const log = path.join(dir, 'trace.log');
    const conf = writeFile(dir, 'plugstack.conf', '');
    const stack = await Plugstack.load(conf, { pluginDir: mpiTrace('24.11'), env: { ...process.env, MPI_TRACE_LOG: log } });
    const step = await stack.launchStep({ argv: ['true'], nodes: 2, ntasks: 2, mpi: 'trace', env: { PATH: '/usr/bin:/bin', SLURM_MPI_TYPE: 'trace' } });
    expect(step.ok).toBe(true);
    expect(step.mpi!.calls.map((c) => [c.hook, c.node])).toEqual([
      ['slurmstepd_prefork', 0],
      ['slurmstepd_task', 0],
      ['slurmstepd_prefork', 1],
      ['slurmstepd_task', 1],
    ]);
    const without = await stack.launchStep({ argv: ['true'], mpi: 'trace', env: { PATH: '/usr/bin:/bin' } });
    expect(without.nodes[0]).toMatchObject({ failedAt: 'mpi_env', launchRc: 1009, exitCallbacksRan: false });
    expect(without.log.map((l) => l.message)).toContain('MPI: SLURM_MPI_TYPE environmental variable is not set.');
    expect(fs.readFileSync(log, 'utf8')).not.toMatch(/mpi:prefork.*\n(.|\n)*mpi:prefork(.|\n)*mpi:prefork/);
  });
});

describe('slurmd and check', () => {
  it('slurmd loads every mpi plugin after SPANK init, passes over one whose init fails, and unloads them before slurmd_exit', async () => {
    const dir = tempDir('plugstack-mpi-');
    const log = path.join(dir, 'trace.log');
    const bad = mpiTrace('24.11', { INIT_FAILS: true }, 'mpi_bad.so');
    const conf = writeFile(dir, 'plugstack.conf', `required ${spankTrace('24.11')} log=${log}\n`);
    const stack = await Plugstack.load(conf, { pluginDir: [mpiTrace('24.11'), bad], env: { ...process.env, MPI_TRACE_LOG: log } });
    const d = await stack.slurmd();
    expect(d.started).toBe(true);
    expect(d.mpi.map((p) => [p.type, p.loaded, p.pluginId ?? p.code])).toEqual([
      ['trace', true, 4242],
      ['bad', false, 'PLUGIN_INIT_FAILED'],
      ['pmi2', true, 102],
    ]);
    const stop = await d.stop();
    expect([...d.record.log, ...stop.log].map((l) => l.message)).toContain('MPI: Cannot create context for mpi/bad');
    const names = sequence(readLog(log)).map((c) => c.name);
    expect(names).toEqual(['init', 'mpi:init', 'mpi:init', 'mpi:conf_options', 'mpi:conf_set', 'mpi:conf_get', 'mpi:fini', 'slurmd_exit']);
    expect(readLog(log).find((l) => l.startsWith('mpi:conf_set'))).toContain('tbl=NULL');
  });

  it("check --slurm-conf reports the mpi plugins slurmd would load, and an MpiDefault that does not load", async () => {
    for (const [mpiDefault, ok] of [
      ['trace', true],
      ['bogus', false],
    ] as const) {
      const dir = tempDir('plugstack-mpi-');
      const conf = writeFile(dir, 'plugstack.conf', '');
      const slurmConf = writeFile(dir, 'slurm.conf', `PluginDir=${mpiTrace('24.11')}\nMpiDefault=${mpiDefault}\n`);
      const report = await (await Plugstack.load(conf, { slurmConf })).check();
      expect(report.mpi!.plugins.map((p) => [p.type, p.loaded])).toEqual([
        ['trace', true],
        ['pmi2', true],
      ]);
      expect(report.mpi!.default).toBe(mpiDefault);
      expect(report.mpi!.ok).toBe(ok);
      expect(report.ok).toBe(ok);
      if (!ok) expect(report.mpi!.problems.find((p) => p.code === 'MPI_DEFAULT_NOT_LOADED')!.line).toBe(2);
    }
  });
});

describe('plugstack check of an mpi plugin file', () => {
  it("loads mpi_NAME.so as slurmd and srun would, and says why 21.08's hook names are refused", () => {
    const run = (dir: string) =>
      spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'plugstack.cjs'), 'check', path.join(dir, 'mpi_trace.so')], { encoding: 'utf8' });
    const good = run(mpiTrace('24.11'));
    expect(good.status, good.stdout + good.stderr).toBe(0);
    expect(good.stderr).toContain('is an mpi plugin: checking it as slurmd and srun load it');
    expect(good.stdout).toContain('mpi/trace  loaded (plugin_id 4242)');
    const oldDir = mpiTrace('24.11', { OLD_NAMES: true });
    const old = run(oldDir);
    expect(old.status).toBe(1);
    expect(old.stdout).toContain(`${path.join(oldDir, 'mpi_trace.so')}: lacks mpi_p_client_prelaunch; it defines p_mpi_hook_client_prelaunch, the names of Slurm 21.08 and older`);
    expect(old.stdout).toContain('result: Slurm 24.11.5 would fail with this stack in slurmd and srun (mpi)');
  });
});
