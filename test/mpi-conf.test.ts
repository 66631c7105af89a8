/**
 * mpi.conf (issue 12): the trace fixture built with -DCONF_KEYS takes four
 * mpi.conf keys of its own (TraceLevel, TraceName, TraceOn, TraceShift).
 * slurmd reads the mpi.conf beside slurm.conf into the plugin's table
 * (conf_set logs what it got), packs what conf_get returns, and each
 * slurmstepd of a step hands it to conf_set right after the plugin's init;
 * Slurm's parser rules (only the first key of a line, keys of no plugin
 * passed over, values converted and refused with Slurm's messages) and a
 * bad line reported with its file and line by srun and by check.
 * test/conformance/mpi.test.ts runs the same on the real slurmd.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { compilePlugin, readLog, tempDir, writeFile } from './helpers/plugins.js';

const NUMBER: Record<string, number> = { '22.05': 0x160508, '24.11': 0x180b05 };

function confTrace(release: string): string {
  return path.dirname(compilePlugin('mpi_trace.c', { defines: { SLURM_VERSION_NUMBER: NUMBER[release]!, CONF_KEYS: true }, name: 'mpi_trace.so' }));
}

/** A site: slurm.conf with the trace plugin's PluginDir, mpi.conf beside it. */
function site(release: string, mpiConf: string | undefined) {
  const dir = tempDir('plugstack-mpiconf-');
  const log = path.join(dir, 'trace.log');
  const conf = writeFile(dir, 'plugstack.conf', '');
  const slurmConf = writeFile(dir, 'slurm.conf', `PluginDir=${confTrace(release)}\nPlugStackConfig=${conf}\n`);
  if (mpiConf !== undefined) writeFile(dir, 'mpi.conf', mpiConf);
  return { dir, log, conf, slurmConf };
}

/** "comm" aside, each conf_set line by process: slurmd's first, then the stepd's. */
const confSets = (log: string[]) => log.filter((l) => l.startsWith('mpi:conf_set')).map((l) => l.replace(/ pid=\d+ comm=\S+/, ''));

