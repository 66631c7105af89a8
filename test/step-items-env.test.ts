/**
 * Items and environments in the remote context (spank-facts §2e, §2h,
 * §3.10; real-slurm-22.05.md §2 "Items" and "Environment").
 */
import { describe, expect, it } from 'vitest';
import { recordStep } from './helpers/step.js';

function byCallback(lines: { callback: string; fields: Record<string, string> }[], cb: string) {
  const line = lines.find((l) => l.callback === cb);
  expect(line, cb).toBeDefined();
  return line!.fields;
}

describe('items in each remote callback', () => {
  it('match Slurm’s table: task items only with a task, the pid only in the parent, the exit status only in task_exit', async () => {
    const { lines } = await recordStep(['items'], { ntasks: 2, jobId: 42, stepId: 3, argv: ['sh', '-c', 'exit 5'] });
    const uid = String(process.getuid!());
    for (const cb of ['init', 'init_post_opt', 'user_init', 'exit']) {
      const f = byCallback(lines, cb);
      expect([f.S_JOB_UID, f.S_JOB_ID, f.S_JOB_STEPID, f.S_JOB_NNODES, f.S_JOB_NODEID], cb).toEqual([
        `0:${uid}`, '0:42', '0:3', '0:1', '0:0',
      ]);
      expect([f.S_JOB_LOCAL_TASK_COUNT, f.S_JOB_TOTAL_TASK_COUNT, f.S_JOB_ARGV, f.S_JOB_ENV], cb).toEqual(['0:2', '0:2', '0:3', '0']);
      expect([f.S_TASK_ID, f.S_TASK_GLOBAL_ID, f.S_TASK_EXIT_STATUS, f.S_TASK_PID], cb).toEqual(['3002:-1', '3002:77', '3002:0', '3002:0']);
    }
    const priv = byCallback(lines, 'task_init_privileged');
    const init = byCallback(lines, 'task_init');
    for (const f of [priv, init]) {
      expect(f.S_TASK_PID).toBe('0:-1');
      expect(f.S_TASK_EXIT_STATUS).toBe('3002:0');
      expect(f.S_JOB_PID_TO_GLOBAL_ID).toBe('3008');
    }
    const post = byCallback(lines, 'task_post_fork');
    expect([post.S_TASK_ID, post.S_TASK_GLOBAL_ID, post.S_TASK_PID, post.S_TASK_EXIT_STATUS]).toEqual(['0:0', '0:0', '0:other', '3002:0']);
    // The stepd's own pid is no task of the step.
    expect(post.S_JOB_PID_TO_GLOBAL_ID).toBe('3007');
    const exit = lines.filter((l) => l.callback === 'task_exit').map((l) => l.fields);
    expect(exit.map((f) => f.S_TASK_EXIT_STATUS).sort()).toEqual(['0:1280', '0:1280']);
    expect(byCallback(lines, 'user_init').S_JOB_PID_TO_GLOBAL_ID).toBe('3008');
    expect(byCallback(lines, 'exit').S_JOB_PID_TO_GLOBAL_ID).toBe('3007');
    expect(byCallback(lines, 'init').S_JOB_LOCAL_TO_GLOBAL_ID).toBe('0:0');
    expect(byCallback(lines, 'init').S_JOB_GLOBAL_TO_LOCAL_ID).toBe('0:0');
    expect(byCallback(lines, 'init').S_SLURM_VERSION).toBe('0:24.11.5');
    expect(byCallback(lines, 'init').S_SLURM_RESTART_COUNT).toBe('0:0');
    expect(byCallback(lines, 'init').S_JOB_ARRAY_ID).toBe('0:42');
    expect(byCallback(lines, 'init').S_JOB_ARRAY_TASK_ID).toBe('0:4294967294');
  });

  it('reports the emulated release in 22.05 mode', async () => {
    const { lines } = await recordStep(['items'], {}, { slurmVersion: '22.05' });
    expect(byCallback(lines, 'user_init').S_SLURM_VERSION).toBe('0:22.05.8');
  });
});

