/**
 * Everything else of Slurm's public API fails cleanly: a plugin calling a
 * function plugstack does not emulate gets Slurm's error value, errno
 * PLUGSTACK_ELIBSLURM_NOT_EMULATED and a LIBSLURM_NOT_EMULATED problem
 * naming plugin, hook and function, and the step goes on. `check` lists
 * the libslurm functions each plugin references and who answers them;
 * plugins linked with -lslurm get plugstack's answers first, and when the
 * library is missing, check names it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDynamicInfo } from '../lib/check/elf.js';
import { LIBSLURM_API } from '../lib/check/libslurm-api.generated.js';
import { hostExecutable } from '../lib/native/paths.js';
import { Plugstack } from '../lib/plugstack.js';
import { readProbe, recordOf } from './helpers/libslurm.js';
import { compilePlugin, fixturesDir, includeDir, tempDir, writeFile } from './helpers/plugins.js';

const NOT_EMULATED = '30000';
const requireHeaders = process.env.PLUGSTACK_REQUIRE_SLURM_HEADERS === '1';
const haveLibslurm =
  fs.existsSync('/usr/include/slurm/slurm.h') &&
  ['/usr/lib/x86_64-linux-gnu/libslurm.so', '/usr/lib/aarch64-linux-gnu/libslurm.so', '/usr/lib64/libslurm.so', '/usr/lib/libslurm.so'].some(
    (f) => fs.existsSync(f),
  );

async function stackWith(line: string, slurmVersion: '22.05' | '24.11' = '24.11') {
  const dir = tempDir();
  const conf = writeFile(dir, 'plugstack.conf', `${line}\n`);
  return { dir, stack: await Plugstack.load(conf, { pluginDir: [], slurmVersion }) };
}

describe('libslurm functions plugstack does not emulate', () => {
  it('fail with Slurm\'s error value and a problem naming plugin, hook and function; the step goes on', async () => {
    const plugin = compilePlugin('libslurm_probe.c');
    const dir = tempDir();
    const log = path.join(dir, 'probe.log');
    const { stack } = await stackWith(`required ${plugin} log=${log} unemulated geterrno`);
    const r = await stack.srun({ args: ['-n', '2', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
    expect(r.exitCode).toBe(0);
    expect(r.steps[0]!.ok).toBe(true);
    const lines = readProbe(log);
    expect(lines.map((l) => l.hook).sort()).toEqual(['local_user_init', 'task_init', 'task_init']);
    for (const l of lines) {
      expect(recordOf(l).job_id).toBe(String(r.job!.jobId));
      expect(l.values).toMatchObject({ kill_job: '-1', kill_errno: NOT_EMULATED, kill_strerror: 'Not', get_statistics: '-1', stats_errno: NOT_EMULATED, get_errno: '2017' });
    }
    const problems = [...r.client.problems, ...r.steps[0]!.problems].filter((p) => p.code.startsWith('LIBSLURM_'));
    const seen = problems.map((p) => `${p.code} ${p.function} ${p.hook}`);
    for (const hook of ['slurm_spank_local_user_init', 'slurm_spank_task_init']) {
      expect(seen).toContain(`LIBSLURM_NOT_EMULATED slurm_kill_job ${hook}`);
      expect(seen).toContain(`LIBSLURM_NOT_EMULATED slurm_get_statistics ${hook}`);
      // slurm_get_errno is 22.05's: Slurm 24.11 would die of an undefined symbol.
      expect(seen).toContain(`LIBSLURM_NOT_IN_RELEASE slurm_get_errno ${hook}`);
    }
    for (const p of problems) {
      expect(p.severity).toBe('warning');
      expect(p.plugin).toBe(plugin);
    }
    // Once per function and hook in a process: srun's local_user_init once,
    // each task child's task_init once.
    expect(seen.filter((s) => s === 'LIBSLURM_NOT_EMULATED slurm_kill_job slurm_spank_local_user_init').length).toBe(1);
    expect(seen.filter((s) => s === 'LIBSLURM_NOT_EMULATED slurm_kill_job slurm_spank_task_init').length).toBe(2);
    expect(problems.find((p) => p.function === 'slurm_kill_job')!.message).toMatch(/^libslurm_probe-\w+\.so called slurm_kill_job\(\) in slurm_spank_\w+ \(slurm\.h\): plugstack does not emulate it; it returned -1 \(SLURM_ERROR\)/);
  });

  it('are all defined by libslurmhost.so, for every release; plugstack\'s header declares those it answers', () => {
    const dir = path.dirname(hostExecutable());
    const lib = [dir, path.dirname(dir)].map((d) => path.join(d, 'libslurmhost.so')).find((f) => fs.existsSync(f))!;
    const defined = new Set(readDynamicInfo(lib)!.definedFunctions);
    const names = Object.keys(LIBSLURM_API);
    expect(names.length).toBeGreaterThan(350);
    expect(names.filter((n) => !defined.has(n))).toEqual([]);
    const header = ['slurm.h', 'slurm_errno.h'].map((h) => fs.readFileSync(path.join(includeDir, 'slurm', h), 'utf8')).join('\n');
    const declared = new Set([...header.matchAll(/^(?:extern\s+)?[\w\s*]+?\b(\w+)\s*\(/gm)].map((m) => m[1]!).filter((n) => n in LIBSLURM_API));
    const implemented = names.filter((n) => LIBSLURM_API[n]!.implemented);
    // The two only 22.05's headers declare are answered too.
    expect(implemented.filter((n) => !declared.has(n)).sort()).toEqual(['slurm_get_errno', 'slurm_hostlist_ranged_string_malloc']);
    expect([...declared].filter((n) => !LIBSLURM_API[n]!.implemented)).toEqual([]);
  });
});

describe('check: the libslurm functions of each plugin', () => {
  it('lists what a plugin references and who answers it, for the emulated release', async () => {
    const plugin = compilePlugin('libslurm_probe.c');
    const { stack } = await stackWith(`required ${plugin}`);
    const report = await stack.check({ context: 'remote' });
    const lib = report.contexts[0]!.plugins[0]!.libslurm!;
    const answers = Object.fromEntries(lib.functions.map((f) => [f.name, f.answer]));
    expect(answers).toMatchObject({
      slurm_load_job: 'plugstack',
      slurm_free_job_info_msg: 'plugstack',
      slurm_hostlist_create: 'plugstack',
      slurm_hostlist_shift: 'plugstack',
      slurm_kill_job: 'not-emulated',
      slurm_get_statistics: 'not-emulated',
      slurm_get_errno: 'not-in-release',
    });
    // The SPANK API is not libslurm's.
    expect(Object.keys(answers).some((n) => n.startsWith('spank_'))).toBe(false);
    expect(lib.missing).toEqual([]);
  });

  it.skipIf(!haveLibslurm && !requireHeaders)('gives a plugin linked with Debian\'s -lslurm plugstack\'s answers first', async () => {
    expect(haveLibslurm, 'Debian\'s libslurm-dev is required').toBe(true);
    const plugin = compilePlugin('libslurm_probe.c', { include: '/usr/include', args: ['-Wl,--no-as-needed', '-lslurm'], name: 'libslurm_probe_linked.so' });
    expect(readDynamicInfo(plugin)!.needed).toContain('libslurm.so.38');
    const dir = tempDir();
    const log = path.join(dir, 'probe.log');
    const { stack } = await stackWith(`required ${plugin} log=${log} geterrno userinit`, '22.05');
    const r = await stack.srun({ args: ['-n', '1', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
    expect(r.exitCode).toBe(0);
    // The real libslurm would have tried to reach a slurmctld.
    const lines = readProbe(log);
    expect(lines.length).toBe(3);
    for (const l of lines) expect(recordOf(l)).toMatchObject({ job_id: String(r.job!.jobId), nodes: 'node0', get_errno: '2017' });
    const report = await stack.check({ context: 'remote' });
    const lib = report.contexts[0]!.plugins[0]!.libslurm!;
    expect(lib.needed).toContain('libslurm.so.38');
    expect(lib.functions.find((f) => f.name === 'slurm_load_job')!.answer).toBe('plugstack');
    expect(lib.functions.find((f) => f.name === 'slurm_get_errno')!.answer).toBe('plugstack');
  });

  it('says which library a plugin linked with -lslurm is missing', async () => {
    const dir = tempDir();
    // A stand-in libslurm the plugin is linked against, gone at load time.
    const libdir = path.join(dir, 'lib');
    fs.mkdirSync(libdir);
    const stub = writeFile(dir, 'stub.c', 'int slurm_stub_fn(void) { return 0; }\n');
    execFileSync('cc', ['-shared', '-fPIC', '-Wl,-soname,libslurm.so.97', '-o', path.join(libdir, 'libslurm.so'), stub]);
    const plugin = path.join(dir, 'linked.so');
    execFileSync('cc', ['-shared', '-fPIC', `-I${includeDir}`, '-o', plugin, path.join(fixturesDir, 'libslurm_probe.c'), '-Wl,--no-as-needed', `-L${libdir}`, '-lslurm']);
    fs.rmSync(libdir, { recursive: true });
    const conf = writeFile(dir, 'plugstack.conf', `required ${plugin}\n`);
    const stack = await Plugstack.load(conf, { pluginDir: [] });
    const report = await stack.check({ context: 'remote' });
    expect(report.ok).toBe(false);
    const p = report.contexts[0]!.plugins[0]!;
    expect(p.loaded).toBe(false);
    expect(p.libslurm!.missing).toEqual(['libslurm.so.97']);
    const problem = report.contexts[0]!.problems.find((x) => x.code === 'PLUGIN_DLOPEN_FAILED')!;
    expect(problem.message).toMatch(/the library libslurm\.so\.97 \(Slurm's client library: the plugin was linked with -lslurm\) it is linked with is not installed here/);
  });
});
