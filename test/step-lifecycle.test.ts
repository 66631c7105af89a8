/**
 * The remote context as slurmstepd runs it (spank-facts §3): the order of
 * the callbacks in each process, the task handle, what runs before and
 * after fork, exit statuses, argv prepending and several nodes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { leftBehind } from './helpers/processes.js';
import { compilePlugin, tempDir, writeFile } from './helpers/plugins.js';
import { callbacks, recordStep } from './helpers/step.js';

describe('callback order, per process', () => {
  it('runs init, init_post_opt, user_init, task_post_fork for each task, task_exit per reaped task, then exit in the stepd', async () => {
    const { result, lines } = await recordStep([], { ntasks: 3, argv: ['true'] });
    expect(result.ok).toBe(true);
    const stepd = lines[0]!.fields.pid!;
    const parent = lines.filter((l) => l.fields.pid === stepd);
    expect(parent.map((l) => l.callback)).toEqual([
      'init',
      'init_post_opt',
      'user_init',
      'task_post_fork',
      'task_post_fork',
      'task_post_fork',
      'task_exit',
      'task_exit',
      'task_exit',
      'exit',
    ]);
    expect(parent.filter((l) => l.callback === 'task_post_fork').map((l) => l.fields.task)).toEqual(['0', '1', '2']);
    expect(parent.filter((l) => l.callback === 'task_exit').map((l) => l.fields.task).sort()).toEqual(['0', '1', '2']);
    // Each task child: task_init_privileged, then task_init, then exec.
    const children = [...new Set(lines.filter((l) => l.fields.pid !== stepd).map((l) => l.fields.pid!))];
    expect(children).toHaveLength(3);
    for (const pid of children) {
      const own = lines.filter((l) => l.fields.pid === pid);
      expect(own.map((l) => l.callback)).toEqual(['task_init_privileged', 'task_init']);
      expect(own.every((l) => l.fields.ppid === stepd)).toBe(true);
      expect(own[0]!.fields.task).toBe(own[1]!.fields.task);
    }
    expect(lines.every((l) => l.fields.ctx === '2' && l.fields.remote === '1')).toBe(true);
    // The result lists the same calls with process role and task.
    const calls = result.calls.filter((c) => c.hook.startsWith('slurm_spank_'));
    expect(calls.filter((c) => c.role === 'task').map((c) => c.hook).sort()).toEqual([
      ...Array(3).fill('slurm_spank_task_init'),
      ...Array(3).fill('slurm_spank_task_init_privileged'),
    ]);
    expect(calls.every((c) => c.context === 'remote' && c.node === 0 && c.rc === 0)).toBe(true);
  });

  it('calls task_post_fork only after every task is forked, with the task pid; the child sees -1', async () => {
    const { lines } = await recordStep([], { ntasks: 2 });
    const postFork = lines.filter((l) => l.callback === 'task_post_fork');
    expect(postFork.map((l) => l.fields.tpid)).toEqual(['child', 'child']);
    expect(lines.filter((l) => l.callback.startsWith('task_init')).every((l) => l.fields.tpid === '-1')).toBe(true);
    const exits = lines.filter((l) => l.callback === 'task_exit');
    expect(exits.every((l) => l.fields.tpid === 'child')).toBe(true);
  });
});

describe('tasks', () => {
  it('are real processes of the command, with their output and raw wait statuses', async () => {
    const { result, lines } = await recordStep([], {
      ntasks: 3,
      argv: ['sh', '-c', 'echo out $SLURM_PROCID; echo err $SLURM_PROCID >&2; [ $SLURM_PROCID = 2 ] && kill -9 $$; exit $SLURM_PROCID'],
    });
    expect(result.tasks.map((t) => [t.task, t.stdout, t.stderr])).toEqual([
      [0, 'out 0\n', 'err 0\n'],
      [1, 'out 1\n', 'err 1\n'],
      [2, 'out 2\n', 'err 2\n'],
    ]);
    expect(result.tasks.map((t) => [t.status, t.exitCode, t.signal])).toEqual([
      [0, 0, null],
      [256, 1, null],
      [9, null, 'SIGKILL'],
    ]);
    // task_exit sees the raw status through S_TASK_EXIT_STATUS.
    const seen = Object.fromEntries(lines.filter((l) => l.callback === 'task_exit').map((l) => [l.fields.task, l.fields.status]));
    expect(seen).toEqual({ '0': '0', '1': '256', '2': '9' });
    expect(result.ok).toBe(false);
    expect(result.exitCode).toBe(9);
  });

  it('exit 3 is status 768, as in slurmstepd', async () => {
    const { result } = await recordStep([], { argv: ['sh', '-c', 'exit 3'] });
    expect(result.tasks[0]!.status).toBe(768);
    expect(result.exitCode).toBe(768);
    expect(result.nodes[0]!.stepRc).toBe(768);
  });

  it('an execve failure exits with errno and Slurm’s message', async () => {
    const { result } = await recordStep([], { argv: ['/nonexistent/command', 'x'] });
    expect(result.tasks[0]!.status).toBe(2 << 8);
    expect(result.log.map((l) => l.message)).toContain('execve(): /nonexistent/command: No such file or directory');
    const notInPath = await recordStep([], { argv: ['no-such-command-anywhere'] });
    expect(notInPath.result.tasks[0]!.exitCode).toBe(2);
    expect(notInPath.result.log.map((l) => l.message)).toContain(
      'execve(): no-such-command-anywhere: No such file or directory',
    );
  });

  it('resolves argv[0] along the task’s PATH, after task_init', async () => {
    const { result } = await recordStep(['setenv=task_init:PATH=/usr/bin'], { argv: ['env'] });
    expect(result.tasks[0]!.exec).toBe('/usr/bin/env');
  });

  it('spank_prepend_task_argv puts words in front of the task’s command; S_JOB_ARGV is unchanged', async () => {
    const { result, lines } = await recordStep(['prepend=task_init:/usr/bin/env', 'items'], { argv: ['printf', '%s', 'x'] });
    expect(lines.find((l) => l.callback === 'task_init')!.fields.prepend).toBe('0');
    expect(result.tasks[0]!.argv).toEqual(['/usr/bin/env', 'printf', '%s', 'x']);
    expect(result.tasks[0]!.exec).toBe('/usr/bin/env');
    expect(result.tasks[0]!.stdout).toBe('x');
    expect(lines.find((l) => l.callback === 'task_init')!.fields.S_JOB_ARGV).toBe('0:3');
    // Outside the two task-child callbacks: NOT_TASK.
    const post = await recordStep(['prepend=task_post_fork:/bin/true', 'prepend=user_init:/bin/true']);
    expect(post.lines.find((l) => l.callback === 'task_post_fork')!.fields.prepend).toBe('3002');
    expect(post.lines.find((l) => l.callback === 'user_init')!.fields.prepend).toBe('3002');
  });
});

describe('signals across the fork', () => {
  // The fixture handles SIGUSR1 and SIGRTMIN+5, ignores SIGHUP and blocks
  // SIGURG in user_init, and reports in task_init_privileged; the task prints its
  // own /proc/self/status. Expected: what a real 22.05 and 24.11 did with
  // the same plugin.
  const run = async (slurmVersion: '22.05' | '24.11') => {
    const dir = tempDir();
    const out = path.join(dir, 'signals.txt');
    const so = compilePlugin('signal_state.c', slurmVersion === '22.05' ? { defines: { SLURM_VERSION_NUMBER: 0x160508 } } : {});
    const conf = writeFile(dir, 'plugstack.conf', `required ${so} out=${out}\n`);
    const stack = await Plugstack.load(conf, { pluginDir: [], slurmVersion });
    const result = await stack.launchStep({ argv: ['cat', '/proc/self/status'], ntasks: 3, env: { PATH: '/usr/bin:/bin' }, cwd: dir });
    expect(result.ok).toBe(true);
    const children = fs.readFileSync(out, 'utf8').trim().split('\n').sort();
    const tasks = result.tasks.map((t) => ['SigIgn', 'SigCgt', 'SigBlk'].map((name) => new RegExp(`^${name}:\\s*(\\S+)`, 'm').exec(t.stdout)?.[1]));
    return { children, tasks };
  };
  // SIGRTMIN+5: glibc's SIGRTMIN is 34 on Linux (after its own two).
  const RTMIN_5 = 34 + 5;

  it("22.05: task_init_privileged keeps slurmstepd's blocked signals and the plugin's handlers; the task starts with each at its default, none blocked", async () => {
    const { children, tasks } = await run('22.05');
    expect(children).toEqual([0, 1, 2].map((t) => `task=${t} changed=1,10,${RTMIN_5} blocked=10`));
    for (const t of tasks) expect(t).toEqual(['0000000000000000', '0000000000000000', '0000000000000000']);
  });

  it("24.11: slurmstepd's handlers and the plugin's stay through task_init_privileged; the task keeps SIGHUP ignored and SIGURG blocked", async () => {
    const { children, tasks } = await run('24.11');
    expect(children).toEqual([0, 1, 2].map((t) => `task=${t} changed=1,2,3,10,12,13,14,15,20,21,${RTMIN_5} blocked=1`));
    for (const t of tasks) expect(t).toEqual(['0000000000000001', '0000000000000000', '0000000000400000']);
  });
});

  it('a plugin that ignores SIGCHLD (the kernel reaps the tasks): 24.11 stops waiting once no child is left, 22.05 waits until the step is ended', async () => {
    const step = async (slurmVersion: '22.05' | '24.11') => {
      const dir = tempDir();
      const so = compilePlugin('sigchld_ignore.c', slurmVersion === '22.05' ? { defines: { SLURM_VERSION_NUMBER: 0x160508 } } : {});
      const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', `required ${so}\n`), { pluginDir: [], slurmVersion });
      return stack.launchStep({ argv: ['true'], ntasks: 2, env: { PATH: '/usr/bin:/bin' }, cwd: dir, timeoutMs: 1500 });
    };
    const late = await step('24.11');
    expect(late.log.map((l) => l.message)).toContain('_wait_for_all_tasks: No child processes. node_tasks:2, expected:2, reaped:0');
    expect(late.problems).toEqual([]);
    expect(late.tasks.map((t) => t.status ?? null)).toEqual([null, null]);
    const early = await step('22.05');
    expect(early.problems.map((p) => p.code)).toEqual(['STEP_TIMEOUT']);
    expect(await leftBehind()).toEqual([]);
  });

  it("a task epilog runs with slurmstepd's signals: what it blocks and what a plugin ignored there", async () => {
    for (const [slurmVersion, blocked] of [['22.05', '0000000000487a07'], ['24.11', '0000000000400000']] as const) {
      const dir = tempDir();
      const out = path.join(dir, 'epilog.txt');
      const epilog = writeFile(dir, 'epilog.sh', `#!/bin/sh\ngrep -E '^Sig(Blk|Ign)' /proc/self/status | tr '\\n' ' ' >> ${out}\n`);
      fs.chmodSync(epilog, 0o755);
      const so = compilePlugin('signal_state.c', slurmVersion === '22.05' ? { defines: { SLURM_VERSION_NUMBER: 0x160508 } } : {});
      const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', `required ${so} out=${path.join(dir, 'state.txt')}\n`), { pluginDir: [], slurmVersion });
      const r = await stack.launchStep({ argv: ['true'], ntasks: 1, env: { PATH: '/usr/bin:/bin' }, cwd: dir, taskEpilog: epilog });
      expect(r.ok, slurmVersion).toBe(true);
      // As a real 22.05 and 24.11 ran srun --task-epilog with this plugin.
      expect(fs.readFileSync(out, 'utf8').replace(/\s+/g, ' ').trim(), slurmVersion).toBe(`SigBlk: ${blocked} SigIgn: 0000000000000001`);
    }
  });

  it("a plugin's SIGCHLD handler runs in slurmstepd, which never blocks SIGCHLD", async () => {
    for (const slurmVersion of ['22.05', '24.11'] as const) {
      const dir = tempDir();
      const out = path.join(dir, 'sigchld.txt');
      const so = compilePlugin('sigchld_handler.c', slurmVersion === '22.05' ? { defines: { SLURM_VERSION_NUMBER: 0x160508 } } : {});
      const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', `required ${so} out=${out}\n`), { pluginDir: [], slurmVersion });
      const result = await stack.launchStep({ argv: ['true'], ntasks: 2, env: { PATH: '/usr/bin:/bin' }, cwd: dir });
      expect(result.ok, slurmVersion).toBe(true);
      expect(fs.readFileSync(out, 'utf8'), slurmVersion).toBe('handler=yes\n');
    }
  });

describe('several nodes', () => {
  it('runs one stepd per node with Slurm’s block distribution and consistent global ids', async () => {
    const { result, lines } = await recordStep(['items'], {
      nodes: 2,
      ntasks: 5,
      argv: ['sh', '-c', 'echo $SLURM_NODEID $SLURM_PROCID $SLURM_LOCALID $SLURM_GTIDS $SLURMD_NODENAME $SLURM_STEP_NODELIST $SLURM_STEP_TASKS_PER_NODE'],
    });
    expect(result.ok).toBe(true);
    expect(result.tasks.map((t) => t.stdout.trim())).toEqual([
      '0 0 0 0,1,2 node0 node[0-1] 3,2',
      '0 1 1 0,1,2 node0 node[0-1] 3,2',
      '0 2 2 0,1,2 node0 node[0-1] 3,2',
      '1 3 0 3,4 node1 node[0-1] 3,2',
      '1 4 1 3,4 node1 node[0-1] 3,2',
    ]);
    expect(result.nodes.map((n) => n.name)).toEqual(['node0', 'node1']);
    const inits = lines.filter((l) => l.callback === 'init');
    expect(inits.map((l) => [l.fields.S_JOB_NODEID, l.fields.S_JOB_LOCAL_TASK_COUNT, l.fields.S_JOB_NNODES, l.fields.S_JOB_TOTAL_TASK_COUNT]).sort()).toEqual([
      ['0:0', '0:3', '0:2', '0:5'],
      ['0:1', '0:2', '0:2', '0:5'],
    ]);
    const node1Exits = lines.filter((l) => l.callback === 'task_exit' && l.fields.S_JOB_NODEID === '0:1');
    expect(node1Exits.map((l) => l.fields.gtid).sort()).toEqual(['3', '4']);
  });
});
