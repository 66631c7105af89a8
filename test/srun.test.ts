/**
 * srun (spank-facts §2d, §2f, §2g): the local context in its own process,
 * options from the environment and the command line, forwarding to the
 * remote side, the job-control environment, exit statuses and messages.
 */
import path from 'node:path';
import { leftBehind, uniqueTag } from './helpers/processes.js';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { byProcess, contextOf, recordCommand } from './helpers/command.js';
import { tempDir, writeFile } from './helpers/plugins.js';
import { recorder } from './helpers/step.js';
import { inTerminal } from './helpers/terminal.js';

const LOCAL = 1;
const REMOTE = 2;

describe('srun: the local context', () => {
  it('runs init, the option callbacks, init_post_opt, local_user_init and exit in one process; the step remotely', async () => {
    const { result, lines } = await recordCommand('srun', ['option=color', 'getopt=color'], ['-n', '2', '--color=red', 'true'], {
      env: { SLURM_SPANK__SLURM_SPANK_OPTION_recorder_color: 'blue' },
    });
    expect(result.exitCode).toBe(0);
    const local = contextOf(lines, LOCAL);
    const srunPid = local[0]!.fields.pid!;
    expect(byProcess(local).get(srunPid)).toEqual(['init', 'init_post_opt', 'local_user_init', 'exit']);
    // Environment first, then the command line; each with remote=0.
    expect(lines.filter((l) => l.callback === 'option' && l.fields.remote === '0').map((l) => l.fields.optarg)).toEqual([
      'blue',
      'red',
    ]);
    const order = lines.map((l) => (l.callback === 'option' ? `option:${l.fields.remote}` : `${l.callback}:${l.fields.ctx}`));
    expect(order.indexOf('option:0')).toBeGreaterThan(order.indexOf('init:1'));
    expect(order.lastIndexOf('option:0')).toBeLessThan(order.indexOf('init_post_opt:1'));
    expect(result.client.optionCallbacks.map((o) => [o.name, o.value, o.source])).toEqual([
      ['color', 'blue', 'env'],
      ['color', 'red', 'argv'],
    ]);
    // Last value wins, and the remote side gets that one.
    expect(result.client.options).toEqual([{ plugin: 'recorder', name: 'color', value: 'red' }]);
    expect(lines.filter((l) => l.callback === 'option' && l.fields.remote === '1').map((l) => l.fields.optarg)).toEqual(['red']);
    // getopt: NOT_AVAIL in init, init_post_opt and exit; the value in local_user_init.
    const local1 = (cb: string) => local.find((l) => l.callback === cb)!.fields['getopt.color'];
    expect([local1('init'), local1('init_post_opt'), local1('local_user_init'), local1('exit')]).toEqual([
      'ERR3009',
      'ERR3009',
      'red',
      'ERR3009',
    ]);
    expect(contextOf(lines, REMOTE).find((l) => l.callback === 'user_init')!.fields['getopt.color']).toBe('red');
  });

  it('gives local_user_init the job: ids, task and node counts, argv, uid', async () => {
    const { result, lines } = await recordCommand('srun', ['items'], ['-N', '2', '-n', '3', 'echo', 'hi']);
    const lui = lines.find((l) => l.callback === 'local_user_init')!.fields;
    expect(lui.S_JOB_ID).toBe(`0:${result.job!.jobId}`);
    expect(lui.S_JOB_STEPID).toBe('0:0');
    expect(lui.S_JOB_NNODES).toBe('0:2');
    expect(lui.S_JOB_TOTAL_TASK_COUNT).toBe('0:3');
    expect(lui.S_JOB_ARGV).toBe('0:2');
    // 24.11 (the default) hands local_user_init SLURM_AUTH_NOBODY (99), not the caller's uid.
    expect(lui.S_JOB_UID).toBe('0:99');
    expect(lui.S_JOB_NODEID).toBe('3006:0');
    const init = lines.find((l) => l.callback === 'init' && l.fields.ctx === '1')!.fields;
    expect(init.S_JOB_ID).toBe('3009:0');
    expect(result.steps[0]!.tasks.map((t) => [t.task, t.node, t.stdout])).toEqual([
      [0, 0, 'hi\n'],
      [1, 0, 'hi\n'],
      [2, 1, 'hi\n'],
    ]);
  });

  it('handles flags, required and optional arguments as getopt_long does', async () => {
    const { result, lines } = await recordCommand(
      'srun',
      ['option=flag:0', 'option=need:1', 'option=maybe:2'],
      ['--flag', '--need', 'a value with spaces', '--maybe', '--need=x=y', '--maybe=ünï', 'true'],
    );
    expect(result.exitCode).toBe(0);
    expect(lines.filter((l) => l.callback === 'option' && l.fields.remote === '0').map((l) => l.raw.replace(/ ctx=.*/, ''))).toEqual([
      'option name=flag val=0 optarg=(null) remote=0',
      'option name=need val=1 optarg=a value with spaces remote=0',
      'option name=maybe val=2 optarg=(null) remote=0',
      'option name=need val=1 optarg=x=y remote=0',
      'option name=maybe val=2 optarg=ünï remote=0',
    ]);
    // Forwarded: the last value of each, and nothing for the flag's argument.
    expect(result.client.options).toEqual([
      { plugin: 'recorder', name: 'flag', value: null },
      { plugin: 'recorder', name: 'need', value: 'x=y' },
      { plugin: 'recorder', name: 'maybe', value: 'ünï' },
    ]);
    expect(lines.filter((l) => l.callback === 'option' && l.fields.remote === '1').map((l) => l.fields.optarg)).toEqual([
      '(null)',
      'x=y',
      'ünï',
    ]);
  });

  it('forwards options through the launch list and _SLURM_SPANK_OPTION_* (22.05 runs the callback twice)', async () => {
    const { result, lines } = await recordCommand('srun', ['option=color'], ['--color=green', 'env'], { slurmVersion: '22.05' });
    expect(lines.filter((l) => l.callback === 'option' && l.fields.remote === '1').map((l) => l.fields.optarg)).toEqual(['green', 'green']);
    expect(result.steps[0]!.tasks[0]!.stdout).not.toMatch(/^_SLURM_SPANK_OPTION_/m);
  });

  it('keeps the job-control environment with Slurm’s rules and seeds it from SLURM_SPANK_* like the next srun does', async () => {
    const { result, lines } = await recordCommand('srun', ['jcset=init_post_opt:TRACE=1', 'jcget=FROM_BATCH'], ['true'], {
      env: { SLURM_SPANK_FROM_BATCH: 'yes' },
    });
    expect(lines.find((l) => l.callback === 'init_post_opt' && l.fields.ctx === '1')!.fields.jcset).toBe('0');
    expect(lines.find((l) => l.callback === 'init' && l.fields.ctx === '1')!.fields['jc.FROM_BATCH']).toBe('yes');
    expect(result.client.jobControlEnv).toEqual({ FROM_BATCH: 'yes', TRACE: '1' });
    // Remote context: NOT_LOCAL.
    expect(lines.find((l) => l.callback === 'user_init')!.fields['jc.FROM_BATCH']).toBe('ERR3010');
  });
});

