/**
 * plugstack run / batch / alloc as a user types them: srun, sbatch and
 * salloc on the bundled example plugin, with their output, their exit
 * statuses and the stack chosen by --conf, --plugin-dir and --slurm-version.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compilePlugin, repoRoot, tempDir, writeFile } from './helpers/plugins.js';

const bin = path.join(repoRoot, 'bin', 'plugstack.cjs');

/** The example plugin, compiled as `plugstack cc` would, in a PluginDir of its own. */
function exampleStack(): { dir: string; stack: string[] } {
  const so = compilePlugin(path.join('..', '..', '..', 'examples', 'hello', 'hello.c'));
  const dir = tempDir();
  fs.copyFileSync(so, path.join(dir, 'hello.so'));
  const conf = writeFile(dir, 'plugstack.conf', fs.readFileSync(path.join(repoRoot, 'examples', 'hello', 'plugstack.conf'), 'utf8'));
  return { dir, stack: ['--conf', conf, '--plugin-dir', dir] };
}

function plugstack(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const env = { ...process.env, ...options.env };
  // A job inside this test run must not find the test's own job.
  for (const k of Object.keys(env)) if (k.startsWith('SLURM_') || k.startsWith('PLUGSTACK_')) delete env[k];
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env, cwd: options.cwd ?? tempDir() });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('plugstack run (srun)', () => {
  it('runs the example: the option in the local and remote contexts, labelled task output, exit 0', () => {
    const { stack } = exampleStack();
    const r = plugstack(['run', ...stack, '-n', '3', '-l', '--greeting=hej', 'printenv', 'HELLO_GREETING']);
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(['0: hej', '1: hej', '2: hej']);
    expect(r.stderr).toMatch(/^srun: hello: launching step \d+\.0 with greeting "hej"\n$/);
  });

  it('leaves a "--" to srun, whose options it ends (srun -- -prog runs -prog)', () => {
    const dir = tempDir();
    writeFile(dir, '-prog', '#!/bin/sh\necho dashprog $*\n');
    fs.chmodSync(path.join(dir, '-prog'), 0o755);
    const r = plugstack(['run', '--conf', writeFile(dir, 'plugstack.conf', ''), '-n', '1', '--', '-prog', 'a'], { cwd: dir, env: { PATH: `${dir}:/usr/bin:/bin` } });
    expect([r.status, r.stdout, r.stderr]).toEqual([0, 'dashprog a\n', '']);
  });

  it('exits with the worst task’s status and prints srun’s error line', () => {
    const { stack } = exampleStack();
    const r = plugstack(['run', ...stack, '-n', '2', 'sh', '-c', 'exit $((SLURM_PROCID + 4))']);
    expect(r.status).toBe(5);
    expect(r.stderr).toContain('srun: error: node0: task 0: Exited with exit code 4\n');
    expect(r.stderr).toContain('srun: error: node0: task 1: Exited with exit code 5\n');
  });

  it('--help prints srun’s usage and the plugin block; a failing option callback is srun’s error, 255', () => {
    const { stack } = exampleStack();
    const help = plugstack(['run', ...stack, '--help'], { env: { COLUMNS: '80' } });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: srun /);
    expect(help.stdout).toContain('  -n, --ntasks=N ');
    expect(help.stdout).toContain(
      '\nOptions provided by plugins:\n      --greeting=TEXT         Greeting exported to every task as HELLO_GREETING.\n',
    );
    const bad = plugstack(['run', ...stack, '--greeting=', 'true']);
    expect(bad.status).toBe(255);
    expect(bad.stderr).toContain('srun: error: hello: --greeting needs a text\n');
    expect(bad.stderr).toContain('srun: error: Invalid --greeting argument: \n');
    const unknown = plugstack(['run', ...stack, '--no-such-option', 'true']);
    expect(unknown.status).toBe(255);
    expect(unknown.stderr).toContain('srun: unrecognized option \'--no-such-option\'\nTry "srun --help" for more information\n');
  });

  it('takes the stack from PLUGSTACK_CONF and PLUGSTACK_PLUGIN_DIR; --slurm-version chooses the release', () => {
    const { dir } = exampleStack();
    const env = { PLUGSTACK_CONF: path.join(dir, 'plugstack.conf'), PLUGSTACK_PLUGIN_DIR: dir };
    const r = spawnSync(process.execPath, [bin, 'run', 'printenv', 'HELLO_GREETING'], { encoding: 'utf8', env: { ...process.env, ...env } });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('bonjour\n');
    // The example is built for 24.11: a 22.05 srun refuses it, as Slurm does.
    const v = plugstack(['run', '--conf', env.PLUGSTACK_CONF, '--plugin-dir', dir, '--slurm-version', '22.05', 'true']);
    expect(v.status).toBe(1);
    expect(v.stderr).toContain(`srun: plugin_peek: Incompatible Slurm plugin ${dir}/hello.so version (24.11.5)\n`);
    expect(v.stderr).toContain('srun: error: Plug-in initialization failed\n');
    const bad = plugstack(['run', '--conf', env.PLUGSTACK_CONF, '--slurm-version', '9.1', 'true']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('9.1');
  });
});

describe('plugstack batch (sbatch)', () => {
  it('submits, runs the batch job with the inner srun, and writes slurm-<job>.out in the working directory', () => {
    const { stack } = exampleStack();
    const cwd = tempDir();
    const r = plugstack(['batch', ...stack, '--greeting=hey', '--wrap', 'srun -n 2 -l printenv HELLO_GREETING; echo job $SLURM_JOB_ID'], { cwd });
    expect(r.status).toBe(0);
    const job = /^Submitted batch job (\d+)\n$/.exec(r.stdout)![1];
    const out = fs.readFileSync(path.join(cwd, `slurm-${job}.out`), 'utf8');
    // The inner srun picks --greeting up from SLURM_SPANK__SLURM_SPANK_OPTION_hello_greeting.
    expect(out).toContain(`srun: hello: launching step ${job}.0 with greeting "hey"\n`);
    expect(out.split('\n').filter((l) => /^\d: /.test(l)).sort()).toEqual(['0: hey', '1: hey']);
    expect(out).toContain(`job ${job}\n`);
  });

  it('a script that does not exist: sbatch’s error, exit 1', () => {
    const { stack } = exampleStack();
    const r = plugstack(['batch', ...stack, 'missing.sh']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('sbatch: error: Unable to open file missing.sh\n');
  });
});

describe('plugstack alloc (salloc)', () => {
  it('grants an allocation, runs the command in it with an srun, relinquishes, exits with the command’s status', () => {
    const { stack } = exampleStack();
    const r = plugstack(['alloc', ...stack, '-n', '2', '--greeting=salut', 'sh', '-c', 'srun -l printenv HELLO_GREETING; exit 7']);
    expect(r.status).toBe(7);
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(['0: salut', '1: salut']);
    const job = /^salloc: Granted job allocation (\d+)\n/.exec(r.stderr)![1];
    expect(r.stderr).toContain(`srun: hello: launching step ${job}.0 with greeting "salut"\n`);
    expect(r.stderr.endsWith(`salloc: Relinquishing job allocation ${job}\n`)).toBe(true);
  });
});
