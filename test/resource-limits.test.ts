/**
 * Resource limits as Slurm's processes have them: slurmd raises its core,
 * CPU and open-files soft limits to their hard ones after slurmd_init, and
 * slurmstepd and the job prolog inherit them; srun and sbatch send their
 * own soft limits (SLURM_RLIMIT_<NAME>, after init_post_opt), and
 * slurmstepd applies them to each task right before its execve, removing
 * the variables. The runs start from a core limit of 0 under an unlimited
 * hard one, so that "raised" and "propagated" differ.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compilePlugin, repoRoot, tempDir, writeFile } from './helpers/plugins.js';

const RELEASES = ['22.05', '24.11'] as const;
const asRoot = process.getuid!() === 0;

interface Run {
  exitCode: number;
  stdout: string;
  stderr: string;
  lines: Map<string, string[]>;
}

/** plugstack's srun or sbatch from a shell whose core limit is 0 (hard: none), as JSON, with the probe's lines by callback. */
function run(release: string, dir: string, args: string[], slurmConf?: string): Run {
  const out = path.join(dir, `probe-${Math.random().toString(36).slice(2)}.txt`);
  const plugin = compilePlugin('limits_probe.c', release === '22.05' ? { defines: { SLURM_VERSION_NUMBER: '0x160508' } } : {});
  const conf = writeFile(dir, `plugstack-${path.basename(out)}.conf`, `required ${plugin} log=${out} lower=7\n`);
  const cli = [process.execPath, path.join(repoRoot, 'bin', 'plugstack.cjs'), ...args.slice(0, 1), '--json', '--slurm-version', release, '--conf', conf];
  if (slurmConf) cli.push('--slurm-conf', slurmConf);
  cli.push(...args.slice(1));
  const quoted = cli.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const r = spawnSync('/bin/sh', ['-c', `ulimit -Hc unlimited && ulimit -Sc 0 && exec ${quoted}`], { cwd: dir, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: dir } });
  const result = JSON.parse(r.stdout) as { exitCode: number; stdout: string; stderr: string };
  const lines = new Map<string, string[]>();
  for (const line of fs.existsSync(out) ? fs.readFileSync(out, 'utf8').split('\n').filter(Boolean) : []) {
    const [cb, ...rest] = line.split(' ');
    lines.set(cb!, [...(lines.get(cb!) ?? []), rest.join(' ').replace(/^ctx=\d+ /, '').replace(/ pid=\d+$/, '')]);
  }
  return { ...result, lines };
}

/** The task's core limits and its SLURM_RLIMIT_ variables, as the task prints them. */
const TASK = ['sh', '-c', 'grep "core file" /proc/self/limits | tr -s " "; env | grep ^SLURM_RLIMIT_ | sort || true'];

