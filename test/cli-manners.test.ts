/**
 * The plugstack command's manners: --help on every command, --version,
 * one-line usage errors (exit 2) while srun's own errors stay srun's, a
 * closed pipe ends output quietly, --json and --timeline wherever a command
 * has a result, and check/help of a plugin or of something that is not a
 * plugstack.conf.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CheckReport } from '../lib/check/types.js';
import type { CommandResult } from '../lib/commands/types.js';
import type { JobScriptResult } from '../lib/daemon/types.js';
import { compilePlugin, repoRoot, tempDir, writeFile } from './helpers/plugins.js';

const bin = path.join(repoRoot, 'bin', 'plugstack.cjs');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function scratch(): string {
  const d = tempDir();
  dirs.push(d);
  return d;
}

function plugstack(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const env = { ...process.env, ...options.env };
  for (const k of Object.keys(env)) if (k.startsWith('SLURM_') || k.startsWith('PLUGSTACK_')) delete env[k];
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env, cwd: options.cwd ?? scratch() });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The example plugin in a PluginDir of its own, with its plugstack.conf. */
function example(): { dir: string; so: string; conf: string; stack: string[] } {
  const built = compilePlugin(path.join('..', '..', '..', 'examples', 'hello', 'hello.c'));
  const dir = scratch();
  const so = path.join(dir, 'hello.so');
  fs.copyFileSync(built, so);
  const conf = writeFile(dir, 'plugstack.conf', `required ${so}\n`);
  return { dir, so, conf, stack: ['--conf', conf, '--plugin-dir', dir] };
}