describe('srun: exit statuses and messages', () => {
  it('exits with the highest task exit code and says which tasks failed', async () => {
    const { result } = await recordCommand('srun', [], ['-n', '3', 'sh', '-c', 'exit $SLURM_PROCID']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe('srun: error: node0: task 1: Exited with exit code 1\nsrun: error: node0: task 2: Exited with exit code 2\n');
    expect(result.job).toMatchObject({ state: 'FAILED', exitCode: 512 });
  });

  it('exits 128 + the signal of a killed task', async () => {
    const { result } = await recordCommand('srun', [], ['-n', '2', 'sh', '-c', '[ $SLURM_PROCID = 1 ] && kill -9 $$; true']);
    expect(result.exitCode).toBe(137);
    // A task ended by SIGKILL or SIGTERM: srun adds "Force Terminated" at the end.
    expect(result.stderr).toBe(`srun: error: node0: task 1: Killed\nsrun: Force Terminated StepId=${result.job!.jobId}.0\n`);
    const other = await recordCommand('srun', [], ['sh', '-c', 'kill -INT $$']);
    expect(other.result.stderr).toBe('srun: error: node0: task 0: Interrupt\n');
  });

  it('-K: the first task that ends badly has the step terminated (SIGTERM); slurm.conf KillOnBadExit does the same, -K=0 undoes it', async () => {
    // Task 0 ends once task 1 has exec'd: a 24.11 task child catches SIGTERM until its execve.
    const script = 'test $SLURM_PROCID = 0 && { sleep 1; exit 3; }; sleep 30';
    for (const slurmVersion of ['24.11', '22.05']) {
      const { result, lines } = await recordCommand('srun', ['items'], ['-K', '-n', '2', '-O', 'sh', '-c', script], { slurmVersion });
      expect(result.exitCode).toBe(143);
      const id = result.job!.jobId;
      const prefix = slurmVersion === '22.05' ? 'launch/slurm: _step_signal: ' : '';
      expect(result.stderr.split('\n').filter((l) => l && !l.startsWith('slurmstepd:')).sort()).toEqual(
        [`srun: ${prefix}Terminating StepId=${id}.0`, 'srun: error: node0: task 0: Exited with exit code 3', 'srun: error: node0: task 1: Terminated', `srun: Force Terminated StepId=${id}.0`].sort(),
      );
      expect(result.stderr).toMatch(new RegExp(`slurmstepd: error: \\*\\*\\* STEP ${id}\\.0 ON node0 CANCELLED AT \\S+ \\*\\*\\*`));
      // task_exit in slurmstepd saw task 1 end by SIGTERM.
      expect(lines.filter((l) => l.callback === 'task_exit').map((l) => l.fields.S_TASK_EXIT_STATUS).sort()).toEqual(['0:15', '0:768']);
    }
    const dir = tempDir();
    const slurmConf = writeFile(dir, 'slurm.conf', 'ClusterName=k\nKillOnBadExit=1\nNodeName=node0 CPUs=4\nPartitionName=debug Nodes=node0 Default=YES\n');
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [], slurmConf });
    const env = { PATH: '/usr/bin:/bin' };
    expect((await stack.srun({ args: ['-n', '2', 'sh', '-c', script], cwd: dir, env })).exitCode).toBe(143);
    expect((await stack.srun({ args: ['--kill-on-bad-exit=0', '-n', '2', 'sh', '-c', 'test $SLURM_PROCID = 0 && exit 3; sleep 1'], cwd: dir, env })).exitCode).toBe(3);
  });

  it('-W N: N seconds after the first task ended, srun reports the tasks and kills the step', async () => {
    const { result } = await recordCommand('srun', [], ['-W', '1', '-n', '2', '-O', 'sh', '-c', 'test $SLURM_PROCID = 0 && exit 0; sleep 30']);
    expect(result.exitCode).toBe(137);
    const id = result.job!.jobId;
    expect(result.stderr.split('\n').filter((l) => l && !l.startsWith('slurmstepd:'))).toEqual([
      'srun: First task exited 1s ago',
      // task_state_print: the running tasks first.
      `srun: StepId=${id}.0 task 1: running`,
      `srun: StepId=${id}.0 task 0: exited`,
      `srun: Terminating StepId=${id}.0`,
      'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.',
      'srun: error: node0: task 1: Killed',
    ]);
  });

  it('--export filters what the tasks inherit; -J names the job', async () => {
    // The named variables first; NONE ends the list (NONE,FOO=bar has no FOO, as on the real 22.05 and 24.11).
    const none = await recordCommand('srun', [], ['--export=FOO=bar,NONE,BAR=no', '/usr/bin/env'], { env: { KEEP: 'no' } });
    expect(none.result.stdout).toMatch(/^FOO=bar\n/);
    expect(none.result.stdout).not.toContain('BAR=');
    expect(none.result.stdout).not.toContain('KEEP=');
    expect(none.result.stdout).not.toContain('PATH=');
    // Without PATH, a bare command name is not found: execve fails, exit 2 (ENOENT).
    const lost = await recordCommand('srun', [], ['--export=NONE', 'sh', '-c', 'true']);
    expect(lost.result.exitCode).toBe(2);
    expect(lost.result.stderr).toContain('execve(): sh: No such file or directory');
    const named = await recordCommand('srun', [], ['-J', 'named', 'printenv', 'SLURM_JOB_NAME']);
    expect(named.result.stdout).toBe('named\n');
  });

  it('a node whose user_init fails answers the launch with ESLURMD_EXECVE_FAILED', async () => {
    const { result } = await recordCommand('srun', ['fail=user_init'], ['-n', '2', 'true'], { slurmVersion: '22.05' });
    expect(result.stderr).toContain('srun: error: task 0 launch failed: Slurmd could not execve job\nsrun: error: task 1 launch failed: Slurmd could not execve job\n');
    expect(result.exitCode).toBe(0);
  });

  it('prints task output, labelled with -l', async () => {
    const { result } = await recordCommand('srun', [], ['-n', '2', '-l', 'sh', '-c', 'echo a; echo b']);
    expect(result.stdout.split('\n').sort().join('\n')).toBe(['', '0: a', '0: b', '1: a', '1: b'].join('\n'));
  });

  it('--ntasks-per-node without -n launches that many tasks on each node, as the real 22.05 and 24.11 do; salloc exports the count', async () => {
    const one = await recordCommand('srun', [], ['-N', '1', '--ntasks-per-node=2', '-l', 'printenv', 'SLURM_NTASKS']);
    expect(one.result.exitCode).toBe(0);
    expect(one.result.stdout.split('\n').filter(Boolean).sort()).toEqual(['0: 2', '1: 2']);
    const two = await recordCommand('srun', [], ['-N', '2', '--ntasks-per-node=2', '-l', 'printenv', 'SLURMD_NODENAME']);
    expect(two.result.stdout.split('\n').filter(Boolean).sort()).toEqual(['0: node0', '1: node0', '2: node1', '3: node1']);
    // -n wins over it.
    const n = await recordCommand('srun', [], ['-N', '1', '-n', '1', '--ntasks-per-node=2', '-l', 'true']);
    expect(n.result.steps[0]!.tasks).toHaveLength(1);
    for (const release of ['22.05', '24.11'] as const) {
      // env itself as salloc's command: a shell would print its variables in an order of its own.
      const alloc = await recordCommand('salloc', [], ['-N', '1', '--ntasks-per-node=2', 'env'], { slurmVersion: release, env: { CALLER: '1' } });
      const lines = alloc.result.stdout.split('\n').filter(Boolean);
      const names = lines.filter((l) => /^[A-Z_]+=/.test(l)).map((l) => l.slice(0, l.indexOf('=')));
      expect(lines).toContain('SLURM_NTASKS=2');
      expect(lines).toContain('SLURM_NPROCS=2');
      const inner = await recordCommand('salloc', [], ['-N', '1', '--ntasks-per-node=2', 'srun', '-l', 'printenv', 'SLURM_PROCID'], { slurmVersion: release });
      expect(inner.result.stdout.split('\n').filter((l) => /^\d+: /.test(l)).sort()).toEqual(['0: 0', '1: 1']);
      // Set while salloc checks its options: before the submit directory, right after the caller's variables.
      expect(names.indexOf('SLURM_NTASKS_PER_NODE')).toBe(names.indexOf('CALLER') + 1);
      expect(names.indexOf('SLURM_NTASKS_PER_NODE')).toBeLessThan(names.indexOf('SLURM_SUBMIT_DIR'));
    }
  });

  it('tasks get what srun and slurmd add to the launch (24.11: no SLURM_WORKING_CLUSTER; -O sets SLURM_OVERCOMMIT)', async () => {
    const { result } = await recordCommand('srun', [], ['-O', 'env']);
    const env = Object.fromEntries(result.stdout.split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    expect(env).toMatchObject({ SLURM_OVERCOMMIT: '1', SRUN_DEBUG: '3', SLURM_LAUNCH_NODE_IPADDR: '127.0.0.1', SLURM_SRUN_COMM_HOST: '127.0.0.1' });
    expect(env.SLURM_PRIO_PROCESS).toMatch(/^-?\d+$/);
    expect(env.SLURM_SRUN_COMM_PORT).toBe(env.SLURM_STEP_LAUNCHER_PORT);
    expect(env.SLURM_WORKING_CLUSTER).toBeUndefined();
    const plain = await recordCommand('srun', [], ['-v', 'env']);
    expect(plain.result.stdout).not.toContain('SLURM_OVERCOMMIT=');
    expect(plain.result.stdout).toContain('SRUN_DEBUG=4\n');
  });

  it('an unknown option or a missing argument: getopt’s message, the hint, status 255; no exit callback', async () => {
    const r = await recordCommand('srun', [], ['--bogus', 'true']);
    expect(r.result.exitCode).toBe(255);
    expect(r.result.stderr).toBe('srun: unrecognized option \'--bogus\'\nTry "srun --help" for more information\n');
    expect(r.lines.map((l) => l.callback)).toEqual(['init']);
    const missing = await recordCommand('srun', ['option=need:1'], ['true', '--need']);
    expect(missing.result.exitCode).toBe(0);
    const missing2 = await recordCommand('srun', ['option=need:1'], ['--need']);
    expect(missing2.result.exitCode).toBe(255);
    expect(missing2.result.stderr).toContain("srun: option '--need' requires an argument\n");
  });

  // glibc's getopt_long prints these in the real srun (the real 22.05 and
  // 24.11 printed exactly these lines here): the option named in full as
  // matched, and an ambiguous prefix with its possibilities in table order,
  // a plugin's options last, aliases of one option (cpu_bind) not repeated.
  it('an argument to a flag, and an ambiguous prefix: getopt’s wording, status 255', async () => {
    const flag = await recordCommand('srun', ['option=no-zzz:0'], ['--no-zz=1', 'true']);
    expect(flag.result.exitCode).toBe(255);
    expect(flag.result.stderr).toBe('srun: option \'--no-zzz\' doesn\'t allow an argument\nTry "srun --help" for more information\n');
    const ambiguous = await recordCommand('srun', ['option=no-zzz:0'], ['--no', 'true']);
    expect(ambiguous.result.exitCode).toBe(255);
    expect(ambiguous.result.stderr).toBe(
      "srun: option '--no' is ambiguous; possibilities: '--no-allocate' '--no-kill' '--nodefile' '--nodelist' '--nodes' '--no-zzz'\n" +
        'Try "srun --help" for more information\n',
    );
    const aliases = await recordCommand('srun', [], ['--cpu', 'true']);
    expect(aliases.result.stderr).toContain("srun: option '--cpu' is ambiguous; possibilities: '--cpu-bind' '--cpu-freq' '--cpus-per-gpu' '--cpus-per-task'\n");
  });

  it('a failing option callback: Slurm’s message, 255 from the command line, 1 from the environment', async () => {
    const argv = await recordCommand('srun', ['option=bad:1:fail'], ['--bad=x', 'true']);
    expect(argv.result.exitCode).toBe(255);
    expect(argv.result.stderr).toContain('srun: error: Invalid --bad argument: x\n');
    const env = await recordCommand('srun', ['option=bad:1:fail'], ['true'], { env: { SLURM_SPANK__SLURM_SPANK_OPTION_recorder_bad: 'y' } });
    expect(env.result.exitCode).toBe(1);
    expect(env.result.stderr).toContain(
      'srun: error: Invalid argument (y) for environment variable: SLURM_SPANK__SLURM_SPANK_OPTION_recorder_bad\n',
    );
  });

  it('a plugin that crashes while parsing options takes srun down, reported with plugin and hook', async () => {
    const { result } = await recordCommand('srun', ['option=boom:0:crash'], ['--boom', 'true']);
    expect(result.exitCode).toBe(139);
    expect(result.client.problems).toContainEqual(expect.objectContaining({ code: 'PLUGIN_CRASHED', hook: 'option_cb', signal: 'SIGSEGV' }));
    expect(result.steps).toEqual([]);
  });

  it('a plugin option named like one of srun’s own is disabled with Slurm’s message; srun’s own works', async () => {
    const { result, lines } = await recordCommand('srun', ['option=label:0'], ['--label', 'echo', 'x']);
    expect(result.stderr).toContain('srun: error: Ignoring conflicting option "label" in plugin "recorder"\n');
    expect(result.stdout).toBe('0: x\n');
    expect(lines.some((l) => l.callback === 'option')).toBe(false);
  });

  it('--help prints the usage and the plugin block, exits 0, runs no exit callback', async () => {
    const { result, lines } = await recordCommand('srun', ['option=color'], ['--help']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('Usage: srun');
    expect(result.stdout).toContain('\nOptions provided by plugins:\n      --color=value           recorded option\n');
    expect(lines.map((l) => l.callback)).toEqual(['init']);
  });

  it('"No command given to execute." is fatal', async () => {
    const { result } = await recordCommand('srun', [], ['-n', '1']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe('srun: fatal: No command given to execute.\n');
  });

  it('an empty or a missing plugstack.conf is an empty stack', async () => {
    const { Plugstack } = await import('../lib/plugstack.js');
    const { tempDir, writeFile } = await import('./helpers/plugins.js');
    const dir = tempDir();
    const empty = await Plugstack.load(writeFile(dir, 'empty.conf', ''));
    expect((await empty.srun({ args: ['echo', 'ok'], env: { PATH: '/usr/bin:/bin' } })).stdout).toBe('ok\n');
    const missing = await Plugstack.load(`${dir}/nope.conf`);
    expect((await missing.srun({ args: ['echo', 'ok'], env: { PATH: '/usr/bin:/bin' } })).exitCode).toBe(0);
  });

  it('leaves no process behind', async () => {
    const tag = uniqueTag();
    await recordCommand('srun', ['option=boom:0:crash'], ['--boom', 'true']);
    await recordCommand('srun', [], ['-n', '2', 'sh', '-c', `perl -e 'sleep 303' ${tag} & echo`]);
    expect(await leftBehind([tag])).toEqual([]);
  });
});

describe('srun --pty', () => {
  it('without a terminal: the two lines of set_winsize, before local_user_init, and the step runs without one (22.05 reads standard output, 24.11 standard input or --pty=N)', async () => {
    const lines = '(srun: error: ioctl\\(TIOCGWINSZ\\): Inappropriate ioctl for device\n' + 'srun: error: Not using a pseudo-terminal, disregarding --pty%s option\n)';
    for (const [version, args, shown] of [
      ['22.05', ['--pty'], ''],
      ['24.11', ['--pty'], ''],
      ['24.11', ['--pty=0'], '=0'],
    ] as const) {
      const { result, lines: recorded } = await recordCommand('srun', [], [...args, '-n', '1', 'true'], { slurmVersion: version });
      // A real 22.05 (output to a pipe) printed these two, then the step ran.
      expect(result.stderr, version).toMatch(new RegExp(`^${lines.replace('%s', shown)}$`));
      expect(result.exitCode).toBe(0);
      expect(recorded.some((l) => l.callback === 'local_user_init')).toBe(true);
    }
  });

  it('24.11: --pty=N that does not start with a digit is fatal once the job exists: exit 1, exit callbacks, the job cancelled and its epilog run', async () => {
    const { result, lines } = await recordCommand('srun', [], ['--pty=x', '-n', '1', 'true'], { slurmVersion: '24.11' });
    // A real 24.11: this one line, exit 1; srun's init, init_post_opt and
    // exit, no local_user_init, no prolog, the job's epilog; the job
    // CANCELLED with exit code 0:0.
    expect(result.stderr).toBe('srun: fatal: --pty=x must be numeric file descriptor\n');
    expect(result.exitCode).toBe(1);
    expect(lines.filter((l) => l.fields.ctx === '1').map((l) => l.callback)).toEqual(['init', 'init_post_opt', 'exit']);
    expect(lines.some((l) => l.callback === 'job_prolog')).toBe(false);
    expect(lines.some((l) => l.callback === 'job_epilog')).toBe(true);
    expect(result.steps).toEqual([]);
    expect(result.job).toMatchObject({ state: 'CANCELLED', exitCode: 0 });
  });

  it('on a terminal: plugstack says it runs task 0 without a pseudo-terminal', async () => {
    const conf = writeFile(tempDir(), 'plugstack.conf', '');
    const cli = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'bin', 'plugstack.cjs');
    const { out, code } = await inTerminal(`node ${cli} run --conf ${conf} --pty -n 1 true`);
    expect(out).toBe('plugstack: warning: srun --pty: task 0 runs without a pseudo-terminal (plugstack does not emulate one)\n');
    expect(code).toBe(0);
  });
});

describe('srun through the API, object form', () => {
  it('turns { options, command } into the words srun parses: the same run as the argv form', async () => {
    const dir = tempDir();
    const log = path.join(dir, 'recorder.log');
    const conf = writeFile(dir, 'plugstack.conf', `required ${recorder()} log=${log} option=color option=flag:0\n`);
    const stack = await Plugstack.load(conf, { pluginDir: [] });
    const env = { PATH: '/usr/bin:/bin' };
    const result = await stack.srun({ options: { ntasks: 2, label: true, color: 'dark red=1', flag: true, quiet: false }, command: ['printenv', 'SLURM_NTASKS'], env, cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.split('\n').filter(Boolean).sort()).toEqual(['0: 2', '1: 2']);
    expect(result.client.options).toEqual([
      { plugin: 'recorder', name: 'color', value: 'dark red=1' },
      { plugin: 'recorder', name: 'flag', value: null },
    ]);
    await expect(stack.srun({ args: ['true'], command: ['true'] })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(stack.srun({ options: { '-n': 2 }, command: ['true'] })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
