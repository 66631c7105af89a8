/**
 * mpi plugins against the real Slurm (issue 12): the trace fixture
 * (test/fixtures/plugins/mpi_trace.c, built against plugstack's own
 * <plugstack/mpi.h> for the release: Debian ships no mpi header) is added
 * to the real cluster's PluginDir (slurmd loads mpi plugins only when it
 * starts: it is restarted, and put back afterwards), beside the SPANK trace
 * fixture logging to the same file. The same srun commands run on the
 * cluster and on plugstack (with a copy of the cluster's slurm.conf): the
 * hooks, the processes they run in, their order around SPANK, what they
 * are handed, what Slurm's env helpers do, the tasks' environment, every
 * failure's messages and status; then real MPI programs (Debian's MPICH,
 * Slurm's libpmi2) under the real srun --mpi=pmi2 and under plugstack.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Plugstack } from '../../lib/plugstack.js';
import { compilePlugin, readLog, repoRoot, tempDir } from '../helpers/plugins.js';
import { cluster, releases, type Release } from './run.js';

const NUMBER: Record<Release, number> = { '22.05': 0x160508, '24.11': 0x180b05 };
const DEBIAN_PLUGINS = '/usr/lib/x86_64-linux-gnu/slurm-wlm';
const PROGRAMS = path.join(repoRoot, 'test', 'fixtures', 'programs');

interface Observed {
  exitCode: number;
  stdout: string;
  stderr: string;
  log: string[];
}

/** Job and step ids, pids, ports and the processes' names differ between the two. */
function normalize(text: string): string {
  return text
    .replace(/pid=\d+/g, 'pid=P')
    .replace(/comm=\S+/g, 'comm=C')
    .replace(/job=\d+/g, 'job=J')
    .replace(/\b\d{1,6}\.0\b/g, 'J.0')
    .replace(/StepId=\d+/g, 'StepId=J');
}

/** srun's own lines, as a user reads them (scheduling chatter aside). */
function srunLines(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => l !== '' && !/queued and waiting for resources|has been allocated resources|^plugstack:/.test(l))
    .map((l) => normalize(l).replace(/^slurmstepd-node0:/, 'slurmstepd:'));
}

/**
 * Each process's callbacks in order: srun, slurmstepd, and each task by
 * rank. slurmstepd's mpi:fini is left out: the real one runs after srun
 * has returned (stepd_cleanup), so a log read then may not have it yet.
 */
function perProcess(log: string[]): Record<string, string[]> {
  const pidOf = (l: string) => /pid=(\d+)/.exec(l)?.[1];
  const roleOf = new Map<string, string>();
  for (const l of log) {
    const pid = pidOf(l);
    if (!pid) continue;
    if (/^init ctx=1 /.test(l)) roleOf.set(pid, 'srun');
    if (/^init ctx=2 /.test(l)) roleOf.set(pid, 'slurmstepd');
    const rank = /^task_init_privileged .*GTASK=(\d+)/.exec(l)?.[1];
    if (rank !== undefined) roleOf.set(pid, `task${rank}`);
  }
  const out: Record<string, string[]> = {};
  for (const l of log) {
    const pid = pidOf(l);
    const role = pid && roleOf.get(pid);
    if (!role) continue;
    const name = /^(mpi:\w+|\w+)/.exec(l)![1]!;
    if (/^(OPTION_CB|option_register|job_control_setenv|spank_setenv|mpi:fini)$/.test(name)) continue;
    (out[role] ??= []).push(name);
  }
  return out;
}

/**
 * slurmd's lines aside (the real one read mpi.conf when it was restarted,
 * plugstack's before the first launch: mpi/conf.ts).
 */
const mpiLines = (log: string[]) => {
  const slurmd = new Set(log.filter((l) => l.startsWith('mpi:conf_options')).map((l) => /pid=(\d+)/.exec(l)![1]));
  return log
    .filter((l) => l.startsWith('mpi:') && !l.startsWith('mpi:init') && !l.startsWith('mpi:fini') && !slurmd.has(/pid=(\d+)/.exec(l)?.[1]))
    .map(normalize)
    .sort();
};

