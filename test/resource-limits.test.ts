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

/** plugstack's srun or sbatch from a shell whose core limit is 0 (hard: none) and locked memory 512 KiB (hard: 1 MiB), as JSON, with the probe's lines by callback@context. */
function run(release: string, dir: string, args: string[], slurmConf?: string, probeArgs: string[] = [], env: Record<string, string> = {}): Run {
  const out = path.join(dir, `probe-${Math.random().toString(36).slice(2)}.txt`);
  const plugin = compilePlugin('limits_probe.c', release === '22.05' ? { defines: { SLURM_VERSION_NUMBER: '0x160508' } } : {});
  const conf = writeFile(dir, `plugstack-${path.basename(out)}.conf`, `required ${plugin} log=${out} lower=7 ${probeArgs.join(' ')}\n`);
  const cli = [process.execPath, path.join(repoRoot, 'bin', 'plugstack.cjs'), ...args.slice(0, 1), '--json', '--slurm-version', release, '--conf', conf];
  if (slurmConf) cli.push('--slurm-conf', slurmConf);
  cli.push(...args.slice(1));
  const quoted = cli.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const r = spawnSync('/bin/sh', ['-c', `ulimit -Hc unlimited && ulimit -Sc 0 && ulimit -Sl 512 && ulimit -Hl 1024 && exec ${quoted}`], { cwd: dir, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: dir, ...env } });
  const result = JSON.parse(r.stdout) as { exitCode: number; stdout: string; stderr: string };
  const lines = new Map<string, string[]>();
  for (const line of fs.existsSync(out) ? fs.readFileSync(out, 'utf8').split('\n').filter(Boolean) : []) {
    const m = /^(\S+) ctx=(\d) (.*) pid=\d+$/.exec(line)!;
    const key = `${m[1]}@${m[2]}`;
    lines.set(key, [...(lines.get(key) ?? []), m[3]!]);
  }
  return { ...result, lines };
}

/** The task's core limits and its SLURM_RLIMIT_ variables, as the task prints them. */
const TASK = ['sh', '-c', 'grep "core file" /proc/self/limits | tr -s " "; env | grep ^SLURM_RLIMIT_ | sort || true'];