const version = (JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

describe('help and version', () => {
  it('--version and -V print the package version', () => {
    for (const flag of ['--version', '-V']) {
      const r = plugstack([flag]);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(`plugstack ${version}\n`);
    }
  });

  it.each(['check', 'help', 'cc', 'prolog', 'epilog'])('%s --help prints its usage and exits 0', (cmd) => {
    const r = plugstack([cmd, '--help']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(new RegExp(`^usage: plugstack ${cmd} `));
    expect(plugstack([cmd, '-h']).stdout).toBe(r.stdout);
  });

  it.each([
    ['run', 'srun'],
    ['batch', 'sbatch'],
    ['alloc', 'salloc'],
  ])('%s --help prints %s’s usage, the plugins’ options, then plugstack’s own', (cmd, slurm) => {
    const { stack } = example();
    const r = plugstack([cmd, ...stack, '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Usage: ${slurm} `));
    expect(r.stdout).toContain('--greeting=TEXT');
    expect(r.stdout).toContain(`plugstack ${cmd}: ${slurm} through plugstack. Its own options come before ${slurm}'s:`);
    expect(r.stdout.indexOf('--timeline FILE.svg')).toBeGreaterThan(r.stdout.indexOf('Options provided by plugins:'));
  });

  it('plugstack --help lists every command; no arguments is a usage error on stderr', () => {
    const r = plugstack(['--help']);
    expect(r.status).toBe(0);
    for (const cmd of ['run', 'batch', 'alloc', 'prolog', 'epilog', 'check', 'help', 'cc']) expect(r.stdout).toMatch(new RegExp(`^  ${cmd} `, 'm'));
    const none = plugstack([]);
    expect(none.status).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe(r.stdout);
  });
});

describe('usage errors', () => {
  it.each([
    [['frobnicate'], 'plugstack: unknown command "frobnicate"\nTry "plugstack --help"\n'],
    [['--frobnicate'], 'plugstack: unknown option --frobnicate\nTry "plugstack --help"\n'],
    [['check', 'x.conf', '--bogus'], 'plugstack check: unknown option --bogus\nTry "plugstack check --help"\n'],
    [['check', 'a', 'b'], 'plugstack check: check takes exactly one plugstack.conf or plugin\nTry "plugstack check --help"\n'],
    [['help', 'x.conf', '--command', 'scancel'], 'plugstack help: --command must be srun, sbatch or salloc\nTry "plugstack help --help"\n'],
    [['cc', '--slurm-version', '23.02', 'x.c'], 'plugstack cc: --slurm-version must be one of 24.11, 22.05, not "23.02"\nTry "plugstack cc --help"\n'],
    [['prolog', '--job-id', 'seven'], 'plugstack prolog: --job-id needs a non-negative integer, not "seven"\nTry "plugstack prolog --help"\n'],
    [['run', '--conf'], 'plugstack run: option --conf needs a value\nTry "plugstack run --help"\n'],
  ])('%j is one line and a pointer to --help, exit 2', (args, stderr) => {
    const r = plugstack(args);
    expect(r.stderr).toBe(stderr);
    expect(r.stdout).toBe('');
    expect(r.status).toBe(2);
  });

  it('a bad value of one of plugstack’s own options is a usage error; srun’s own are srun’s', () => {
    const { conf, stack } = example();
    const bad = plugstack(['check', conf, '--slurm-version', '9.1']);
    expect(bad.status).toBe(2);
    expect(bad.stderr.split('\n')).toHaveLength(3);
    expect(bad.stderr).toMatch(/^plugstack check: .*9\.1.*\nTry "plugstack check --help"\n$/);
    const srun = plugstack(['run', ...stack, '--no-such-option', 'true']);
    expect(srun.status).toBe(255);
    expect(srun.stderr).toContain('srun: unrecognized option \'--no-such-option\'\nTry "srun --help" for more information\n');
    expect(srun.stderr).not.toContain('plugstack run --help');
  });
});

describe('check and help of what is not a plugstack.conf', () => {
  it('checks a plugin as a one-line stack, and says so', () => {
    const { so } = example();
    const r = plugstack(['check', so, '--json']);
    expect(r.stderr).toBe(`plugstack: ${so} is a plugin: checking it as the one-line stack "required ${so}"\n`);
    const report = JSON.parse(r.stdout) as CheckReport;
    expect(report.contexts).toHaveLength(5);
    expect(report.contexts[0]!.plugins).toMatchObject([{ path: so, required: true, loaded: true, name: 'hello' }]);
    expect(r.status).toBe(0);
    const text = plugstack(['check', so]);
    expect(text.stdout).toMatch(/^\(one-line stack\): as Slurm 24\.11\.5 would load it/);
    expect(text.stdout).toContain(`(one-line stack):1  required ${so}`);
    const help = plugstack(['help', so]);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--greeting=TEXT');
  });

  it('a plugin Slurm would refuse fails the check (exit 1)', () => {
    const so = compilePlugin('variant.c', { defines: { VERSION: 0x160508 } });
    const r = plugstack(['check', so]);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('PLUGIN_VERSION_MISMATCH');
  });

  it('a directory, an executable, an object file or another binary is a usage error (exit 2)', () => {
    const dir = scratch();
    const exe = path.join(dir, 'prog');
    const obj = path.join(dir, 'prog.o');
    const src = writeFile(dir, 'prog.c', 'int main(void) { return 0; }\n');
    spawnSync('cc', ['-o', exe, src]);
    spawnSync('cc', ['-c', '-o', obj, src]);
    const blob = path.join(dir, 'blob.bin');
    fs.writeFileSync(blob, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13]));
    const cases: [string, RegExp][] = [
      [dir, /is a directory/],
      [exe, /is an ELF executable/],
      [obj, /is an ELF object file/],
      [blob, /is a binary file/],
    ];
    for (const [file, message] of cases) {
      const r = plugstack(['check', file]);
      expect(r.stderr, file).toMatch(message);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(2);
      expect(r.stdout).toBe('');
      expect(r.status, file).toBe(2);
    }
  });
});

describe('a closed pipe', () => {
  it('ends the output quietly: no EPIPE trace, the command’s own status', async () => {
    const { conf } = example();
    const child = spawn(process.execPath, [bin, 'check', conf, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    // The reader goes away before anything is written.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    expect(stderr).toBe('');
    expect(status).toBe(0);
  });

  it('as with `plugstack check … | head -1`', () => {
    const { conf } = example();
    const r = spawnSync('sh', ['-c', `"${process.execPath}" "${bin}" check "${conf}" | head -1`], { encoding: 'utf8' });
    expect(r.stdout).toBe(`${conf}: as Slurm 24.11.5 would load it (PluginDir /usr/local/lib/slurm)\n`);
    expect(r.stderr).toBe('');
  });
});

describe('--json and --timeline', () => {
  it('run prints the result as JSON instead of its output, and draws the timeline', () => {
    const { stack } = example();
    const dir = scratch();
    const svg = path.join(dir, 'run.svg');
    const r = plugstack(['run', ...stack, '--json', '--timeline', svg, '-N', '2', '-n', '3', '--greeting=hej', 'printenv', 'HELLO_GREETING']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const result = JSON.parse(r.stdout) as CommandResult;
    expect(result.exitCode).toBe(0);
    expect(result.stdout.split('\n').filter(Boolean)).toEqual(['hej', 'hej', 'hej']);
    expect(result.steps[0]!.tasks.map((t) => t.stdout)).toEqual(['hej\n', 'hej\n', 'hej\n']);
    // Output bytes are left out; their text is there.
    expect(r.stdout).not.toContain('stdoutBytes');
    const text = fs.readFileSync(svg, 'utf8');
    expect(text).toMatch(/^<svg /);
    expect(text.match(/class="lane /g)).toHaveLength(1 + 2 + 3);
  });

  it.each([
    ['batch', ['--wrap', 'srun -n 2 true']],
    ['alloc', ['srun', '-n', '2', 'true']],
  ])('%s takes --json and --timeline', (cmd, words) => {
    const { stack } = example();
    const dir = scratch();
    const svg = path.join(dir, `${cmd}.svg`);
    const r = plugstack([cmd, ...stack, '--json', '--timeline', svg, ...words], { cwd: dir });
    expect(r.stderr).toBe('');
    const result = JSON.parse(r.stdout) as CommandResult;
    expect(result.command).toBe(cmd === 'batch' ? 'sbatch' : 'salloc');
    expect(result.exitCode).toBe(0);
    expect(r.status).toBe(0);
    const text = fs.readFileSync(svg, 'utf8');
    expect(text).toContain('data-kind="client"');
    expect(text).toContain('data-kind="task"');
  });

  it.each(['prolog', 'epilog'] as const)('%s takes --json and --timeline', (mode) => {
    const dir = scratch();
    const so = compilePlugin('job_script_probe.c');
    const conf = writeFile(dir, 'plugstack.conf', `required ${so} log=${path.join(dir, 'probe.log')}\n`);
    const svg = path.join(dir, `${mode}.svg`);
    const r = plugstack([mode, '--conf', conf, '--job-id', '7', '--json', '--timeline', svg]);
    const result = JSON.parse(r.stdout) as JobScriptResult;
    expect(result).toMatchObject({ mode, jobId: 7, ok: true, status: 0 });
    expect(r.status).toBe(0);
    const text = fs.readFileSync(svg, 'utf8');
    expect(text).toContain(`data-kind="${mode}"`);
    expect(text).toContain(`data-hook="slurm_spank_job_${mode}"`);
  });

  it('help --json carries the block', () => {
    const { conf } = example();
    const r = plugstack(['help', conf, '--json', '--command', 'sbatch']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ conf, command: 'sbatch', text: expect.stringContaining('--greeting=TEXT') });
  });
});