describe.each(RELEASES)('resource limits, Slurm %s', (release) => {
  it.skipIf(!asRoot)(
    "srun: slurmstepd's callbacks see slurmd's raised core limit, the task srun's own (0, sent as SLURM_RLIMIT_CORE=0 after init_post_opt), without the variables; a limit task_init_privileged sets does not reach the task",
    () => {
      const dir = tempDir();
      const r = run(release, dir, ['run', '-n', '1', ...TASK]);
      expect(r.exitCode, r.stderr).toBe(0);
      // srun: the variable exists from _set_rlimit_env on, after init_post_opt.
      expect(r.lines.get('init')![0]).toMatch(/^core=0\/inf .* env=-$/);
      expect(r.lines.get('init_post_opt')![0]).toMatch(/ env=-$/);
      expect(r.lines.get('local_user_init')![0]).toMatch(/^core=0\/inf .* env=0$/);
      // slurmd's children: soft raised to hard.
      expect(r.lines.get('user_init')![0]).toMatch(/^core=inf\/inf .* env=0$/);
      // The job prolog's environment is slurmd's making: no variable.
      expect(r.lines.get('job_prolog')![0]).toMatch(/^core=inf\/inf .* env=-$/);
      // The plugin lowered its own core limit to 7 in task_init_privileged; set_user_limits then sets srun's.
      expect(r.lines.get('task_init_privileged')![0]).toMatch(/^core=7\/inf .* env=0$/);
      expect(r.lines.get('task_init')![0]).toMatch(/^core=7\/inf .* env=0$/);
      expect(r.stdout.split('\n').filter(Boolean).map((l) => l.trim())).toEqual(['Max core file size 0 unlimited bytes']);
    },
  );

  it.skipIf(!asRoot)('PropagateResourceLimits=NONE: no variable, and the task keeps what slurmstepd has (the limit task_init_privileged set)', () => {
    const dir = tempDir();
    const slurmConf = writeFile(dir, 'slurm.conf', 'ClusterName=limits\nPropagateResourceLimits=NONE\n');
    const r = run(release, dir, ['run', '-n', '1', ...TASK], slurmConf);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.lines.get('local_user_init')![0]).toMatch(/ env=-$/);
    expect(r.lines.get('user_init')![0]).toMatch(/^core=inf\/inf .* env=-$/);
    expect(r.stdout.split('\n').filter(Boolean).map((l) => l.trim())).toEqual(['Max core file size 7 unlimited bytes']);
  });

  it.skipIf(!asRoot)('PropagateResourceLimitsExcept=CORE: every variable but the core one; the task gets the others', () => {
    const dir = tempDir();
    const slurmConf = writeFile(dir, 'slurm.conf', 'ClusterName=limits\nPropagateResourceLimitsExcept=CORE\n');
    const r = run(release, dir, ['run', '-n', '1', 'sh', '-c', 'env | grep -c ^SLURM_RLIMIT_ || true'], slurmConf);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.lines.get('user_init')![0]).toMatch(/ env=-$/);
    expect(r.stdout.trim()).toBe('0');
  });

  it.skipIf(!asRoot)('--propagate=RLIMIT_CORE: only that variable, marked U (the user asked); a name Slurm does not know ends srun', () => {
    const dir = tempDir();
    const r = run(release, dir, ['run', '-n', '1', '--propagate=RLIMIT_CORE', ...TASK]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.lines.get('local_user_init')![0]).toMatch(/ env=U0$/);
    expect(r.stdout.split('\n').filter(Boolean).map((l) => l.trim())).toEqual(['Max core file size 0 unlimited bytes']);
    const bad = run(release, dir, ['run', '-n', '1', '--propagate=core', 'true']);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toBe('srun: error: Bad rlimit name: core\nsrun: error: --propagate=core is not valid.\n');
    expect(bad.lines.has('local_user_init')).toBe(false);
  });

  it.skipIf(!asRoot)("sbatch sends its limits too; the batch script runs with sbatch's", () => {
    const dir = tempDir();
    const r = run(release, dir, ['batch', '-W', '--wrap', 'grep "core file" /proc/self/limits | tr -s " "; env | grep -c ^SLURM_RLIMIT_ || true', '-o', path.join(dir, 'out.txt')]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.lines.get('user_init')![0]).toMatch(/^core=inf\/inf .* env=0$/);
    expect(fs.readFileSync(path.join(dir, 'out.txt'), 'utf8').split('\n').filter(Boolean).map((l) => l.trim())).toEqual(['Max core file size 0 unlimited bytes', '0']);
  });

  it('a PropagateResourceLimits naming no limit Slurm knows fails slurm.conf, with its line', () => {
    const dir = tempDir();
    const slurmConf = writeFile(dir, 'slurm.conf', 'ClusterName=limits\nPropagateResourceLimits=CORE,all\n');
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'plugstack.cjs'), 'check', '--json', '--slurm-version', release, '--slurm-conf', slurmConf, writeFile(dir, 'p.conf', '')], { encoding: 'utf8' });
    expect(r.stdout).toMatch(/"code": ?"SLURM_CONF_BAD_VALUE"/);
    expect(r.stdout).toContain('Bad rlimit name: all');
    expect(r.stdout).toMatch(/"line": ?2/);
  });
});