describe.each(releases())('mpi plugins: plugstack and the real Slurm %s agree', (release) => {
  const c = cluster(release);
  const dir = tempDir('conformance-mpi-');
  const log = path.join(dir, 'trace.log');
  let saved = '';
  let site = '';
  let plugstackConf = '';

  beforeAll(() => {
    fs.chmodSync(dir, 0o777);
    const traceDir = path.dirname(
      compilePlugin('mpi_trace.c', { defines: { SLURM_VERSION_NUMBER: NUMBER[release], TRACE_LOG: JSON.stringify(log) }, name: 'mpi_trace.so' }),
    );
    saved = fs.readFileSync(c.conf, 'utf8');
    const rest = saved.split('\n').filter((l) => !/^PluginDir=/i.test(l));
    fs.writeFileSync(c.conf, [...rest.filter(Boolean), `PluginDir=${DEBIAN_PLUGINS}:${traceDir}`, ''].join('\n'));
    // The real slurmd loads every mpi_*.so of PluginDir when it starts.
    c.useStack(`required ${c.compile('trace.c')} log=${log}\n`);
    c.verb('restart-slurmd');
    // plugstack: a copy of the cluster's slurm.conf, the SPANK trace built
    // against plugstack's spank.h.
    // The cluster's PluginDir is read inside its root (24.11's is a trixie
    // root): plugstack is given the same directories seen from outside.
    site = path.join(dir, 'slurm.conf');
    fs.writeFileSync(site, [...rest.filter(Boolean), `PluginDir=${path.join(c.root ?? '/', DEBIAN_PLUGINS)}:${traceDir}`, ''].join('\n'));
    const spank = release === '22.05' ? compilePlugin('trace.c', { defines: { PLUGIN_VERSION: 0x160508 } }) : compilePlugin('trace.c');
    plugstackConf = path.join(dir, 'plugstack.conf');
    fs.writeFileSync(plugstackConf, `required ${spank} log=${log}\n`);
  });

  afterAll(() => {
    if (!saved) return;
    fs.writeFileSync(c.conf, saved);
    c.verb('restart-slurmd');
  });

  async function both(args: string[], env: Record<string, string> = {}, timeoutMs = 90_000): Promise<{ real: Observed; ours: Observed }> {
    const base = c.env({ HOME: dir, ...env });
    c.verb('resume');
    fs.writeFileSync(log, '');
    fs.chmodSync(log, 0o666);
    const r = spawnSync(c.command('srun'), args, { cwd: dir, env: base, encoding: 'utf8', timeout: timeoutMs });
    // slurmstepd's exit callbacks may still be running when srun has returned.
    await c.settle();
    const real: Observed = { exitCode: r.status ?? 128, stdout: r.stdout, stderr: r.stderr, log: readLog(log) };
    fs.writeFileSync(log, '');
    const stack = await Plugstack.load(plugstackConf, { slurmConf: site, slurmVersion: release });
    const result = await stack.srun({ args, cwd: dir, env: base });
    const ours: Observed = { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, log: readLog(log) };
    return { real, ours };
  }

  const ECHO = 'echo T$SLURM_PROCID client=$MPI_TRACE_CLIENT over=$MPI_TRACE_OVER prefork=$MPI_TRACE_PREFORK task=$MPI_TRACE_TASK type=${SLURM_MPI_TYPE-unset} gone=${MPI_TRACE_GONE-gone}';

  it('the same hooks in the same processes, in the same order around SPANK, handed the same, changing the same', async () => {
    const { real, ours } = await both(['--mpi=trace', '-n', '2', '-O', '-l', 'sh', '-c', ECHO], { MPI_TRACE_GONE: '1' });
    expect(real.exitCode, real.stderr).toBe(0);
    expect(ours.exitCode, ours.stderr).toBe(0);
    const processes = perProcess(real.log);
    expect(processes.srun).toContain('mpi:client_prelaunch');
    expect(perProcess(ours.log)).toEqual(processes);
    // Every mpi line but init and fini (which name the process), ids aside:
    // the layout, the stepd record, the tasks' ids and environments, and
    // what Slurm's env helpers do.
    expect(mpiLines(ours.log)).toEqual(mpiLines(real.log));
    expect(normalize(ours.stdout).split('\n').sort()).toEqual(normalize(real.stdout).split('\n').sort());
  });

  it.each(['client_prelaunch', 'prefork', 'task', 'task1', 'client_fini=3', 'client_fini=-1'])(
    'a failing hook (%s): the same messages, status and callbacks',
    async (fail) => {
      const { real, ours } = await both(['--mpi=trace', '-n', '2', '-O', 'sh', '-c', 'echo ran $SLURM_PROCID'], { MPI_TRACE_FAIL: fail });
      expect(ours.exitCode).toBe(real.exitCode);
      expect(srunLines(ours.stderr).sort()).toEqual(srunLines(real.stderr).sort());
      expect(ours.stdout.split('\n').sort()).toEqual(real.stdout.split('\n').sort());
      expect(perProcess(ours.log)).toEqual(perProcess(real.log));
    },
  );

  it("an unknown type: srun's lines and status", async () => {
    const { real, ours } = await both(['--mpi=bogus', 'true']);
    expect(real.exitCode).toBe(1);
    expect(ours.exitCode).toBe(real.exitCode);
    expect(srunLines(ours.stderr)).toEqual(srunLines(real.stderr));
  });

  it('--mpi=list: every type plugstack lists, the real srun lists', async () => {
    const { real, ours } = await both(['--mpi=list']);
    expect(ours.exitCode).toBe(real.exitCode);
    const types = (o: Observed) => o.stdout.split('\n').filter((l) => l.startsWith('\t')).map((l) => l.trim());
    expect(types(real)).toEqual(expect.arrayContaining(types(ours)));
    expect(types(ours).sort()).toEqual(release === '22.05' ? ['none', 'pmi2', 'trace'] : ['pmi2', 'trace']);
  });

  // The cluster's tasks must find MPICH and libpmi2 too (24.11 runs in a root of its own).
  const inCluster = (lib: string) => fs.existsSync(path.join(release === '24.11' ? (c.root ?? '/') : '/', 'usr/lib/x86_64-linux-gnu', lib));
  describe.skipIf(release === '24.11' && !(inCluster('libmpich.so.12') && inCluster('libpmi2.so.0')))('real MPI programs under the real srun --mpi=pmi2 and under plugstack', () => {
    const hasMpich = spawnSync('mpicc.mpich', ['-show'], { stdio: 'ignore' }).status === 0;
    const programs: Record<string, string> = {};
    beforeAll(() => {
      if (!hasMpich) return;
      for (const [name, cc, libs] of [
        ['mpi_hello', 'mpicc.mpich', []],
        ['pmi2_kvs', 'cc', ['-lpmi2']],
      ] as const) {
        const out = path.join(dir, name);
        spawnSync(cc, ['-O', '-o', out, path.join(PROGRAMS, `${name}.c`), ...libs], { stdio: 'inherit' });
        programs[name] = out;
      }
    });

    it.skipIf(!hasMpich && process.env.PLUGSTACK_REQUIRE_MPICH !== '1').each([
      ['MPICH: MPI_Init, Allreduce, Finalize on 4 ranks', ['--mpi=pmi2', '-n', '4', '-O'], 'mpi_hello', []],
      ["Slurm's libpmi2: put, fence, get on 3 ranks", ['--mpi=pmi2', '-n', '3', '-O'], 'pmi2_kvs', []],
      ['MPICH with MPI_Abort on rank 1', ['--mpi=pmi2', '-n', '3', '-O'], 'mpi_hello', ['abort']],
      ['MPICH with no PMI: 2 singletons', ['--mpi=none', '-n', '2', '-O'], 'mpi_hello', []],
    ])('%s: the same output and status', async (_what, opts, name, extra) => {
      const { real, ours } = await both([...opts, programs[name]!, ...extra]);
      expect(ours.exitCode).toBe(real.exitCode);
      const out = (o: Observed) => normalize(o.stdout).split('\n').filter(Boolean).sort();
      expect(out(ours)).toEqual(out(real));
    });
  });
});

