/**
 * The plugstack command as a user runs it: output, --json, exit codes
 * (0 ok, 1 Slurm would fail, 2 usage), and `plugstack cc`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckReport } from '../lib/check/types.js';
import { compilePlugin, fixturesDir, repoRoot, tempDir, writeFile } from './helpers/plugins.js';

const bin = path.join(repoRoot, 'bin', 'plugstack.cjs');

function plugstack(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the two entry points', () => {
  it('bin/plugstack.js, the ES module, runs the same command line as the bin', () => {
    const viaModule = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'plugstack.js'), '--version'], { encoding: 'utf8' });
    const viaBin = plugstack(['--version']);
    expect(viaModule.status).toBe(0);
    expect(viaModule.stdout).toMatch(/^plugstack \d+\.\d+\.\d+/);
    expect(viaModule.stdout).toBe(viaBin.stdout);
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(path.resolve(repoRoot, pkg.bin.plugstack!)).toBe(bin);
  });
});

describe('plugstack check', () => {
  it('exits 0 and reports every context for a stack Slurm would load', () => {
    const so = compilePlugin('options_probe.c', { defines: { ONLY_MAIN: true } });
    const conf = writeFile(tempDir(), 'plugstack.conf', `required ${so}\nbogus line\n`);
    const r = plugstack(['check', conf, '--plugin-dir', '/nonexistent']);
    expect(r.status).toBe(0);
    for (const c of ["local", "remote", "allocator", "slurmd", "job_script"]) expect(r.stdout).toMatch(new RegExp(`^  ${c} +ok`, "m"));
    expect(r.stdout).toContain('CONFIG_INVALID_LINE');
    expect(r.stdout).toContain('--static-opt=path');
    expect(r.stdout).toMatch(/result: Slurm 24\.11\.5 would load this stack/);
  });

  it('exits 1 when a required plugin would not load, with --json carrying the same report as the API', () => {
    const so = compilePlugin('variant.c', { defines: { VERSION: 0x160508 } });
    const conf = writeFile(tempDir(), 'plugstack.conf', `required ${so}\n`);
    const r = plugstack(['check', conf, '--json', '--context', 'remote']);
    expect(r.status).toBe(1);
    const report = JSON.parse(r.stdout) as CheckReport;
    expect(report.ok).toBe(false);
    expect(report.contexts.map((c) => c.context)).toEqual(['remote']);
    expect(report.contexts[0]!.problems[0]).toMatchObject({ code: 'PLUGIN_VERSION_MISMATCH', severity: 'error', line: 1 });
    // The same plugin is fine when 22.05 is emulated.
    expect(plugstack(['check', conf, '--slurm-version', '22.05']).status).toBe(0);
  });

  it('exits 2 for usage errors and for a named config that does not exist', () => {
    expect(plugstack([]).status).toBe(2);
    expect(plugstack(['frobnicate']).status).toBe(2);
    const missing = plugstack(['check', '/nonexistent/plugstack.conf']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('/nonexistent/plugstack.conf: no such file');
    const conf = writeFile(tempDir(), 'plugstack.conf', '');
    expect(plugstack(['check', conf, '--context', 'nowhere']).status).toBe(2);
    expect(plugstack(['check', conf, '--slurm-version', '23.02']).status).toBe(2);
    expect(plugstack(['check', conf, '--bogus']).status).toBe(2);
    expect(plugstack(['--help']).status).toBe(0);
  });

  it('reports a crashing plugin and still exits normally (1)', () => {
    const so = compilePlugin('variant.c', { defines: { INIT_CRASH: true } });
    const conf = writeFile(tempDir(), 'plugstack.conf', `optional ${so}\n`);
    const r = plugstack(['check', conf, '--context', 'local']);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('PLUGIN_CRASHED');
    expect(r.stdout).toContain('killed by SIGSEGV');
  });
});

describe('plugstack help', () => {
  it('prints the plugin block of srun --help, and of sbatch with --command', () => {
    const so = compilePlugin('options_probe.c', { defines: { ONLY_MAIN: true } });
    const conf = writeFile(tempDir(), 'plugstack.conf', `required ${so}\n`);
    const srun = plugstack(['help', conf], { COLUMNS: '80' });
    expect(srun.status).toBe(0);
    expect(srun.stdout).toBe(
      '\nOptions provided by plugins:\n' +
        '      --static-opt=path       An option from the static table of options_probe.\n' +
        '      --reg-opt=[level]       A registered option with a usage text long enough\n' +
        `${' '.repeat(30)}to be wrapped over two lines.\n`,
    );
    const sbatch = plugstack(['help', conf, '--command', 'sbatch'], { COLUMNS: '80' });
    expect(sbatch.stdout).not.toContain('static-opt');
    expect(sbatch.stdout).toContain('--reg-opt');
  });

  it('exits 1 when srun would fail before printing help', () => {
    const so = compilePlugin('variant.c', { defines: { INIT_RC: -1 } });
    const conf = writeFile(tempDir(), 'plugstack.conf', `required ${so}\n`);
    const r = plugstack(['help', conf]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('slurm_spank_init');
  });
});

describe('plugstack cc', () => {
  it('compiles a plugin against the bundled headers and prints the command it ran', () => {
    const dir = tempDir();
    const out = path.join(dir, 'probe.so');
    const r = plugstack(['cc', path.join(fixturesDir, 'options_probe.c'), '-o', out]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^cc -shared -fPIC -I\S+\/include \S+options_probe\.c -o \S+probe\.so\n$/);
    expect(execFileSync('nm', ['-D', out], { encoding: 'utf8' })).toContain('slurm_spank_init');
    expect(fs.existsSync(out)).toBe(true);
  });

  it('passes the compiler’s failure through', () => {
    const dir = tempDir();
    const src = writeFile(dir, 'bad.c', 'this is not C\n');
    const r = plugstack(['cc', src, '-o', path.join(dir, 'bad.so')]);
    expect(r.status).not.toBe(0);
  });
});