describe('the job environment', () => {
  it('changes before fork reach every task; changes in a task child reach that task only', async () => {
    const { result, lines } = await recordStep(
      [
        'setenv=user_init:FROM_USER_INIT=u',
        'setenv=task_init_privileged:SLURM_PROCID=99',
        'setenv=task_init:FROM_TASK_INIT=t',
        'getenv=FROM_TASK_INIT',
      ],
      { ntasks: 2, argv: ['sh', '-c', 'echo $FROM_USER_INIT $FROM_TASK_INIT $SLURM_PROCID'] },
    );
    expect(result.tasks.map((t) => t.stdout)).toEqual(['u t 0\n', 'u t 1\n']);
    // The stepd never saw the task child's change.
    expect(lines.filter((l) => l.callback === 'task_exit').map((l) => l.fields['env.FROM_TASK_INIT'])).toEqual([
      'ERR3004',
      'ERR3004',
    ]);
    expect(result.env.filter((e) => e.op === 'set').map((e) => [e.hook, e.name, e.value, e.rc])).toContainEqual([
      'slurm_spank_user_init',
      'FROM_USER_INIT',
      'u',
      0,
    ]);
  });

  it('a value set in task_init is final, even over slurmstepd’s own variables', async () => {
    const { result } = await recordStep(['setenv=task_init:SLURM_PROCID=99'], { argv: ['sh', '-c', 'echo $SLURM_PROCID'] });
    expect(result.tasks[0]!.stdout).toBe('99\n');
  });

  it('gives each task slurmstepd’s variables and the launcher’s; TMPDIR only to local task 0', async () => {
    const { result } = await recordStep([], {
      nodes: 1,
      ntasks: 2,
      jobId: 3,
      argv: ['env'],
      env: { PATH: '/usr/bin:/bin', USER_VAR: 'kept' },
    });
    const envOf = (i: number) =>
      Object.fromEntries(result.tasks[i]!.stdout.trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    const t0 = envOf(0);
    const t1 = envOf(1);
    expect(t0).toMatchObject({
      USER_VAR: 'kept',
      SLURMD_NODENAME: 'node0',
      SLURM_CPUS_ON_NODE: '2',
      SLURM_GTIDS: '0,1',
      SLURM_JOBID: '3',
      SLURM_JOB_ID: '3',
      SLURM_JOB_GID: String(process.getgid!()),
      SLURM_JOB_UID: String(process.getuid!()),
      SLURM_JOB_NODELIST: 'node0',
      SLURM_JOB_NUM_NODES: '1',
      SLURM_LOCALID: '0',
      SLURM_NNODES: '1',
      SLURM_NODEID: '0',
      SLURM_NODELIST: 'node0',
      SLURM_NPROCS: '2',
      SLURM_NTASKS: '2',
      SLURM_PROCID: '0',
      SLURM_STEPID: '0',
      SLURM_STEP_ID: '0',
      SLURM_STEP_NODELIST: 'node0',
      SLURM_STEP_NUM_NODES: '1',
      SLURM_STEP_NUM_TASKS: '2',
      SLURM_STEP_TASKS_PER_NODE: '2',
      SLURM_TASKS_PER_NODE: '2',
      SLURM_TASK_PID: String(result.tasks[0]!.pid),
      SLURM_TOPOLOGY_ADDR: 'node0',
      SLURM_TOPOLOGY_ADDR_PATTERN: 'node',
      SLURM_OOM_KILL_STEP: '0',
      TMPDIR: '/tmp',
    });
    expect(t0.SLURM_JOB_USER).toBeTruthy();
    expect(t1.TMPDIR).toBeUndefined();
    expect(t1.SLURM_PROCID).toBe('1');
    expect(t1.SLURM_LOCALID).toBe('1');
    // 22.05 has no SLURM_OOM_KILL_STEP.
    const old = await recordStep([], { argv: ['env'] }, { slurmVersion: '22.05' });
    expect(old.result.tasks[0]!.stdout).not.toContain('SLURM_OOM_KILL_STEP');
  });

  it('does not set the step id for a batch step (special ids are negative as ints)', async () => {
    const { result } = await recordStep([], { stepId: 0xfffffffb, argv: ['env'] });
    expect(result.tasks[0]!.stdout).not.toMatch(/^SLURM_STEP_?ID=/m);
  });

  it('spank_getenv, setenv and unsetenv follow Slurm’s codes', async () => {
    const { lines } = await recordStep(['setenv=init:A=1', 'unsetenv=init_post_opt:A', 'getenv=A'], {});
    expect(byCallback(lines, 'init').setenv).toBe('0');
    expect(byCallback(lines, 'init')['env.A']).toBe('ERR3004');
    expect(byCallback(lines, 'init_post_opt')['env.A']).toBe('1');
    expect(byCallback(lines, 'init_post_opt').unsetenv).toBe('0');
    expect(byCallback(lines, 'user_init')['env.A']).toBe('ERR3004');
  });
});

describe('options forwarded to the remote side', () => {
  it('24.11: the callback runs once (launch list), after all inits, before init_post_opt; the variables never reach tasks', async () => {
    const { result, lines } = await recordStep(['option=color'], {
      argv: ['env'],
      spankOptions: [{ plugin: 'recorder', name: 'color', value: 'blue green' }],
      env: { PATH: '/usr/bin:/bin', SLURM_SPANK__SLURM_SPANK_OPTION_recorder_color: 'x' },
    });
    expect(lines.map((l) => l.callback)).toEqual(expect.arrayContaining(['init', 'option', 'init_post_opt']));
    const order = lines.filter((l) => ['init', 'option', 'init_post_opt'].includes(l.callback)).map((l) => l.callback);
    expect(order).toEqual(['init', 'option', 'init_post_opt']);
    expect(lines.find((l) => l.callback === 'option')!.raw).toBe('option name=color val=0 optarg=blue green remote=1 ctx=2');
    expect(result.tasks[0]!.stdout).not.toMatch(/^_SLURM_SPANK_OPTION_/m);
    // What sbatch exports for the batch job is not the remote channel: it stays.
    expect(result.tasks[0]!.stdout).toContain('SLURM_SPANK__SLURM_SPANK_OPTION_recorder_color=x');
  });

  it('22.05: the callback runs a second time from the environment', async () => {
    const { lines } = await recordStep(
      ['option=color'],
      { spankOptions: [{ plugin: 'recorder', name: 'color', value: 'blue' }] },
      { slurmVersion: '22.05' },
    );
    expect(lines.filter((l) => l.callback === 'option').map((l) => l.fields.optarg)).toEqual(['blue', 'blue']);
  });

  it('an option the remote stack does not know is logged and skipped', async () => {
    const { result } = await recordStep([], { spankOptions: [{ plugin: 'other', name: 'thing', value: '1' }] });
    expect(result.ok).toBe(true);
    expect(result.log.map((l) => l.message)).toContain('SPANK plugin "other" option "thing" not found');
  });
});