// Contexts: 1 local (srun), 2 remote (slurmstepd and its task children), 3 allocator (sbatch), 5 job_script.
describe.each(RELEASES)('resource limits, Slurm %s', (release) => {
  it.skipIf(!asRoot)(
    "srun: slurmstepd's callbacks see slurmd's raised core limit, the task srun's own (0, sent as SLURM_RLIMIT_CORE=0 after init_post_opt), without the variables; a limit task_init_privileged sets does not reach the task",
    () => {
      const dir = tempDir();
      const r = run(release, dir, ['run', '-n', '1', ...TASK]);
      expect(r.exitCode, r.stderr).toBe(0);
      // srun: the variables exist from _set_rlimit_env on, after init_post_opt.
      expect(r.lines.get('init@1')![0]).toMatch(/^core=0\/inf .* env=- vars=0$/);
      expect(r.lines.get('init_post_opt@1')![0]).toMatch(/ env=- vars=0$/);
      expect(r.lines.get('local_user_init@1')![0]).toMatch(/^core=0\/inf .* env=0 vars=10$/);
      // slurmd's children: soft raised to hard.
      expect(r.lines.get('user_init@2')![0]).toMatch(/^core=inf\/inf .* env=0 vars=10$/);
      // The job prolog's environment is slurmd's making: no variable.
      expect(r.lines.get('job_prolog@5')![0]).toMatch(/^core=inf\/inf .* env=- vars=0$/);
      // The plugin lowered its own core limit to 7 in task_init_privileged; set_user_limits then sets srun's.
      expect(r.lines.get('task_init_privileged@2')![0]).toMatch(/^core=7\/inf .* env=0 vars=10$/);
      expect(r.lines.get('task_init@2')![0]).toMatch(/^core=7\/inf .* env=0 vars=10$/);
      expect(r.stdout.split('\n').filter(Boolean).map((l) => l.trim())).toEqual(['Max core file size 0 unlimited bytes']);
    },
  );

  it.skipIf(!asRoot)('PropagateResourceLimits=NONE: no variable, and the task keeps what slurmstepd has (the limit task_init_privileged set)', () => {
    const dir = tempDir();
    const slurmConf = writeFile(dir, 'slurm.conf', 'ClusterName=limits\nPropagateResourceLimits=NONE\n');
    const r = run(release, dir, ['run', '-n', '1', ...TASK], slurmConf);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.lines.get('local_user_init@1')![0]).toMatch(/ env=- vars=0$/);
    expect(r.lines.get('user_init@2')![0]).toMatch(/^core=inf\/inf .* env=- vars=0$/);
    expect(r.stdout.split('\n').filter(Boolean).map((l) => l.trim())).toEqual(['Max core file size 7 unlimited bytes']);
    // A variable the node does not propagate still leaves the task's environment, unapplied.
    const set = run(release, dir, ['run', '-n', '1', ...TASK], slurmConf, ['setenv=SLURM_RLIMIT_CORE:0']);
    expect(set.lines.get('user_init@2')![0]).toMatch(/ env=0 vars=1$/);
    expect(set.stdout.split('\n').filter(Boolean).map((l) => l.trim())).toEqual(['Max core file size 7 unlimited bytes']);
  });

  it.skipIf(!asRoot)('PropagateResourceLimitsExcept=CORE (which wins over PropagateResourceLimits): the nine others are sent; the task keeps its core limit', () => {
    const dir = tempDir();
    const slurmConf = writeFile(dir, 'slurm.conf', 'ClusterName=limits\nPropagateResourceLimits=NONE\nPropagateResourceLimitsExcept=CORE\n');
    const r = run(release, dir, ['run', '-n', '1', 'sh', '-c', 'grep "core file" /proc/self/limits | tr -s " "; env | grep -c ^SLURM_RLIMIT_ || true'], slurmConf);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.lines.get('local_user_init@1')![0]).toMatch(/ env=- vars=9$/);
    expect(r.lines.get('user_init@2')![0]).toMatch(/ env=- vars=9$/);
    expect(r.stdout.split('\n').filter(Boolean).map((l) => l.trim())).toEqual(['Max core file size 7 unlimited bytes', '0']);
  });

  it.skipIf(!asRoot)('--propagate=RLIMIT_CORE: only that variable, marked U (the user asked); a bare --propagate sends all; a name Slurm does not know ends srun', () => {
    const dir = tempDir();
    const r = run(release, dir, ['run', '-n', '1', '--propagate=RLIMIT_CORE', ...TASK]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.lines.get('local_user_init@1')![0]).toMatch(/ env=U0 vars=1$/);
    expect(r.stdout.split('\n').filter(Boolean).map((l) => l.trim())).toEqual(['Max core file size 0 unlimited bytes']);
    const all = run(release, dir, ['run', '-n', '1', '--propagate', 'true']);
    expect(all.lines.get('local_user_init@1')![0]).toMatch(/ env=U0 vars=10$/);
    const none = run(release, dir, ['run', '-n', '1', '--propagate=NONE', 'true']);
    expect(none.lines.get('local_user_init@1')![0]).toMatch(/ env=- vars=0$/);
    // Slurm strips one RLIMIT_ for each name it compares: CPU is behind it by then.
    for (const [value, name] of [['core', 'core'], ['RLIMIT_RLIMIT_CPU', 'CPU']]) {
      const bad = run(release, dir, ['run', '-n', '1', `--propagate=${value}`, 'true']);
      expect(bad.exitCode).toBe(1);
      expect(bad.stderr).toBe(`srun: error: Bad rlimit name: ${name}\nsrun: error: --propagate=${value} is not valid.\n`);
      expect(bad.lines.has('local_user_init@1')).toBe(false);
    }
    // exit(error_exit): SLURM_EXIT_ERROR sets it.
    expect(run(release, dir, ['run', '-n', '1', '--propagate=core', 'true'], undefined, [], { SLURM_EXIT_ERROR: '7' }).exitCode).toBe(7);
    expect(run(release, dir, ['batch', '--propagate=core', '--wrap', 'true'], undefined, [], { SLURM_EXIT_ERROR: '7' }).exitCode).toBe(7);
  });

  it.skipIf(!asRoot)("slurmstepd keeps a malformed value in the task's environment, refuses a user's value above the hard limit, lowers another one to it", () => {
    const dir = tempDir();
    const huge = '1099511627776';
    const r = run(release, dir, ['run', '-n', '1', 'sh', '-c', 'env | grep ^SLURM_RLIMIT_ || true; grep "open files" /proc/self/limits | tr -s " "'], undefined, [
      'setenv=SLURM_RLIMIT_FSIZE:12x',
      `setenv=SLURM_RLIMIT_NOFILE:U${huge}`,
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain("slurmstepd: error: Invalid SLURM_RLIMIT_FSIZE env var, value = `12x'\n");
    expect(r.stderr).toContain(`slurmstepd: error: Can't propagate RLIMIT_NOFILE of ${huge} from submit host: Invalid argument\n`);
    expect(r.stdout.split('\n').filter(Boolean)[0]).toBe('SLURM_RLIMIT_FSIZE=12x');
    // Not the user's: lowered to the hard limit (1 MiB), quietly.
    const clamped = run(release, dir, ['run', '-n', '1', 'sh', '-c', 'grep "locked memory" /proc/self/limits | tr -s " "'], undefined, [`setenv=SLURM_RLIMIT_MEMLOCK:${huge}`]);
    expect(clamped.exitCode, clamped.stderr).toBe(0);
    expect(clamped.stderr).not.toContain('RLIMIT_MEMLOCK');
    expect(clamped.stdout.trim()).toBe('Max locked memory 1048576 1048576 bytes');
    // srun's own otherwise.
    const own = run(release, dir, ['run', '-n', '1', 'sh', '-c', 'grep "locked memory" /proc/self/limits | tr -s " "']);
    expect(own.stdout.trim()).toBe('Max locked memory 524288 1048576 bytes');
  });

  it.skipIf(!asRoot)("sbatch sends its limits too, and the batch script runs with them; with --get-user-env, every limit, unmarked, from the login's", () => {
    const dir = tempDir();
    const script = 'grep "core file" /proc/self/limits | tr -s " "; env | grep -c ^SLURM_RLIMIT_ || true';
    const r = run(release, dir, ['batch', '-W', '--wrap', script, '-o', path.join(dir, 'out.txt')]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.lines.get('init_post_opt@3')![0]).toMatch(/ env=- vars=0$/);
    expect(r.lines.get('user_init@2')![0]).toMatch(/^core=inf\/inf .* env=0 vars=10$/);
    expect(fs.readFileSync(path.join(dir, 'out.txt'), 'utf8').split('\n').filter(Boolean).map((l) => l.trim())).toEqual(['Max core file size 0 unlimited bytes', '0']);
    const login = run(release, dir, ['batch', '-W', '--get-user-env', '--propagate=CORE', '--wrap', script, '-o', path.join(dir, 'login.txt')]);
    expect(login.exitCode, login.stderr).toBe(0);
    expect(login.lines.get('user_init@2')![0]).toMatch(/ env=0 vars=10$/);
    expect(fs.readFileSync(path.join(dir, 'login.txt'), 'utf8').split('\n').filter(Boolean).map((l) => l.trim())).toEqual(['Max core file size 0 unlimited bytes', '0']);
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
