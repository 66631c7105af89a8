/**
 * Signals as srun, sbatch and salloc take them (measured on a real 22.05
 * here): SIGINT once prints the tasks' states and carries on; twice within
 * a second forwards it and forces the job's termination; SIGTERM kills the
 * tasks; a killed CLI leaves nothing behind; an AbortSignal is a SIGTERM;
 * the job's time limit (-t) cancels it with Slurm's "DUE TO TIME LIMIT".
 * Tasks are `perl -e 'sleep 300' TAG`, so that only this test's processes
 * are looked at.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stateDir } from '../lib/cluster/state-dir.js';
import { Plugstack } from '../lib/plugstack.js';
import { compilePlugin, repoRoot, tempDir, writeFile } from './helpers/plugins.js';
import { uniqueTag } from './helpers/processes.js';
import { execFileSync } from 'node:child_process';

const cli = path.join(repoRoot, 'bin', 'plugstack.cjs');

/** Processes whose command line holds one of these words (a tag, "--parent <pid>"). */
function alive(words: string[]): string[] {
  return execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => !/^\s*\d+\s+Z/.test(l) && words.some((w) => l.includes(w)));
}

async function gone(words: string[]): Promise<string[]> {
  for (let i = 0; i < 60; i++) {
    if (alive(words).length === 0) return [];
    await new Promise((r) => setTimeout(r, 50));
  }
  return alive(words);
}

interface CliRun {
  child: ChildProcess;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
  stderrSoFar: () => string;
  stdout: () => string;
}

function runCli(args: string[], cwd: string): CliRun {
  const child = spawn(process.execPath, [cli, ...args], { cwd, env: { ...process.env, PATH: '/usr/bin:/bin' } });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c));
  child.stderr!.on('data', (c: Buffer) => (stderr += c));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done, stderrSoFar: () => stderr, stdout: () => stdout };
}

