/**
 * Bad input, taken the way Slurm takes it (messages and statuses measured on
 * a real 22.05 here), and the input that would hurt plugstack itself: an
 * environment too large for execve, forks that fail, a uid without a gid,
 * a state directory someone else could write into, a --conf that does not
 * exist. Each ends with a clear result; none crashes Node.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { repoRoot, tempDir, writeFile } from './helpers/plugins.js';
import { leftBehind } from './helpers/processes.js';

const cli = path.join(repoRoot, 'bin', 'plugstack.cjs');
const isRoot = process.getuid?.() === 0;

async function emptyStack(options: { slurmVersion?: string } = {}) {
  const dir = tempDir();
  const conf = writeFile(dir, 'plugstack.conf', '');
  return { dir, stack: await Plugstack.load(conf, { pluginDir: [], ...options }) };
}

describe('numbers srun, sbatch and salloc refuse', () => {
  for (const command of ['srun', 'sbatch', 'salloc'] as const) {
    const tail = command === 'sbatch' ? ['--wrap', 'true'] : ['true'];
    for (const [args, message, status] of [
      [['-n', '0'], 'error: Invalid numeric value "0" for --ntasks.', 1],
      [['-n', '-1'], 'error: Invalid numeric value "-1" for --ntasks.', 1],
      [['-n', 'abc'], 'error: Invalid numeric value "abc" for --ntasks.', 1],
      [['-c', '0'], 'error: Invalid numeric value "0" for --cpus-per-task.', 1],
      [['-N', 'abc'], 'error: "abc" is not a valid node count', 255],
      [['-t', 'abc'], 'error: Invalid --time specification', 255],
    ] as [string[], string, number][]) {
      it(`${command} ${args.join(' ')}: "${message}", exit ${status}`, async () => {
        const { dir, stack } = await emptyStack();
        const r = await stack[command]({ args: [...args, ...tail], cwd: dir });
        expect(r.stderr).toBe(`${command}: ${message}\n`);
        expect(r.exitCode).toBe(status);
        expect(r.job).toBeUndefined();
      });
    }
  }

  it('more nodes than tasks: a warning (22.05: Warning:, 24.11: warning:) and the step runs on as many nodes as tasks', async () => {
    for (const [version, line] of [
      ['22.05', "srun: Warning: can't run 2 processes on 3 nodes, setting nnodes to 2\n"],
      ['24.11', "srun: warning: can't run 2 processes on 3 nodes, setting nnodes to 2\n"],
    ] as const) {
      const { dir, stack } = await emptyStack({ slurmVersion: version });
      const r = await stack.srun({ args: ['-N', '3', '-n', '2', 'echo', 'hi'], cwd: dir });
      expect(r.stderr).toBe(line);
      expect(r.stdout).toBe('hi\nhi\n');
      expect(r.exitCode).toBe(0);
      expect(r.steps[0]!.nodes.map((n) => n.name)).toEqual(['node0', 'node1']);
      expect(r.job!.nodes).toEqual(['node0', 'node1']);
    }
  });

  it('more tasks than a node may run: the step is refused as slurmctld refuses it', async () => {
    const { dir, stack } = await emptyStack();
    const r = await stack.srun({ args: ['-n', '1000000', 'true'], cwd: dir });
    expect(r.stderr).toMatch(/^srun: error: Unable to create step for job \d+: Task count specification invalid\n$/);
    expect(r.exitCode).toBe(1);
    await expect(stack.launchStep({ argv: ['true'], ntasks: 1_000_000 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('the CLI: every command refuses a --conf that does not exist', () => {
    for (const command of ['run', 'batch', 'alloc']) {
      const r = spawnSync(process.execPath, [cli, command, '--conf', '/nonexistent/plugstack.conf', 'true'], { encoding: 'utf8' });
      expect(r.status, command).toBe(2);
      expect(r.stderr).toBe(`plugstack ${command}: /nonexistent/plugstack.conf: no such file\nTry "plugstack ${command} --help"\n`);
    }
  });
});

describe("the status of a failing plugin stack: error_exit", () => {
  it('is 1, or what SLURM_EXIT_ERROR says, for srun, sbatch and salloc', async () => {
    const { recorder } = await import('./helpers/step.js');
    for (const [cb, context] of [
      ['init', 'local'],
      ['init_post_opt', 'local'],
      ['local_user_init', 'local'],
      ['init', 'allocator'],
      ['init_post_opt', 'allocator'],
    ] as const) {
      const dir = tempDir();
      const conf = writeFile(dir, 'plugstack.conf', `required ${recorder()} fail=${cb} context=${context}\n`);
      const stack = await Plugstack.load(conf, { pluginDir: [] });
      for (const command of context === 'local' ? (['srun'] as const) : (['sbatch', 'salloc'] as const)) {
        const tail = command === 'sbatch' ? ['--wrap', 'true'] : ['true'];
        const plain = await stack[command]({ args: tail, cwd: dir, env: { PATH: '/usr/bin:/bin' } });
        expect(plain.exitCode, `${command} ${cb}`).toBe(1);
        const set = await stack[command]({ args: tail, cwd: dir, env: { PATH: '/usr/bin:/bin', SLURM_EXIT_ERROR: '7' } });
        expect(set.exitCode, `${command} ${cb} SLURM_EXIT_ERROR=7`).toBe(7);
        const zero = await stack[command]({ args: tail, cwd: dir, env: { PATH: '/usr/bin:/bin', SLURM_EXIT_ERROR: '0' } });
        expect(zero.exitCode).toBe(1);
        expect(zero.stderr).toContain(`${command}: error: SLURM_EXIT_ERROR has zero value\n`);
      }
    }
  });
});

describe('input that would hurt plugstack', () => {
  it('an environment too large for execve: a problem and a failing status, not a crash', async () => {
    const { dir, stack } = await emptyStack();
    const r = await stack.srun({ args: ['true'], cwd: dir, env: { PATH: '/usr/bin:/bin', HUGE: 'x'.repeat(1 << 20) } });
    expect(r.exitCode).toBe(126);
    expect(r.client.problems).toContainEqual(expect.objectContaining({ code: 'ENVIRONMENT_TOO_LARGE', severity: 'error' }));
    expect(r.stderr).toContain('plugstack: error: ENVIRONMENT_TOO_LARGE');
    // The same environment given to a step reaches each task's execve,
    // which fails there as slurmstepd's would.
    const step = await stack.launchStep({ argv: ['true'], env: { PATH: '/usr/bin:/bin', HUGE: 'x'.repeat(200_000) } });
    expect(step.ok).toBe(false);
    expect(step.tasks[0]!.exitCode).toBe(7);
    expect(step.log.map((l) => l.message)).toContain('execve(): true: Argument list too long');
  });

  it.skipIf(!isRoot || !fs.existsSync('/sys/fs/cgroup/pids'))('forks that fail under a pids limit: FORK_FAILED and a step that is not ok', async () => {
    // A pids cgroup of our own, holding a Node process that runs the step.
    const cg = fs.mkdtempSync('/sys/fs/cgroup/pids/plugstack-test-');
    try {
      const dir = tempDir();
      const conf = writeFile(dir, 'plugstack.conf', '');
      const script = writeFile(
        dir,
        'step.mjs',
        `import { Plugstack } from ${JSON.stringify(path.join(repoRoot, 'dist', 'index.js'))};\n` +
          `const stack = await Plugstack.load(${JSON.stringify(conf)}, { pluginDir: [] });\n` +
          `const r = await stack.launchStep({ argv: ['sleep', '5'], ntasks: 60 });\n` +
          `process.stdout.write(JSON.stringify({ ok: r.ok, problems: r.problems.map((p) => p.code), nodes: r.nodes }));\n`,
      );
      // Room for Node's threads and the host, not for 60 tasks.
      fs.writeFileSync(path.join(cg, 'pids.max'), '40');
      const out = execFileSync('sh', ['-c', `echo $$ > ${cg}/cgroup.procs && exec "$0" "$1"`, process.execPath, script], { encoding: 'utf8' });
      const r = JSON.parse(out) as { ok: boolean; problems: string[]; nodes: { failedAt: string | null }[] };
      expect(r.ok).toBe(false);
      expect(r.problems).toContain('FORK_FAILED');
      expect(r.nodes[0]!.failedAt).toBe('fork');
    } finally {
      for (let i = 0; i < 50 && fs.readFileSync(path.join(cg, 'cgroup.procs'), 'utf8').trim(); i++) await new Promise((r) => setTimeout(r, 50));
      fs.rmdirSync(cg);
    }
  });

  it.skipIf(!isRoot)('a uid without a gid takes the user\'s primary group, never root\'s', async () => {
    const { stack } = await emptyStack();
    const nobody = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }));
    const group = Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' }));
    const step = await stack.launchStep({ argv: ['id', '-g'], uid: nobody, cwd: '/' });
    expect(step.tasks[0]!.stdout).toBe(`${group}\n`);
    await expect(stack.launchStep({ argv: ['true'], uid: 4_000_000_000 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

describe("plugstack's state directory", () => {
  /** Runs srun with TMPDIR pointing at a directory prepared by `prepare`. */
  async function srunWithState(prepare: (stateRoot: string) => void) {
    const tmp = tempDir();
    const root = path.join(tmp, `plugstack-${process.getuid!()}`);
    prepare(root);
    const saved = { TMPDIR: process.env.TMPDIR, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR };
    process.env.TMPDIR = tmp;
    delete process.env.XDG_RUNTIME_DIR;
    try {
      const { dir, stack } = await emptyStack();
      return await stack.srun({ args: ['true'], cwd: dir }).then(
        (r) => ({ ok: true as const, r, root }),
        (error: unknown) => ({ ok: false as const, error, root }),
      );
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }

  it('is created 0700 and used', async () => {
    const out = await srunWithState(() => {});
    expect(out.ok).toBe(true);
    expect(fs.statSync(out.root).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(out.root, 'jobs')).mode & 0o777).toBe(0o700);
  });

  it('one others can write into is refused, and the command leaves nothing running', async () => {
    const out = await srunWithState((root) => {
      fs.mkdirSync(root);
      fs.chmodSync(root, 0o777);
    });
    expect(out.ok).toBe(false);
    expect(out.ok ? undefined : out.error).toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringMatching(/mode 777/) });
    expect(await leftBehind()).toEqual([]);
  });

  it.skipIf(!isRoot)("one owned by someone else is refused", async () => {
    const out = await srunWithState((root) => {
      fs.mkdirSync(root, { mode: 0o700 });
      fs.chownSync(root, 65534, 65534);
    });
    expect(out.ok ? undefined : out.error).toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringMatching(/belongs to uid 65534/) });
  });

  it('a symbolic link is refused', async () => {
    const target = tempDir();
    const out = await srunWithState((root) => fs.symlinkSync(target, root));
    expect(out.ok ? undefined : out.error).toMatchObject({ code: 'PERMISSION_DENIED', message: expect.stringMatching(/symbolic link/) });
  });

  it("nothing on a job's PATH is writable by anyone else", async () => {
    const dir = tempDir();
    const conf = writeFile(dir, 'plugstack.conf', '');
    const stack = await Plugstack.load(conf, { pluginDir: [] });
    // The batch script reports the srun directory's and the srun's modes.
    const r = await stack.sbatch({
      args: ['--wrap', 'd=$(dirname "$(command -v srun)"); stat -c %a "$d" "$d/srun" "$(dirname "$d")"'],
      cwd: dir,
      env: { PATH: '/usr/bin:/bin' },
    });
    expect(r.output!.text).toBe('700\n700\n700\n');
    void os;
  });
});

describe('a plugstack.conf that does not exist', () => {
  it('is an empty stack, as for Slurm, and check warns', async () => {
    const dir = tempDir();
    const stack = await Plugstack.load(path.join(dir, 'nope.conf'), { pluginDir: [] });
    const report = await stack.check({ context: 'remote' });
    expect(report.ok).toBe(true);
    expect(report.missing).toBe(true);
    expect(report.contexts[0]!.problems).toMatchObject([{ severity: 'warning', code: 'CONFIG_MISSING' }]);
    expect((await stack.srun({ args: ['true'], cwd: dir })).exitCode).toBe(0);
  });
});