/**
 * mpi.conf: the trace fixture built with -DCONF_KEYS (four keys of its own)
 * in the real cluster's PluginDir and an mpi.conf beside its slurm.conf;
 * the real slurmd reads it when it starts (restarted for it), each real
 * slurmstepd gets what the plugin's conf_get returned. plugstack reads the
 * same file beside its copy of slurm.conf: the same values in slurmd's
 * conf_set and in each slurmstepd's.
 */
describe.each(releases())('mpi.conf: plugstack and the real Slurm %s agree', (release) => {
  const c = cluster(release);
  const dir = tempDir('conformance-mpiconf-');
  const log = path.join(dir, 'trace.log');
  const mpiConf = [
    '# trace keys, with what Slurm passes over',
    'TraceLevel=3k',
    'tracename = "two words"',
    'TraceOn=UP TraceLevel=9',
    'PMIxDebug=1',
    'TraceShift=-2',
    '',
  ].join('\n');
  let saved = '';
  let site = '';
  let plugstackConf = '';
  let realSlurmd: string[] = [];
  const realMpiConf = path.join(path.dirname(c.conf), 'mpi.conf');

  beforeAll(() => {
    fs.chmodSync(dir, 0o777);
    fs.writeFileSync(log, '');
    fs.chmodSync(log, 0o666);
    const traceDir = path.dirname(
      compilePlugin('mpi_trace.c', {
        defines: { SLURM_VERSION_NUMBER: NUMBER[release], TRACE_LOG: JSON.stringify(log), CONF_KEYS: true },
        name: 'mpi_trace.so',
      }),
    );
    saved = fs.readFileSync(c.conf, 'utf8');
    const rest = saved.split('\n').filter((l) => !/^PluginDir=/i.test(l));
    fs.writeFileSync(c.conf, [...rest.filter(Boolean), `PluginDir=${DEBIAN_PLUGINS}:${traceDir}`, ''].join('\n'));
    fs.writeFileSync(realMpiConf, mpiConf);
    c.useStack('');
    c.verb('restart-slurmd');
    realSlurmd = readLog(log);
    site = path.join(dir, 'slurm.conf');
    fs.writeFileSync(site, [...rest.filter(Boolean), `PluginDir=${path.join(c.root ?? '/', DEBIAN_PLUGINS)}:${traceDir}`, ''].join('\n'));
    fs.writeFileSync(path.join(dir, 'mpi.conf'), mpiConf);
    plugstackConf = path.join(dir, 'plugstack.conf');
    fs.writeFileSync(plugstackConf, '');
  });

  afterAll(() => {
    if (!saved) return;
    fs.rmSync(realMpiConf, { force: true });
    fs.writeFileSync(c.conf, saved);
    c.verb('restart-slurmd');
  });

  const confSets = (lines: string[]) => lines.filter((l) => l.startsWith('mpi:conf_set')).map((l) => l.replace(/ pid=\d+ comm=\S+/, ''));

  it("slurmd's conf_set and each slurmstepd's get the same values", async () => {
    // The real slurmd, at its start: mpi.conf's table (after another
    // scenario's restart, a slurmd may have started twice).
    expect(confSets(realSlurmd).length).toBeGreaterThan(0);
    realSlurmd = realSlurmd.filter((l) => l === realSlurmd.find((x) => x.startsWith('mpi:conf_set')) || !l.startsWith('mpi:conf_set'));
    c.verb('resume');
    fs.writeFileSync(log, '');
    const args = ['--mpi=trace', '-N', '1', '-n', '2', '-O', 'true'];
    const r = spawnSync(c.command('srun'), args, { cwd: dir, env: c.env({ HOME: dir }), encoding: 'utf8', timeout: 90_000 });
    expect(r.status, r.stderr).toBe(0);
    const realStepd = confSets(readLog(log));
    c.cancelAll();

    fs.writeFileSync(log, '');
    const stack = await Plugstack.load(plugstackConf, { slurmConf: site, slurmVersion: release });
    const ours = await stack.srun({ args, cwd: dir, env: c.env({ HOME: dir }) });
    expect(ours.exitCode, ours.stderr).toBe(0);
    const lines = readLog(log);
    // plugstack's slurmd ran before the step (or its reading was kept from an earlier run).
    const slurmdPids = new Set(lines.filter((l) => l.startsWith('mpi:conf_options')).map((l) => /pid=(\d+)/.exec(l)![1]));
    const oursSlurmd = confSets(lines.filter((l) => slurmdPids.has(/pid=(\d+)/.exec(l)?.[1])));
    const oursStepd = confSets(lines.filter((l) => !slurmdPids.has(/pid=(\d+)/.exec(l)?.[1])));
    if (oursSlurmd.length) expect(oursSlurmd).toEqual(confSets(realSlurmd));
    expect(oursStepd).toEqual(realStepd);
    // What the real ones got: only a line's first key, a long through 32 bits,
    // and conf_get's unquoted "two words" cut at its space.
    expect(confSets(realSlurmd)).toEqual(['mpi:conf_set tbl=set TraceLevel=3072 TraceName=two words TraceOn=yes TraceShift=-2']);
    expect(realStepd).toEqual(['mpi:conf_set tbl=set TraceLevel=3072 TraceName=two TraceOn=yes TraceShift=4294967294']);
  });
});