/** Waits until the step's tasks run (perl carries the tag; the CLI's own command line does too). */
async function tasksRunning(tag: string, count: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (alive([tag]).filter((l) => /^\s*\d+\s+\S+\s+\S*perl /.test(l)).length >= count) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the tasks (${tag}) did not start`);
}

function sleeper(tag: string): string[] {
  return ['perl', '-e', 'sleep 300', tag];
}

function emptyStack(): { dir: string; conf: string } {
  const dir = tempDir();
  return { dir, conf: writeFile(dir, 'plugstack.conf', '') };
}

describe('plugstack run and signals', () => {
  it('SIGINT once: the task states, and the step goes on', async () => {
    const { dir, conf } = emptyStack();
    const tag = uniqueTag();
    const run = runCli(['run', '--conf', conf, '-n', '2', 'perl', '-e', 'sleep 1; print "done\\n"', tag], dir);
    await tasksRunning(tag, 2);
    run.child.kill('SIGINT');
    const { code, stdout, stderr } = await run.done;
    expect(code).toBe(0);
    expect(stdout).toBe('done\ndone\n');
    expect(stderr).toMatch(/^srun: interrupt \(one more within 1 sec to abort\)\nsrun: StepId=\d+\.0 tasks 0-1: running\n$/);
  });

  it('SIGINT twice within a second: Ctrl-C to the tasks, the job cancelled, exit 130', async () => {
    const { dir, conf } = emptyStack();
    const tag = uniqueTag();
    const run = runCli(['run', '--conf', conf, '-n', '2', ...sleeper(tag)], dir);
    await tasksRunning(tag, 2);
    run.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 200));
    run.child.kill('SIGINT');
    const { code, stderr } = await run.done;
    expect(code).toBe(130);
    const lines = stderr.trim().split('\n');
    expect(lines.slice(0, 5).map((l) => l.replace(/\d+\.0/, 'J.0'))).toEqual([
      'srun: interrupt (one more within 1 sec to abort)',
      'srun: StepId=J.0 tasks 0-1: running',
      'srun: sending Ctrl-C to StepId=J.0',
      'srun: forcing job termination',
      'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.',
    ]);
    expect(lines[5]).toMatch(/^slurmstepd: error: \*\*\* STEP \d+\.0 ON node0 CANCELLED AT \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d \*\*\*$/);
    // Killed tasks are not errors once the job is cancelled.
    expect(lines).toHaveLength(6);
    expect(await gone([tag, `--parent ${run.child.pid}`])).toEqual([]);
  });

  it('SIGTERM: the tasks are killed, exit 137', async () => {
    const { dir, conf } = emptyStack();
    const tag = uniqueTag();
    const run = runCli(['run', '--conf', conf, '-N', '2', '-n', '2', ...sleeper(tag)], dir);
    await tasksRunning(tag, 2);
    run.child.kill('SIGTERM');
    const { code, stderr } = await run.done;
    expect(code).toBe(137);
    expect(stderr).toContain('srun: forcing job termination\nsrun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n');
    // Only node 0 logs the cancellation.
    expect(stderr.match(/CANCELLED AT/g)).toHaveLength(1);
    expect(stderr).toContain('srun: error: node0: task 0: Killed\n');
    expect(stderr).toContain('srun: error: node1: task 1: Killed\n');
    expect(await gone([tag, `--parent ${run.child.pid}`])).toEqual([]);
  });

  it('SIGUSR1 and SIGUSR2 go to the tasks, as srun forwards them (Node opens no inspector, does not die)', async () => {
    const { dir, conf } = emptyStack();
    const tag = uniqueTag();
    // Each task reports the signals it gets; USR2 ends it with status 3.
    const script = writeFile(
      dir,
      'task.sh',
      `trap 'echo "task $SLURM_PROCID got USR1"' USR1\ntrap 'echo "task $SLURM_PROCID got USR2"; exit 3' USR2\nwhile :; do perl -e 'select(undef, undef, undef, 0.05)' ${tag}; done\n`,
    );
    const run = runCli(['run', '--conf', conf, '-n', '2', 'bash', script], dir);
    await tasksRunning(tag, 2);
    run.child.kill('SIGUSR1');
    // Both tasks have reported the first before the second comes.
    for (let i = 0; i < 200 && (run.stdout().match(/got USR1/g) ?? []).length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    run.child.kill('SIGUSR2');
    const { code, stdout, stderr } = await run.done;
    // As a real 22.05's srun: the tasks' lines, no word of srun's own, exit 3.
    expect(stdout.split('\n').filter(Boolean).sort()).toEqual(['task 0 got USR1', 'task 0 got USR2', 'task 1 got USR1', 'task 1 got USR2']);
    expect(stderr).not.toContain('Debugger');
    expect(stderr).toContain('srun: error: node0: tasks 0-1: Exited with exit code 3');
    expect(code).toBe(3);
    expect(await gone([tag, `--parent ${run.child.pid}`])).toEqual([]);
  });

  it("SIGCONT is said, SIGALRM ignored without -W, as srun's signal thread takes them (Node does not die of the alarm)", async () => {
    const { dir, conf } = emptyStack();
    const tag = uniqueTag();
    const run = runCli(['run', '--conf', conf, '-n', '1', 'perl', '-e', 'sleep 1; print "done\\n"', tag], dir);
    await tasksRunning(tag, 1);
    run.child.kill('SIGCONT');
    run.child.kill('SIGALRM');
    const { code, stdout, stderr } = await run.done;
    // A real 22.05: 'srun: got SIGCONT', the task ran to its end, exit 0.
    expect(stderr).toBe('srun: got SIGCONT\n');
    expect(stdout).toBe('done\n');
    expect(code).toBe(0);
  });

  it('Ctrl-Z, the tasks end meanwhile, then fg: SIGCONT is still said, and the exit reported', async () => {
    const { dir, conf } = emptyStack();
    const tag = uniqueTag();
    const ended = path.join(dir, 'ended');
    const run = runCli(['run', '--conf', conf, '-n', '1', 'sh', '-c', `perl -e 'select(undef, undef, undef, 0.3)' ${tag}; touch ${ended}; exit 3`], dir);
    await tasksRunning(tag, 1);
    // Stopped as a terminal's Ctrl-Z stops it: Node alone (its hosts and the task run on).
    run.child.kill('SIGSTOP');
    for (let i = 0; i < 200 && !fs.existsSync(ended); i++) await new Promise((r) => setTimeout(r, 25));
    expect(fs.existsSync(ended)).toBe(true);
    // The step's end has reached Node's socket by now.
    await new Promise((r) => setTimeout(r, 500));
    run.child.kill('SIGCONT');
    const { code, stderr } = await run.done;
    // A real 22.05 in a terminal (stopped while the tasks ran, fg after they
    // ended): 'srun: got SIGCONT', the task's exit line, exit 3. Which of the
    // two comes first is a race between srun's signal and message threads.
    expect(stderr.trim().split('\n').sort()).toEqual(['srun: error: node0: task 0: Exited with exit code 3', 'srun: got SIGCONT']);
    expect(code).toBe(3);
  });

  it("a signal once the job has ended does not cut its epilog short: the first says so, a second stops it", async () => {
    const dir = tempDir();
    const plugin = compilePlugin('wait_file.c');
    const conf = writeFile(dir, 'plugstack.conf', `required ${plugin} epilog=${dir}\n`);
    const file = (name: string) => path.join(dir, name);
    const started = async () => {
      for (let i = 0; i < 400 && !fs.existsSync(file('started')); i++) await new Promise((r) => setTimeout(r, 25));
      expect(fs.existsSync(file('started'))).toBe(true);
    };
    const notice = /^plugstack: job (\d+) has ended; its epilog runs to its end, as slurmd runs it \(a second signal stops it\)$/m;
    for (const command of [['run', '-n', '1', 'true'], ['alloc', '-n', '1', 'true'], ['batch', '-W', '--wrap', 'true']]) {
      for (const name of ['started', 'go', 'done']) fs.rmSync(file(name), { force: true });
      const [verb, ...args] = command;
      const run = runCli([verb!, '--conf', conf, ...args], dir);
      await started();
      // On a cluster the command has returned by now: the epilog is slurmd's.
      run.child.kill('SIGINT');
      for (let i = 0; i < 200 && !notice.test(run.stderrSoFar()); i++) await new Promise((r) => setTimeout(r, 25));
      fs.writeFileSync(file('go'), '');
      const { code, stderr } = await run.done;
      expect(stderr, verb).toMatch(notice);
      expect(fs.existsSync(file('done')), verb).toBe(true);
      expect(code, verb).toBe(0);
    }
    // A second signal: plugstack's own way out, said.
    for (const name of ['started', 'go', 'done']) fs.rmSync(file(name), { force: true });
    const run = runCli(['run', '--conf', conf, '-n', '1', 'true'], dir);
    await started();
    run.child.kill('SIGINT');
    for (let i = 0; i < 200 && !notice.test(run.stderrSoFar()); i++) await new Promise((r) => setTimeout(r, 25));
    run.child.kill('SIGTERM');
    const { code, stderr } = await run.done;
    expect(stderr).toMatch(/^plugstack: job \d+'s epilog stopped by SIGTERM$/m);
    expect(fs.existsSync(file('done'))).toBe(false);
    expect(code).toBe(0);
    expect(await gone([`--parent ${run.child.pid}`])).toEqual([]);
  });

  it('SIGALRM once -W has set its alarm: the step is terminated now, as at the alarm', async () => {
    const { dir, conf } = emptyStack();
    const tag = uniqueTag();
    const script = writeFile(dir, 'task.sh', `if [ "$SLURM_PROCID" = 0 ]; then exit 0; fi\nexec perl -e 'sleep 300' ${tag}\n`);
    const run = runCli(['run', '--conf', conf, '-n', '2', '-W', '100', 'bash', script], dir);
    await tasksRunning(tag, 1);
    // Task 0 has ended (the alarm is set) once only task 1 runs: give it the time to be reaped.
    await new Promise((r) => setTimeout(r, 300));
    run.child.kill('SIGALRM');
    const { code, stderr } = await run.done;
    const lines = stderr.trim().split('\n').map((l) => l.replace(/=\d+\.0/, '=J.0'));
    expect(lines.slice(0, 5)).toEqual([
      'srun: First task exited 100s ago',
      'srun: StepId=J.0 task 1: running',
      'srun: StepId=J.0 task 0: exited',
      'srun: Terminating StepId=J.0',
      'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.',
    ]);
    expect(stderr).toContain('srun: error: node0: task 1: Killed\n');
    expect(code).toBe(137);
    expect(await gone([tag, `--parent ${run.child.pid}`])).toEqual([]);
  });

  it('SIGPIPE sent to srun kills the tasks without a word of its own; a reader that goes away does not', async () => {
    const { dir, conf } = emptyStack();
    const tag = uniqueTag();
    const run = runCli(['run', '--conf', conf, '-n', '1', ...sleeper(tag)], dir);
    await tasksRunning(tag, 1);
    run.child.kill('SIGPIPE');
    const { code, stderr } = await run.done;
    // A real 22.05: the abort, the step's cancellation, the task killed, 137.
    expect(stderr).toMatch(/^srun: Job step aborted: Waiting up to 32 seconds for job step to finish\.\nslurmstepd: error: \*\*\* STEP \d+\.0 ON node0 CANCELLED AT \S+ \*\*\*\nsrun: error: node0: task 0: Killed\n$/);
    expect(code).toBe(137);
    expect(await gone([tag, `--parent ${run.child.pid}`])).toEqual([]);

    // Its output closed under it (`| head -1`): a real srun's writes fail,
    // the SIGPIPE stays in the thread that wrote, the task runs to its end.
    const closed = runCli(['run', '--conf', conf, '-n', '1', 'sh', '-c', `echo a; perl -e 'select(undef, undef, undef, 0.3)' ${tag}; echo b; echo c; echo d >&2`], dir);
    await new Promise<void>((resolve) => closed.child.stdout!.once('data', () => resolve()));
    closed.child.stdout!.destroy();
    const ended = await closed.done;
    expect(ended.stderr).toBe('d\n');
    expect(ended.code).toBe(0);
  });

  it('salloc: SIGPIPE revokes the allocation as SIGTERM does; SIGALRM kills salloc (142), and plugstack ends its command', async () => {
    const { dir, conf } = emptyStack();
    const tag = uniqueTag();
    const pipe = runCli(['alloc', '--conf', conf, 'perl', '-e', 'sleep 1; print "done\\n"', tag], dir);
    await tasksRunning(tag, 1);
    pipe.child.kill('SIGPIPE');
    const revoked = await pipe.done;
    // A real 22.05: revoked, the command ran on to its end, exit 0.
    expect(revoked.stderr).toMatch(/salloc: Job allocation \d+ has been revoked\.\n$/);
    expect(revoked.stdout).toBe('done\n');
    expect(revoked.code).toBe(0);

    const alarm = runCli(['alloc', '--conf', conf, ...sleeper(tag)], dir);
    await tasksRunning(tag, 1);
    alarm.child.kill('SIGALRM');
    const died = await alarm.done;
    // A real 22.05 died of it: exit 142, no word; its command slept on.
    expect(died.code).toBe(142);
    expect(died.stderr).not.toMatch(/revoked|Relinquishing/);
    expect(await gone([tag, `--parent ${alarm.child.pid}`])).toEqual([]);
  });

  it('a CLI killed with SIGKILL takes its hosts and tasks along; its job is swept', async () => {
    const { dir, conf } = emptyStack();
    const tag = uniqueTag();
    const run = runCli(['run', '--conf', conf, '-n', '2', ...sleeper(tag)], dir);
    await tasksRunning(tag, 2);
    // The job directory of this CLI (other tests may be running jobs too).
    const jobs = stateDir('jobs');
    const mine = fs.readdirSync(jobs).filter((n) => {
      try {
        return JSON.parse(fs.readFileSync(path.join(jobs, n, 'job.json'), 'utf8')).owner?.pid === run.child.pid;
      } catch {
        return false;
      }
    });
    expect(mine).toHaveLength(1);
    run.child.kill('SIGKILL');
    await run.done;
    expect(await gone([tag, `--parent ${run.child.pid}`])).toEqual([]);
    // The next command removes the job its dead creator left.
    const again = runCli(['run', '--conf', conf, 'true'], dir);
    expect((await again.done).code).toBe(0);
    expect(fs.existsSync(path.join(jobs, mine[0]!))).toBe(false);
  });
});

describe('signals through the API', () => {
  it('an AbortSignal ends srun as a SIGTERM does', async () => {
    const { dir, conf } = emptyStack();
    const tag = uniqueTag();
    const stack = await Plugstack.load(conf, { pluginDir: [] });
    const controller = new AbortController();
    const pending = stack.srun({ args: ['-n', '2', ...sleeper(tag)], cwd: dir, signal: controller.signal });
    await tasksRunning(tag, 2);
    controller.abort();
    const r = await pending;
    expect(r.exitCode).toBe(137);
    expect(r.stderr).toContain('srun: forcing job termination');
    expect(r.job).toMatchObject({ state: 'FAILED', exitCode: 9 });
    // Every task killed by the request: slurmstepd still reports the first
    // one's status for the step (_get_exit_code), which the job's derived
    // exit code takes (a real 22.05's epilog saw derived_ec 9).
    expect(r.steps[0]!.exitCode).toBe(9);
    expect(await gone([tag])).toEqual([]);
  });

  it('an AbortSignal cancels an sbatch job array: the running task and those not started', async () => {
    const { dir, conf } = emptyStack();
    const tag = uniqueTag();
    const stack = await Plugstack.load(conf, { pluginDir: [] });
    const controller = new AbortController();
    const pending = stack.sbatch({ args: ['-W', '--array=1-3', '-o', '/dev/null', '--wrap', `test $SLURM_ARRAY_TASK_ID = 1 || exec ${sleeper(tag).join(' ')}`], cwd: dir, signal: controller.signal });
    await tasksRunning(tag, 1);
    controller.abort();
    const r = await pending;
    expect(r.arrayTasks!.map((t) => [t.arrayTaskId, t.state])).toEqual([
      [1, 'COMPLETED'],
      [2, 'CANCELLED'],
      [3, 'CANCELLED'],
    ]);
    // Task 3 never started: no job of its own ran.
    expect(r.arrayTasks![2]!.nodes).toEqual([]);
    expect(r.job).toMatchObject({ jobId: r.arrayTasks![2]!.jobId, state: 'CANCELLED' });
    expect(r.steps).toHaveLength(2);
    expect(await gone([tag])).toEqual([]);
  });

  it('an AbortSignal revokes an salloc allocation; without -K its command runs on, and salloc ends with it', async () => {
    const { dir, conf } = emptyStack();
    const tag = uniqueTag();
    const stack = await Plugstack.load(conf, { pluginDir: [] });
    const controller = new AbortController();
    const started = Date.now();
    // A command that ends by itself 3 s after it starts.
    const pending = stack.salloc({ args: ['-n', '1', 'perl', '-e', 'sleep 3', tag], cwd: dir, signal: controller.signal });
    await tasksRunning(tag, 1);
    controller.abort();
    const r = await pending;
    // As a real 22.05's salloc did with SIGTERM: revoked at once, the command
    // not signalled (its own status, 0), no "Relinquishing" line.
    expect(r.stderr).toMatch(/^salloc: Granted job allocation (\d+)\nsalloc: Nodes node0 are ready for job\nsalloc: Job allocation \1 has been revoked\.\n$/);
    expect(r.exitCode).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
    // Completed by the signal, not by the command's status: 24.11 (the
    // default) with 128 + SIGTERM, FAILED, as a real 24.11 gave.
    expect(r.job).toMatchObject({ state: 'FAILED', exitCode: 143 });
  });

  it('22.05: salloc completes its job with NO_VAL on SIGTERM: CANCELLED, exit code 0', async () => {
    const { dir, conf } = emptyStack();
    const tag = uniqueTag();
    const stack = await Plugstack.load(conf, { pluginDir: [], slurmVersion: '22.05' });
    const controller = new AbortController();
    const pending = stack.salloc({ args: ['-n', '1', 'perl', '-e', 'sleep 1', tag], cwd: dir, signal: controller.signal });
    await tasksRunning(tag, 1);
    controller.abort();
    const r = await pending;
    expect(r.stderr).toMatch(/salloc: Job allocation (\d+) has been revoked\.\n$/);
    expect(r.exitCode).toBe(0);
    expect(r.job).toMatchObject({ state: 'CANCELLED', exitCode: 0 });
  });

  it('salloc -K (--kill-command): the revoked allocation sends its command the signal, SIGTERM by default', async () => {
    const { dir, conf } = emptyStack();
    const stack = await Plugstack.load(conf, { pluginDir: [] });
    for (const [option, status] of [
      ['-K', 1],
      ['--kill-command=sigusr1', 1],
      // SIGHUP, SIGINT, SIGQUIT and SIGKILL count as the user's: status 0.
      ['--kill-command=9', 0],
    ] as const) {
      const tag = uniqueTag();
      const controller = new AbortController();
      const pending = stack.salloc({ args: [option, '-n', '1', ...sleeper(tag)], cwd: dir, signal: controller.signal });
      await tasksRunning(tag, 1);
      controller.abort();
      const r = await pending;
      expect(r.stderr, option).toMatch(/salloc: Job allocation (\d+) has been revoked\.\n$/);
      expect(r.exitCode, option).toBe(status);
      expect(r.job, option).toMatchObject({ state: 'FAILED', exitCode: 143 });
      expect(await gone([tag])).toEqual([]);
    }
  });

  it('salloc --kill-command refuses what Slurm does not name (the release\'s signals), exit 255', async () => {
    const { dir, conf } = emptyStack();
    for (const [release, value, refused] of [
      ['22.05', 'FOO', true],
      ['22.05', '9x', true],
      ['22.05', '0', true],
      // 24.11 knows PIPE and CHLD, 22.05 does not.
      ['22.05', 'PIPE', true],
      ['24.11', 'PIPE', false],
      ['22.05', ' sigTerm ', false],
      ['22.05', '', false],
    ] as const) {
      const stack = await Plugstack.load(conf, { pluginDir: [], slurmVersion: release });
      const r = await stack.salloc({ args: [`--kill-command=${value}`, '-n', '1', 'true'], cwd: dir });
      if (refused) {
        expect(r.stderr, `${release} ${value}`).toBe('salloc: error: Invalid --kill-command specification\n');
        expect(r.exitCode, `${release} ${value}`).toBe(255);
      } else expect(r.exitCode, `${release} ${value}`).toBe(0);
    }
  });

  it('plugstack bounds a command whose plugin hangs in srun, and names the hook', async () => {
    const dir = tempDir();
    const { recorder } = await import('./helpers/step.js');
    const conf = writeFile(dir, 'plugstack.conf', `required ${recorder()} hang=init_post_opt context=local\n`);
    const stack = await Plugstack.load(conf, { pluginDir: [] });
    const r = await stack.srun({ args: ['true'], cwd: dir, timeoutMs: 500 });
    expect(r.client.problems).toContainEqual(expect.objectContaining({ code: 'PLUGIN_TIMEOUT', hook: 'slurm_spank_init_post_opt' }));
    expect(r.stderr).toContain('plugstack: error: PLUGIN_TIMEOUT (local context)');
    expect(r.exitCode).toBe(137);
  });
});

describe('the time limit (-t)', () => {
  it('srun: the step is cancelled DUE TO TIME LIMIT, the tasks terminated, exit 143', async () => {
    const { dir, conf } = emptyStack();
    const tag = uniqueTag();
    const stack = await Plugstack.load(conf, { pluginDir: [] });
    const r = await stack.srun({ args: ['-t', '0:1', '-n', '2', ...sleeper(tag)], cwd: dir });
    expect(r.exitCode).toBe(143);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^slurmstepd: error: \*\*\* STEP \d+\.0 ON node0 CANCELLED AT \S+ DUE TO TIME LIMIT \*\*\*$/);
    expect(lines.slice(1)).toEqual([
      'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.',
      'srun: error: node0: tasks 0-1: Terminated',
    ]);
    expect(r.job).toMatchObject({ state: 'TIMEOUT', exitCode: 15 });
  });

  it('sbatch: the batch job and its step are cancelled DUE TO TIME LIMIT', async () => {
    const { dir, conf } = emptyStack();
    const tag = uniqueTag();
    const stack = await Plugstack.load(conf, { pluginDir: [] });
    const r = await stack.sbatch({ args: ['-t', '0:1', '--wrap', `srun perl -e 'sleep 300' ${tag}`], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
    expect(r.job).toMatchObject({ state: 'TIMEOUT' });
    expect(r.output!.text).toMatch(/\*\*\* JOB \d+ ON node0 CANCELLED AT \S+ DUE TO TIME LIMIT \*\*\*/);
    expect(r.output!.text).toMatch(/\*\*\* STEP \d+\.0 ON node0 CANCELLED AT \S+ DUE TO TIME LIMIT \*\*\*/);
    expect(await gone([tag])).toEqual([]);
  });

  it('salloc: the allocation is revoked at its time limit', async () => {
    const { dir, conf } = emptyStack();
    const tag = uniqueTag();
    const stack = await Plugstack.load(conf, { pluginDir: [] });
    // -K: without it the command would sleep on (salloc sends it nothing).
    const r = await stack.salloc({ args: ['-K', '-t', '0:1', ...sleeper(tag)], cwd: dir });
    expect(r.stderr).toMatch(/salloc: Job (\d+) has exceeded its time limit and its allocation has been revoked\.\n$/);
    expect(r.job).toMatchObject({ state: 'TIMEOUT' });
    expect(await gone([tag])).toEqual([]);
  });
});