describe.each(['24.11', '22.05'])('mpi.conf under %s', (release) => {
  it("slurmd's conf_set gets mpi.conf's values, each slurmstepd's gets what conf_get returned", async () => {
    const s = site(
      release,
      [
        '# the trace plugin',
        'TraceLevel=3k',
        'tracename = "two words"',
        'TraceOn=UP TraceLevel=9', // only a line's first key is read
        'PMIxDebug=1', // no plugin here takes it
        'TraceShift=-2',
        '',
      ].join('\n'),
    );
    const stack = await Plugstack.load(s.conf, { slurmConf: s.slurmConf, slurmVersion: release, env: { ...process.env, MPI_TRACE_LOG: s.log } });
    const result = await stack.srun({ args: ['--mpi=trace', '-N', '2', '-n', '2', 'true'], cwd: s.dir, env: { PATH: '/usr/bin:/bin', MPI_TRACE_LOG: s.log } });
    expect(result.exitCode, result.stderr).toBe(0);
    const log = readLog(s.log);
    // slurmd: its table; two slurmstepds: the packed copy (a long goes in 32 bits).
    // conf_get's s_p_parse_pair reads an unquoted value up to its first
    // space, as Slurm's does.
    expect(confSets(log)).toEqual([
      'mpi:conf_set tbl=set TraceLevel=3072 TraceName=two words TraceOn=yes TraceShift=-2',
      'mpi:conf_set tbl=set TraceLevel=3072 TraceName=two TraceOn=yes TraceShift=4294967294',
      'mpi:conf_set tbl=set TraceLevel=3072 TraceName=two TraceOn=yes TraceShift=4294967294',
    ]);
    // In each slurmstepd, conf_set comes right after the plugin's init.
    const stepdPids = new Set(log.filter((l) => l.startsWith('mpi:prefork')).map((l) => /pid=(\d+)/.exec(l)![1]));
    for (const pid of stepdPids) {
      const mine = log.filter((l) => l.includes(`pid=${pid} `)).map((l) => /^(\S+)/.exec(l)![1]);
      expect(mine.slice(0, 3)).toEqual(['mpi:init', 'mpi:conf_set', 'mpi:prefork']);
    }
    expect(stepdPids.size).toBe(2);
    // A key no plugin takes, or one after a line's first, is passed over,
    // as slurmd does (a warning here).
    expect(result.steps[0]!.problems.filter((p) => p.code === 'MPI_CONF_LINE_IGNORED').map((p) => [p.file, p.line])).toEqual([
      [path.join(s.dir, 'mpi.conf'), 4],
      [path.join(s.dir, 'mpi.conf'), 5],
    ]);

    // The same mpi.conf again: slurmd's reading is kept, the stepds get the same.
    fs.writeFileSync(s.log, '');
    const again = await stack.srun({ args: ['--mpi=trace', '-n', '1', 'true'], cwd: s.dir, env: { PATH: '/usr/bin:/bin', MPI_TRACE_LOG: s.log } });
    expect(again.exitCode).toBe(0);
    expect(confSets(readLog(s.log))).toEqual(['mpi:conf_set tbl=set TraceLevel=3072 TraceName=two TraceOn=yes TraceShift=4294967294']);
  });

  it('without mpi.conf: an empty table in slurmd, and what conf_get returns (nothing set) in each slurmstepd', async () => {
    const s = site(release, undefined);
    const stack = await Plugstack.load(s.conf, { slurmConf: s.slurmConf, slurmVersion: release, env: { ...process.env, MPI_TRACE_LOG: s.log } });
    const result = await stack.srun({ args: ['--mpi=trace', '-n', '1', 'true'], cwd: s.dir, env: { PATH: '/usr/bin:/bin', MPI_TRACE_LOG: s.log } });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(confSets(readLog(s.log))).toEqual([
      'mpi:conf_set tbl=set TraceLevel=unset TraceName=(unset) TraceOn=unset TraceShift=unset',
      'mpi:conf_set tbl=set TraceLevel=unset TraceName=(unset) TraceOn=unset TraceShift=unset',
    ]);
  });

  it('a value the plugin refuses stops slurmd: the launch fails on every node, the line is named; check says so too', async () => {
    const s = site(release, 'TraceName=x\nTraceLevel=lots\n');
    const stack = await Plugstack.load(s.conf, { slurmConf: s.slurmConf, slurmVersion: release, env: { ...process.env, MPI_TRACE_LOG: s.log } });
    const result = await stack.srun({ args: ['--mpi=trace', '-n', '2', '-N', '2', 'true'], cwd: s.dir, env: { PATH: '/usr/bin:/bin', MPI_TRACE_LOG: s.log } });
    const bad = result.steps[0]!.problems.find((p) => p.code === 'MPI_CONF_INVALID')!;
    expect(bad).toMatchObject({ file: path.join(s.dir, 'mpi.conf'), line: 2, plugin: 'mpi/trace' });
    expect(bad.message).toContain('TraceLevel value (lots) is not a valid number');
    expect(result.stderr).toContain('task 0 launch failed: Invalid MPI plugin name');
    expect(result.stderr).toContain('task 1 launch failed: Invalid MPI plugin name');
    // No slurmstepd got as far as the plugin.
    expect(readLog(s.log).filter((l) => l.startsWith('mpi:prefork'))).toEqual([]);

    const report = await stack.check();
    expect(report.ok).toBe(false);
    expect(report.mpi!.problems.find((p) => p.code === 'MPI_CONF_INVALID')).toMatchObject({ line: 2 });
    expect(report.mpi!.log.map((l) => l.message)).toContain(
      `Could not open/read/parse mpi.conf file ${path.join(s.dir, 'mpi.conf')}. Many times this is because you have defined options for plugins that are not loaded. Please check your slurm.conf file and make sure the plugins for the options listed are loaded.`,
    );
    expect(report.mpi!.plugins.find((p) => p.type === 'trace')!.confOptions!.map((o) => `${o.key}:${o.type}`)).toEqual([
      'TraceLevel:S_P_UINT32',
      'TraceName:S_P_STRING',
      'TraceOn:S_P_BOOLEAN',
      'TraceShift:S_P_LONG',
    ]);
  });

  it("stack.slurmd() reads mpi.conf at start and stops on a bad line", async () => {
    const good = site(release, 'TraceOn=no\n');
    const d = await (await Plugstack.load(good.conf, { slurmConf: good.slurmConf, slurmVersion: release, env: { ...process.env, MPI_TRACE_LOG: good.log } })).slurmd();
    expect(d.started).toBe(true);
    await d.stop();
    expect(confSets(readLog(good.log))).toEqual(['mpi:conf_set tbl=set TraceLevel=unset TraceName=(unset) TraceOn=no TraceShift=unset']);

    const bad = site(release, 'TraceOn=maybe\n');
    const b = await (await Plugstack.load(bad.conf, { slurmConf: bad.slurmConf, slurmVersion: release, env: { ...process.env, MPI_TRACE_LOG: bad.log } })).slurmd();
    expect(b.started).toBe(false);
    expect(b.record.log.map((l) => l.message)).toContain('"maybe" is not a valid option for "TraceOn"');
    await b.stop();
  });
});
