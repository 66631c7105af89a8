/**
 * sbatch and salloc (spank-facts §2d, §2f, §2g, §3.8): the allocator
 * context, the batch job and its batch step, the srun inside, the command
 * run by salloc, and where job-control variables and options end up.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { byProcess, contextOf, recordCommand } from './helpers/command.js';
import { tempDir } from './helpers/plugins.js';

const ALLOCATOR = 3;
const SCRIPT = '#!/bin/sh\n#SBATCH --color=from-script\n#SBATCH -n 2\necho batch $SLURM_JOB_ID $ENVIRONMENT\nsrun -l env\n';

describe('sbatch', () => {
  it('runs the allocator context, exits before the job, then the batch step and the srun inside', async () => {
    const { result, lines } = await recordCommand(
      'sbatch',
      ['option=color', 'jcset=init_post_opt:TRACE=1', 'items'],
      ['--color=from-argv', 'job.sh', 'arg1'],
      { files: { 'job.sh': SCRIPT }, env: { SLURM_SPANK__SLURM_SPANK_OPTION_recorder_color: 'from-env' } },
    );
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`Submitted batch job ${result.job!.jobId}\n`);
    const sbatchPid = contextOf(lines, ALLOCATOR)[0]!.fields.pid!;
    expect(byProcess(lines).get(sbatchPid)).toEqual(['init', 'init_post_opt', 'exit']);
    // #SBATCH lines, then the environment, then the command line.
    expect(result.client.optionCallbacks.map((o) => [o.value, o.source])).toEqual([
      ['from-script', 'script'],
      ['from-env', 'env'],
      ['from-argv', 'argv'],
    ]);
    // sbatch's exit callback runs before the job starts.
    const firstRemote = lines.findIndex((l) => l.fields.ctx === '2');
    expect(lines.findIndex((l) => l.callback === 'exit' && l.fields.ctx === '3')).toBeLessThan(firstRemote);
    // The batch step: step id SLURM_BATCH_SCRIPT, argv the script, no node count.
    const batch = result.steps[0]!;
    expect(batch.stepId).toBe(0xfffffffb);
    const batchInit = lines.find((l) => l.callback === 'init' && l.fields.S_JOB_STEPID === '0:4294967291')!.fields;
    expect([batchInit.S_JOB_NNODES, batchInit.S_JOB_TOTAL_TASK_COUNT, batchInit.S_JOB_LOCAL_TASK_COUNT, batchInit.S_JOB_ARGV]).toEqual([
      '0:0',
      '0:2',
      '0:1',
      '0:2',
    ]);
    // The batch step learns the option only from the environment: once.
    const batchPid = batchInit.pid;
    expect(lines.filter((l) => l.callback === 'option' && l.fields.remote === '1' && l.fields.pid === batchPid)).toHaveLength(0);
    // The srun in the script is step 0 of the same job; it picks the option
    // up from SLURM_SPANK__... that sbatch exported, with remote=0.
    expect(result.steps.map((s) => s.stepId)).toEqual([0xfffffffb, 0]);
    expect(result.steps[1]!.jobId).toBe(result.job!.jobId);
    const innerSrun = lines.filter((l) => l.callback === 'option' && l.fields.remote === '0' && l.fields.ctx === '1');
    expect(innerSrun.map((l) => l.fields.optarg)).toEqual(['from-argv']);
    // The job's output file holds the script's and the inner srun's output.
    expect(result.output!.file).toBe(path.join(path.dirname(result.output!.file), `slurm-${result.job!.jobId}.out`));
    expect(result.output!.text).toContain(`batch ${result.job!.jobId} BATCH\n`);
    // Job-control variables reach the batch job as SLURM_SPANK_<NAME>, and
    // the option variable stays in it.
    expect(result.output!.text).toContain('0: SLURM_SPANK_TRACE=1\n');
    expect(result.output!.text).toContain('0: SLURM_SPANK__SLURM_SPANK_OPTION_recorder_color=from-argv\n');
    expect(result.job).toMatchObject({ state: 'COMPLETED', exitCode: 0, drained: [] });
  });

  it('reads the script from standard input when none is named (API: `script`)', async () => {
    const { Plugstack } = await import('../lib/plugstack.js');
    const { tempDir, writeFile } = await import('./helpers/plugins.js');
    const dir = tempDir();
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [] });
    const r = await stack.sbatch({ args: [], script: '#!/bin/sh\n#SBATCH -J fromstdin\necho name=$SLURM_JOB_NAME\n', cwd: dir, env: { PATH: '/usr/bin:/bin' } });
    expect(r.exitCode).toBe(0);
    expect(r.output!.text).toBe('name=fromstdin\n');
    const none = await stack.sbatch({ args: [], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
    expect(none.stderr).toBe('sbatch: error: Batch script is empty!\n');
  });

  // In Slurm the script writes into its output file itself, so an srun
  // inside, which writes whole lines, never has a line torn by the other
  // stream (a differential run saw torn lines in 8 of 11 plugstack runs).
  it('stdout and stderr in one file: no line of an srun inside the job is torn by the other stream', async () => {
    const { Plugstack } = await import('../lib/plugstack.js');
    const { tempDir, writeFile } = await import('./helpers/plugins.js');
    const dir = tempDir();
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [] });
    const loop = 'for i in $(seq 2000); do echo err-line-$SLURM_PROCID-$i >&2; echo out-line-$SLURM_PROCID-$i; done';
    const r = await stack.sbatch({ args: ['-W', '--wrap', `srun -n 2 sh -c '${loop}'; printf tail`], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.output!.text.split('\n');
    expect(lines.pop()).toBe('tail');
    expect(lines.filter((l) => !/^(err|out)-line-[01]-\d+$/.test(l))).toEqual([]);
    expect(lines).toHaveLength(8000);
  });

  it('--wrap builds a /bin/sh script; -W waits and exits with the job’s exit code', async () => {
    const { result } = await recordCommand('sbatch', [], ['-W', '--wrap', 'echo wrapped; exit 4']);
    expect(result.exitCode).toBe(4);
    expect(result.output!.text).toBe('wrapped\n');
    expect(result.job).toMatchObject({ state: 'FAILED', exitCode: 4 << 8 });
  });

  it('--parsable prints the job id alone; --test-only prints slurmctld’s answer and runs nothing (sbatch’s exit callback still runs; srun’s does not)', async () => {
    const parsable = await recordCommand('sbatch', [], ['--parsable', '-W', '--wrap', 'true']);
    expect(parsable.result.stdout).toBe(`${parsable.result.job!.jobId}\n`);
    const batch = await recordCommand('sbatch', [], ['--test-only', '-N', '2', '--wrap', 'true']);
    expect(batch.result.exitCode).toBe(0);
    expect(batch.result.stdout).toBe('');
    expect(batch.result.stderr).toMatch(/^sbatch: Job \d+ to start at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d using 2 processors on nodes node\[0-1\] in partition debug\n$/);
    expect(batch.result.steps).toHaveLength(0);
    expect(batch.lines.map((l) => l.callback)).toEqual(['init', 'init_post_opt', 'exit']);
    const step = await recordCommand('srun', [], ['--test-only', '-n', '3', 'true']);
    expect(step.result.exitCode).toBe(0);
    expect(step.result.stderr).toMatch(/^srun: Job \d+ to start at \S+ using 3 processors on nodes node0 in partition debug\n$/);
    expect(step.result.steps).toHaveLength(0);
    expect(step.lines.map((l) => l.callback)).toEqual(['init', 'init_post_opt']);
  });

  it('--array runs each task as a job of its own, in index order, the last keeping the array’s id', async () => {
    const script = 'echo task $SLURM_ARRAY_TASK_ID job $SLURM_JOB_ID array $SLURM_ARRAY_JOB_ID of $SLURM_ARRAY_TASK_COUNT min $SLURM_ARRAY_TASK_MIN max $SLURM_ARRAY_TASK_MAX step $SLURM_ARRAY_TASK_STEP; srun true';
    const { result, lines, dir } = await recordCommand('sbatch', ['items'], ['-W', '--array=1-5:2', '-o', 'out-%A_%a-%j.txt', '--wrap', script]);
    expect(result.exitCode).toBe(0);
    const array = result.job!.jobId;
    expect(result.stdout).toBe(`Submitted batch job ${array}\n`);
    expect(result.job).toMatchObject({ jobId: array, state: 'COMPLETED', exitCode: 0 });
    const tasks = result.arrayTasks!;
    expect(tasks.map((t) => [t.arrayJobId, t.arrayTaskId, t.state])).toEqual([
      [array, 1, 'COMPLETED'],
      [array, 3, 'COMPLETED'],
      [array, 5, 'COMPLETED'],
    ]);
    // The first tasks get new ids as they start; the last keeps the array's.
    const [first, second, last] = tasks.map((t) => t.jobId) as [number, number, number];
    expect(first).toBeGreaterThan(array);
    expect(second).toBeGreaterThan(first);
    expect(last).toBe(array);
    for (const t of tasks) {
      const file = path.join(dir, `out-${array}_${t.arrayTaskId}-${t.jobId}.txt`);
      expect(t.output!.file).toBe(file);
      expect(fs.readFileSync(file, 'utf8')).toBe(`task ${t.arrayTaskId} job ${t.jobId} array ${array} of 3 min 1 max 5 step 2\n`);
    }
    expect(result.output).toBeUndefined();
    // Each task: its prolog, batch step, srun step and epilog under its own
    // job id; the batch step's array items are the launch's, the srun
    // step's its environment's.
    const prologs = lines.filter((l) => l.callback === 'job_prolog').map((l) => l.fields.S_JOB_ID);
    expect(prologs).toEqual([`0:${first}`, `0:${second}`, `0:${last}`]);
    const items = (stepId: string) =>
      lines.filter((l) => l.callback === 'init' && l.fields.ctx === '2' && l.fields.S_JOB_STEPID === stepId).map((l) => [l.fields.S_JOB_ID, l.fields.S_JOB_ARRAY_ID, l.fields.S_JOB_ARRAY_TASK_ID]);
    const expected = tasks.map((t) => [`0:${t.jobId}`, `0:${array}`, `0:${t.arrayTaskId}`]);
    expect(items('0:4294967291')).toEqual(expected);
    expect(items('0:0')).toEqual(expected);
    // sbatch's own callbacks run once.
    expect(contextOf(lines, ALLOCATOR).map((l) => l.callback)).toEqual(['init', 'init_post_opt', 'exit']);
    expect(result.steps.map((s) => [s.jobId, s.stepId])).toEqual(tasks.flatMap((t) => [[t.jobId, 0xfffffffb], [t.jobId, 0]]));
  });

  it('outside an array the batch step’s array items are 0 and NO_VAL, an srun step’s its job id and NO_VAL', async () => {
    const { result, lines } = await recordCommand('sbatch', ['items'], ['-W', '--wrap', 'srun true']);
    expect(result.exitCode).toBe(0);
    const job = result.job!.jobId;
    const init = (stepId: string) => lines.find((l) => l.callback === 'init' && l.fields.ctx === '2' && l.fields.S_JOB_STEPID === stepId)!.fields;
    expect([init('0:4294967291').S_JOB_ARRAY_ID, init('0:4294967291').S_JOB_ARRAY_TASK_ID]).toEqual(['0:0', '0:4294967294']);
    expect([init('0:0').S_JOB_ARRAY_ID, init('0:0').S_JOB_ARRAY_TASK_ID]).toEqual([`0:${job}`, '0:4294967294']);
    expect(result.arrayTasks).toBeUndefined();
  });

  it('--array: sbatch -W exits with the highest task exit code; slurm-%A_%a.out by default', async () => {
    const { result, dir } = await recordCommand('sbatch', [], ['-W', '--array=2,1,3%1', '--wrap', 'echo $SLURM_ARRAY_TASK_ID; exit $((4 - SLURM_ARRAY_TASK_ID))']);
    expect(result.exitCode).toBe(3);
    const array = result.job!.jobId;
    expect(result.arrayTasks!.map((t) => [t.arrayTaskId, t.state, t.exitCode >> 8])).toEqual([
      [1, 'FAILED', 3],
      [2, 'FAILED', 2],
      [3, 'FAILED', 1],
    ]);
    expect(result.job).toMatchObject({ jobId: array, state: 'FAILED', exitCode: 3 << 8 });
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('slurm-')).sort()).toEqual([1, 2, 3].map((i) => `slurm-${array}_${i}.out`));
    expect(fs.readFileSync(path.join(dir, `slurm-${array}_2.out`), 'utf8')).toBe('2\n');
  });

  it('--array that slurmctld refuses, from the command line, a #SBATCH line or SBATCH_ARRAY_INX; --array= is no array', async () => {
    // Before the partition is looked at.
    const given = await recordCommand('sbatch', [], ['-p', 'nosuch', '--array=3-1', '--wrap', 'echo ran']);
    const directive = await recordCommand('sbatch', [], ['job.sh'], { files: { 'job.sh': '#!/bin/sh\n#SBATCH -a 1001\necho ran\n' } });
    const env = await recordCommand('sbatch', [], ['--wrap', 'echo ran'], { env: { SBATCH_ARRAY_INX: '1-4:0' } });
    for (const { result, lines, dir } of [given, directive, env]) {
      expect(result.exitCode).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe('sbatch: error: Batch job submission failed: Invalid job array specification\n');
      expect(result.job).toBeUndefined();
      expect(result.steps).toHaveLength(0);
      expect(fs.readdirSync(dir).filter((f) => f.startsWith('slurm-'))).toEqual([]);
      expect(lines.map((l) => l.callback)).toEqual(['init', 'init_post_opt', 'exit']);
    }
    const testOnly = await recordCommand('sbatch', [], ['--test-only', '--array=x', '--wrap', 'true']);
    expect(testOnly.result.exitCode).toBe(1);
    expect(testOnly.result.stderr).toBe('allocation failure: Invalid job array specification\n');
    const valid = await recordCommand('sbatch', [], ['--test-only', '--array=0-4:2%2', '--wrap', 'true']);
    expect(valid.result.exitCode).toBe(0);
    expect(valid.result.stderr).toMatch(/^sbatch: Job \d+ to start at \S+ using 1 processors on nodes node0 in partition debug\n$/);
    const none = await recordCommand('sbatch', [], ['-W', '--array=', '--wrap', 'echo ran $SLURM_ARRAY_TASK_ID.']);
    expect(none.result.exitCode).toBe(0);
    expect(none.result.output!.text).toBe('ran .\n');
  });

  it('--array against slurm.conf’s MaxArraySize and max_array_tasks; MaxArraySize=0 refuses every array', async () => {
    const dir = tempDir();
    const conf = (name: string, lines: string) => {
      fs.writeFileSync(path.join(dir, name), `ClusterName=plugstack\n${lines}NodeName=node0 CPUs=2\nPartitionName=debug Nodes=node0 Default=YES\n`);
      return path.join(dir, name);
    };
    const small = conf('small.conf', 'MaxArraySize=4\nSchedulerParameters=max_array_tasks=2\n');
    const off = conf('off.conf', 'MaxArraySize=0\n');
    const run = async (slurmConf: string, spec: string) => (await recordCommand('sbatch', [], ['-W', `--array=${spec}`, '-o', '/dev/null', '--wrap', 'true'], { slurmConf })).result;
    expect((await run(small, '3')).arrayTasks!.map((t) => t.arrayTaskId)).toEqual([3]);
    expect((await run(small, '0,3')).exitCode).toBe(0);
    for (const spec of ['4', '1-3']) expect((await run(small, spec)).stderr).toBe('sbatch: error: Batch job submission failed: Invalid job array specification\n');
    expect((await run(off, '1')).stderr).toBe('sbatch: error: Batch job submission failed: Invalid job array specification\n');
  });

  it('-W exits 1 when a signal ended the script, as sbatch reads the job’s exit code (not 128+N)', async () => {
    const { result } = await recordCommand('sbatch', [], ['-W', '--wrap', 'echo killed; kill -USR1 $$']);
    expect(result.exitCode).toBe(1);
    expect(result.output!.text).toBe('killed\n');
    expect(result.job).toMatchObject({ state: 'FAILED', exitCode: 10 });
  });

  it('a missing script, an empty one, one without #!: Slurm’s errors, exit 1, exit callbacks run', async () => {
    const missing = await recordCommand('sbatch', [], ['nope.sh']);
    expect(missing.result.exitCode).toBe(1);
    expect(missing.result.stderr).toBe('sbatch: error: Unable to open file nope.sh\n');
    expect(missing.lines.map((l) => l.callback)).toEqual(['init', 'exit']);
    const bare = await recordCommand('sbatch', [], ['job.sh'], { files: { 'job.sh': 'echo no shebang\n' } });
    expect(bare.result.exitCode).toBe(1);
    expect(bare.result.stderr).toContain('sbatch: error: This does not look like a batch script.  The first\n');
    const empty = await recordCommand('sbatch', [], ['job.sh'], { files: { 'job.sh': '' } });
    expect(empty.result.stderr).toBe('sbatch: error: Batch script is empty!\n');
  });

  it('an invalid #SBATCH directive is refused', async () => {
    const { result } = await recordCommand('sbatch', [], ['job.sh'], { files: { 'job.sh': '#!/bin/sh\n#SBATCH --bogus\ntrue\n' } });
    expect(result.exitCode).toBe(255);
    expect(result.stderr).toContain("sbatch: unrecognized option '--bogus'");
  });

  it('--help shows only registered options (the static table is not loaded in allocator context)', async () => {
    const { compilePlugin } = await import('./helpers/plugins.js');
    const options = compilePlugin('options_probe.c', { defines: { ONLY_MAIN: true } });
    const { result } = await recordCommand('sbatch', [], ['--help'], { extraLines: [`required ${options}`] });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('--reg-opt=[level]');
    expect(result.stdout).not.toContain('--static-opt');
  });
});

describe('salloc', () => {
  it('runs its command in the allocation; the srun in it joins the job; exit comes after the command', async () => {
    const { result, lines } = await recordCommand(
      'salloc',
      ['option=color', 'jcset=init_post_opt:TRACE=1'],
      ['-n', '2', '--color=c1', 'sh', '-c', 'echo in $SLURM_JOB_ID $SLURM_SPANK_TRACE; srun -l sh -c "echo \\$SLURM_STEP_ID"'],
    );
    expect(result.exitCode).toBe(0);
    const id = result.job!.jobId;
    expect(result.stderr).toBe(`salloc: Granted job allocation ${id}\nsalloc: Nodes node0 are ready for job\nsalloc: Relinquishing job allocation ${id}\n`);
    expect(result.stdout.split('\n').sort()).toEqual(['', '0: 0', '1: 0', `in ${id} 1`]);
    const sallocPid = contextOf(lines, ALLOCATOR)[0]!.fields.pid!;
    expect(byProcess(lines).get(sallocPid)).toEqual(['init', 'init_post_opt', 'exit']);
    // salloc's exit callback after the srun's.
    const exits = lines.filter((l) => l.callback === 'exit').map((l) => l.fields.ctx);
    expect(exits.at(-1)).toBe('3');
    expect(result.steps).toHaveLength(1);
    expect(result.steps[0]!.tasks).toHaveLength(2);
  });

  it('exits with its command’s exit code; the job fails when the command does', async () => {
    const { result } = await recordCommand('salloc', [], ['sh', '-c', 'exit 6']);
    expect(result.exitCode).toBe(6);
    expect(result.job).toMatchObject({ state: 'FAILED', exitCode: 6 << 8 });
  });

  it('-D naming a directory it cannot enter: chdir’s error right after init_post_opt, no allocation, error_exit', async () => {
    const { result, lines } = await recordCommand('salloc', [], ['-D', '/nonexistent/dir', 'pwd'], { env: { SLURM_EXIT_ERROR: '9' } });
    expect(result.exitCode).toBe(9);
    expect(result.stderr).toBe('salloc: error: chdir(/nonexistent/dir): No such file or directory\n');
    expect(result.job).toBeUndefined();
    expect(lines.map((l) => l.callback)).toEqual(['init', 'init_post_opt', 'exit']);
  });

  it('--no-shell: the allocation alone, no command; salloc ends once it is granted (exit callbacks), plugstack cancels the job', async () => {
    const { result, lines, dir } = await recordCommand('salloc', [], ['--no-shell', '-n', '1', 'touch', 'ran'], { slurmVersion: '22.05' });
    expect(result.exitCode).toBe(0);
    expect(fs.existsSync(path.join(dir, 'ran'))).toBe(false);
    const id = result.job!.jobId;
    // A real 22.05: 'Granted job allocation N', exit 0, the job RUNNING
    // until scancel (then CANCELLED, ExitCode=0:0).
    expect(result.stderr).toBe(
      `salloc: Granted job allocation ${id}\n` +
        `plugstack: salloc --no-shell leaves job ${id} allocated until scancel or its time limit; plugstack cancels it as salloc ends\n`,
    );
    expect(result.job).toMatchObject({ state: 'CANCELLED', exitCode: 0 });
    // salloc's own callbacks, its exit included; then the job's epilog.
    expect(lines.filter((l) => l.fields.ctx === String(ALLOCATOR)).map((l) => l.callback)).toEqual(['init', 'init_post_opt', 'exit']);
    expect(lines.some((l) => l.callback === 'job_epilog')).toBe(true);
  });

  it('looks its command up as _fork_command does: along PATH, then its directory; error_exit when none is found or it does not exec', async () => {
    const missing = await recordCommand('salloc', [], ['/nonexistent/cmd'], { env: { SLURM_EXIT_ERROR: '7' } });
    expect(missing.result.exitCode).toBe(7);
    expect(missing.result.stderr).toContain('salloc: error: _fork_command: Unable to find command "/nonexistent/cmd"\n');
    // A file in PATH that is not executable: Slurm tests the directory, finds
    // it, and the exec fails.
    const bin = path.join(tempDir(), 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'notexec'), '#!/bin/sh\necho ran\n', { mode: 0o644 });
    const denied = await recordCommand('salloc', [], ['notexec'], { env: { PATH: `${bin}:/usr/bin:/bin` } });
    expect(denied.result.exitCode).toBe(1);
    expect(denied.result.stderr).toContain(`salloc: error: _fork_command: Unable to exec command "${bin}/notexec": Permission denied\n`);
    // The working directory last: a program there is found by its bare name.
    const here = await recordCommand('salloc', [], ['mine'], { files: { mine: '#!/bin/sh\necho mine ran\n' } });
    fs.chmodSync(path.join(here.dir, 'mine'), 0o755);
    const again = await here.stack.salloc({ args: ['mine'], cwd: here.dir, env: { PATH: '/usr/bin:/bin' } });
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toBe('mine ran\n');
  });

  it("starts its command as _fork_command does: leading a process group of its own, in salloc's session", async () => {
    // setpgid, not setsid: a command that opens /dev/tty finds salloc's
    // terminal, as under Slurm. Fields 5 and 6 of /proc/PID/stat: the
    // process group and the session.
    const probe = 'set -- $(cat /proc/$$/stat); echo "pid=$1 pgrp=$5 sid=$6"; set -- $(cat /proc/$PPID/stat); echo "salloc_sid=$6"';
    const { result } = await recordCommand('salloc', [], ['-n', '1', 'sh', '-c', probe]);
    expect(result.exitCode, result.stderr).toBe(0);
    const fields = Object.fromEntries(result.stdout.trim().split(/\s+/).map((kv) => kv.split('=') as [string, string]));
    expect(fields.pgrp).toBe(fields.pid);
    expect(fields.sid).toBe(fields.salloc_sid);
    expect(fields.sid).not.toBe(fields.pid);
  });

  it('keeps the job-control env from sbatch to the next srun, through SLURM_SPANK_*', async () => {
    const { result, lines } = await recordCommand('sbatch', ['jcset=init_post_opt:FROM_SBATCH=1', 'jcget=FROM_SBATCH'], [
      '-W',
      '--wrap',
      'srun true',
    ]);
    expect(result.exitCode).toBe(0);
    expect(result.steps).toHaveLength(2);
    expect(result.steps[1]!.jobId).toBe(result.job!.jobId);
    // sbatch set it after its own init ran; the srun in the job has it from
    // its first callback on.
    const sbatchInit = lines.find((l) => l.callback === 'init' && l.fields.ctx === '3')!;
    expect(sbatchInit.fields['jc.FROM_SBATCH']).toBe('ERR3004');
    const srunInit = lines.find((l) => l.callback === 'init' && l.fields.ctx === '1')!;
    expect(srunInit.fields['jc.FROM_SBATCH']).toBe('1');
    expect(fs.existsSync(result.output!.file)).toBe(true);
  });
});
