/**
 * The conformance scenarios: each runs on a real Slurm 22.05 and on
 * plugstack in 22.05 mode, and what the trace plugin and the command show
 * must be the same once ids, pids and ports are normalised.
 */

/** One line of plugstack.conf: the trace plugin with these arguments. */
export interface TraceLine {
  keyword: 'required' | 'optional';
  /** Arguments after log=...: fail=CB@CTX, ... */
  args?: string[];
}

export interface Scenario {
  name: string;
  /** The plugstack.conf, as trace plugin lines (slurmd is restarted when it changes). */
  stack: TraceLine[];
  command: 'srun' | 'sbatch' | 'salloc';
  args: string[];
  env?: Record<string, string>;
  /** The command prints `-l env`: compare the task environments instead of the lines. */
  taskEnv?: boolean;
  /** sbatch: the batch script given on standard input. */
  script?: string;
  /** srun, salloc: the command's standard input. */
  stdin?: string;
  /** Files to create in the working directory first (a batch script, say). */
  files?: Record<string, string>;
  /** Restart slurmd after the command (scenario 07). */
  restartSlurmd?: boolean;
  /** Only in these releases' comparisons (default: every release). */
  releases?: ('22.05' | '24.11')[];
  /**
   * Lines of stderr (matching this pattern) whose order is compared too
   * (stderr is otherwise compared as a sorted set).
   */
  stderrOrder?: string;
  /** The fixture plugin the stack lines name (default trace.c; environ.c for the whole-environment scenarios). */
  fixture?: string;
  /**
   * Files the command makes in its working directory (or below it), by
   * path relative to it: their names (job ids normalised) and lines are
   * compared (srun's -o, -e).
   */
  madeFiles?: RegExp;
}

const trace: TraceLine[] = [{ keyword: 'required' }];
const failing = (cb: string, ctx: number, keyword: TraceLine['keyword'] = 'required'): TraceLine[] => [{ keyword, args: [`fail=${cb}@${ctx}`] }];
const ECHO = 'echo task $SLURM_PROCID TRACE_SET=$TRACE_SET SPANK_TRACE=${SPANK_TRACE-unset}';
const NODES = 'echo nodelist=$SLURM_JOB_NODELIST nnodes=$SLURM_NNODES ntasks=${SLURM_NTASKS-unset}';
const PER_NODE = 'echo task $SLURM_PROCID ntasks=$SLURM_NTASKS per_node=${SLURM_NTASKS_PER_NODE-unset}';

export const scenarios: Scenario[] = [
  { name: '01b srun -n 3 -O --trace-opt=hello -l env', stack: trace, command: 'srun', args: ['-n', '3', '-O', '--trace-opt=hello', '-l', 'env'], taskEnv: true },
  {
    name: '02 option from SLURM_SPANK__SLURM_SPANK_OPTION_trace_trace_opt',
    stack: trace,
    command: 'srun',
    args: ['-n', '3', '-O', '-l', 'env'],
    env: { SLURM_SPANK__SLURM_SPANK_OPTION_trace_trace_opt: 'hello' },
    taskEnv: true,
  },
  { name: "03 sbatch --trace-opt=x --wrap 'srun -n 2 true'", stack: trace, command: 'sbatch', args: ['--trace-opt=x', '--wrap', 'srun -n 2 true'] },
  { name: "04 srun -n 1 sh -c 'exit 3'", stack: trace, command: 'srun', args: ['-n', '1', 'sh', '-c', 'exit 3'] },
  { name: '05 salloc -n 2 --trace-opt=alloc srun -n 2 ...', stack: trace, command: 'salloc', args: ['-n', '2', '--trace-opt=alloc', 'srun', '-n', '2', 'sh', '-c', ECHO] },
  { name: "06 srun -n 2 sh -c 'echo ...'", stack: trace, command: 'srun', args: ['-n', '2', 'sh', '-c', 'echo task $SLURM_PROCID TRACE_SET=$TRACE_SET'] },
  { name: '07 slurmd restart', stack: trace, command: 'srun', args: ['true'], restartSlurmd: true },
  { name: 'exit codes of several tasks', stack: trace, command: 'srun', args: ['-n', '2', 'sh', '-c', 'exit $((SLURM_PROCID + 4))'] },
  { name: 'a task killed by a signal', stack: trace, command: 'srun', args: ['-n', '2', 'sh', '-c', '[ $SLURM_PROCID = 1 ] && kill -TERM $$; true'] },
  { name: 'sbatch job-control env in the batch job', stack: trace, command: 'sbatch', args: ['--wrap', 'env | grep -E "^(SLURM_SPANK|TRACE_SET|SPANK)" | sort'] },
  { name: 'an option given twice: every callback runs, the last value wins', stack: trace, command: 'srun', args: ['--trace-opt=a', '--trace-opt', 'b c', 'true'] },
  { name: 'a missing option argument', stack: trace, command: 'srun', args: ['true', '--trace-opt'] },
  { name: 'an unknown option', stack: trace, command: 'srun', args: ['--no-such-option', 'true'] },
  { name: 'no command given', stack: trace, command: 'srun', args: ['-n', '1'] },
  { name: "salloc's command fails", stack: trace, command: 'salloc', args: ['sh', '-c', 'exit 5'] },
  { name: 'sbatch with a script that does not exist', stack: trace, command: 'sbatch', args: ['no-such-script.sh'] },
  {
    name: 'sbatch: #SBATCH lines, then the inner srun sees the option',
    stack: trace,
    command: 'sbatch',
    args: ['job.sh', 'arg1'],
    files: { 'job.sh': '#!/bin/sh\n#SBATCH --trace-opt=fromscript\n#SBATCH -J scripted\necho name=$SLURM_JOB_NAME args=$*\nsrun sh -c \'echo inner $SLURM_STEP_ID $SLURM_SPANK__SLURM_SPANK_OPTION_trace_trace_opt\'\n' },
  },
  { name: 'sbatch -o and -W with a failing script', stack: trace, command: 'sbatch', args: ['-W', '-o', 'out-%j.txt', '--wrap', 'echo failing; exit 6'] },
  { name: 'sbatch -W with a script a signal ends (sbatch exits 1)', stack: trace, command: 'sbatch', args: ['-W', '-o', 'out-%j.txt', '--wrap', 'echo killed; kill -USR1 $$'] },
  { name: 'srun --export=NONE,FOO=bar', stack: trace, command: 'srun', args: ['--export=NONE,FOO=bar', 'sh', '-c', 'echo FOO=$FOO HOME=${HOME-unset}'], env: { HOME: '/root' } },
  // --export lists (issue 14, a differential run): NONE ends srun's list, ALL anywhere passes srun's values.
  { name: 'srun --export=FOO=bar,NONE,BAR=no', stack: trace, command: 'srun', args: ['--export=FOO=bar,NONE,BAR=no', '/bin/sh', '-c', 'echo FOO=$FOO BAR=$BAR PATH=${PATH-unset}'] },
  { name: 'srun --export=X=1,ALL with X set', stack: trace, command: 'srun', args: ['--export=X=1,ALL', 'sh', '-c', 'echo X=$X'], env: { X: 'old' } },
  {
    name: "sbatch --export=NONE --trace-opt=q: the job's srun exports NONE too",
    stack: trace,
    command: 'sbatch',
    args: ['--export=NONE', '--trace-opt=q', '--wrap', 'MINE=1 srun /bin/sh -c "echo MINE=\\${MINE-unset} EXPORT=\\$SLURM_EXPORT_ENV"'],
  },
  { name: 'srun -l with stdout and stderr', stack: trace, command: 'srun', args: ['-n', '2', '-l', 'sh', '-c', 'echo out $SLURM_PROCID; echo err $SLURM_PROCID >&2'] },
  { name: 'srun -D, -J and -c', stack: trace, command: 'srun', args: ['-D', '/tmp', '-J', 'named', '-c', '2', 'sh', '-c', 'echo $(pwd) $SLURM_JOB_NAME $SLURM_CPUS_PER_TASK'] },
  {
    name: 'an option from the environment with an empty value',
    stack: trace,
    command: 'srun',
    args: ['true'],
    env: { SLURM_SPANK__SLURM_SPANK_OPTION_trace_trace_opt: '' },
  },
  {
    name: 'sbatch --export=NONE keeps the SPANK variables',
    stack: trace,
    command: 'sbatch',
    args: ['--export=NONE', '--trace-opt=q', '--wrap', '/usr/bin/env | /usr/bin/sort | /bin/grep -E "SPANK|^PATH=|^HOME="'],
    env: { HOME: '/root' },
  },
  {
    name: 'salloc with an option, and the srun inside giving its own',
    stack: trace,
    command: 'salloc',
    args: ['--trace-opt=outer', 'srun', '--trace-opt=inner', 'true'],
  },
  {
    name: 'the option in the environment and on the command line',
    stack: trace,
    command: 'srun',
    args: ['--trace-opt=argv', 'true'],
    env: { SLURM_SPANK__SLURM_SPANK_OPTION_trace_trace_opt: 'env' },
  },
  { name: 'built-in options that change nothing here', stack: trace, command: 'srun', args: ['--mpi=none', '-t', '1', '-p', 'debug', '--overcommit', 'true'] },
  { name: 'srun -n 4 -O -l with task exit codes', stack: trace, command: 'srun', args: ['-n', '4', '-O', '-l', 'sh', '-c', 'echo $SLURM_LOCALID; exit $((SLURM_PROCID % 2))'] },
  {
    name: 'sbatch reading its script from standard input',
    stack: trace,
    command: 'sbatch',
    args: ['--trace-opt=stdin'],
    script: '#!/bin/sh\n#SBATCH -J fromstdin\necho name=$SLURM_JOB_NAME\n',
  },
  { name: "a plugin's killpg(0, SIGTERM) in task_exit", stack: trace, fixture: 'killpg_task_exit.c', command: 'srun', args: ['-n', '2', '-O', 'sh', '-c', 'echo ok $SLURM_PROCID'] },
  // What each process blocks, catches and ignores when plugin code runs in it.
  { name: 'signal masks: srun -n 2 (srun, prolog, slurmstepd, tasks, epilog), then slurmd restarts', stack: trace, fixture: 'signal_mask.c', command: 'srun', args: ['-n', '2', '-O', 'true'], restartSlurmd: true },
  { name: "signal masks: sbatch --wrap 'srun true' (batch step, srun inside a job)", stack: trace, fixture: 'signal_mask.c', command: 'sbatch', args: ['--wrap', 'srun true'] },
  { name: 'signal masks: salloc -n 1 true', stack: trace, fixture: 'signal_mask.c', command: 'salloc', args: ['-n', '1', 'true'] },
  // Resource limits: slurmd's raised ones where plugin code runs, srun's and sbatch's in the tasks.
  {
    name: 'resource limits: srun -n 2 (SLURM_RLIMIT_* after init_post_opt, slurmd raised, the task gets srun\'s)',
    stack: [{ keyword: 'required', args: ['lower=7'] }],
    fixture: 'limits_probe.c',
    command: 'srun',
    args: ['-n', '2', '-O', 'sh', '-c', 'grep "core file" /proc/self/limits | tr -s " "; env | grep -c ^SLURM_RLIMIT_ || true'],
  },
  { name: 'resource limits: srun --propagate=CORE,NOFILE', stack: trace, fixture: 'limits_probe.c', command: 'srun', args: ['--propagate=CORE,NOFILE', 'sh', '-c', 'env | grep ^SLURM_RLIMIT_ || true'] },
  { name: 'resource limits: srun --propagate=core (not a name)', stack: trace, fixture: 'limits_probe.c', command: 'srun', args: ['--propagate=core', 'true'] },
  {
    name: 'resource limits: values a plugin set in local_user_init (malformed; marked and above the hard limit)',
    stack: [{ keyword: 'required', args: ['setenv=SLURM_RLIMIT_FSIZE:12x', 'setenv=SLURM_RLIMIT_NOFILE:U1099511627776'] }],
    fixture: 'limits_probe.c',
    command: 'srun',
    args: ['sh', '-c', 'env | grep ^SLURM_RLIMIT_ || true; grep "open files" /proc/self/limits | tr -s " "'],
  },
  { name: 'resource limits: sbatch --wrap', stack: trace, fixture: 'limits_probe.c', command: 'sbatch', args: ['--wrap', 'grep "core file" /proc/self/limits | tr -s " "; env | grep -c ^SLURM_RLIMIT_ || true'] },
  // SLURM_EXIT_ERROR: the status of what ends a command before its job runs.
  { name: 'SLURM_EXIT_ERROR=7: srun -p nosuch (allocation refused)', stack: trace, command: 'srun', args: ['-p', 'nosuch', 'true'], env: { SLURM_EXIT_ERROR: '7' } },
  { name: 'SLURM_EXIT_ERROR=7: srun --propagate=core', stack: trace, command: 'srun', args: ['--propagate=core', 'true'], env: { SLURM_EXIT_ERROR: '7' } },
  { name: 'SLURM_EXIT_ERROR=7: srun -i /nonexistent', stack: trace, command: 'srun', args: ['-i', '/nonexistent/input', 'true'], env: { SLURM_EXIT_ERROR: '7' } },
  { name: 'SLURM_EXIT_ERROR=7: srun -n 1000 (task count)', stack: trace, command: 'srun', args: ['-n', '1000', '-O', 'true'], env: { SLURM_EXIT_ERROR: '7' } },
  { name: 'SLURM_EXIT_ERROR=7: sbatch -p nosuch (submission refused)', stack: trace, command: 'sbatch', args: ['-p', 'nosuch', '--wrap', 'true'], env: { SLURM_EXIT_ERROR: '7' } },
  { name: 'SLURM_EXIT_ERROR=7: sbatch --propagate=core', stack: trace, command: 'sbatch', args: ['--propagate=core', '--wrap', 'true'], env: { SLURM_EXIT_ERROR: '7' } },
  { name: 'SLURM_EXIT_ERROR=7: salloc -p nosuch', stack: trace, command: 'salloc', args: ['-p', 'nosuch', 'true'], env: { SLURM_EXIT_ERROR: '7' } },
  { name: 'SLURM_EXIT_ERROR=7: salloc /nonexistent/cmd (its command not found)', stack: trace, command: 'salloc', args: ['/nonexistent/cmd'], env: { SLURM_EXIT_ERROR: '7' } },
  { name: 'SLURM_EXIT_ERROR=7: sbatch /nonexistent/job.sh (no script)', stack: trace, command: 'sbatch', args: ['/nonexistent/job.sh'], env: { SLURM_EXIT_ERROR: '7' } },
  { name: 'SLURM_EXIT_ERROR=7: srun /nonexistent/cmd (the task\'s execve fails: 2 all the same)', stack: trace, command: 'srun', args: ['/nonexistent/cmd'], env: { SLURM_EXIT_ERROR: '7' } },
  { name: 'a task that dumps core', stack: trace, command: 'srun', args: ['sh', '-c', 'ulimit -c unlimited; kill -SEGV $$'] },
  // --test-only: slurmctld's answer, nothing runs; --parsable: the job id alone.
  { name: 'srun --test-only', stack: trace, command: 'srun', args: ['--test-only', 'true'] },
  { name: 'sbatch --test-only', stack: trace, command: 'sbatch', args: ['--test-only', '--wrap', 'true'] },
  { name: 'sbatch --parsable', stack: trace, command: 'sbatch', args: ['--parsable', '-o', '/dev/null', '--wrap', 'true'] },
  { name: 'srun --test-only -p nosuch (allocation failure)', stack: trace, command: 'srun', args: ['--test-only', '-p', 'nosuch', 'true'] },
  { name: 'sbatch --test-only -p nosuch (allocation failure)', stack: trace, command: 'sbatch', args: ['--test-only', '-p', 'nosuch', '--wrap', 'true'] },
  // srun killing its own step: -K at the first bad exit (SIG_TERM_KILL), -W's alarm after the first exit (SIGKILL).
  // Task 1 execs its sleep: once (a CI run, the machine loaded) the real
  // 22.05's task 1 was still a shell waiting for it, which printed
  // "Terminated" and exited 143 where the sleep alone dies of the SIGTERM
  // (exit 15, as every other run on both sides).
  { name: 'srun -K -n 2: the first task that ends badly has the step terminated', stack: trace, command: 'srun', args: ['-K', '-n', '2', '-O', 'sh', '-c', 'test $SLURM_PROCID = 0 && { sleep 1; exit 3; }; exec sleep 4'] },
  { name: 'srun -W 1 -n 2: the step killed a second after its first task ended', stack: trace, command: 'srun', args: ['-W', '1', '-n', '2', '-O', 'sh', '-c', 'test $SLURM_PROCID = 0 && exit 0; sleep 5'] },
  // -D naming a directory that does not exist: salloc stops; slurmstepd runs the tasks in /tmp.
  { name: 'SLURM_EXIT_ERROR=7: salloc -D /nonexistent/dir', stack: trace, command: 'salloc', args: ['-D', '/nonexistent/dir', 'pwd'], env: { SLURM_EXIT_ERROR: '7' } },
  { name: 'srun -D /nonexistent/dir pwd', stack: trace, command: 'srun', args: ['-D', '/nonexistent/dir', 'pwd'] },
  // A batch step's output file in a directory that does not exist: 24.11's slurmstepd makes it, 22.05's fails the IO setup.
  { name: 'sbatch -W -o into a directory that does not exist', stack: trace, command: 'sbatch', args: ['-W', '-o', 'made/by/stepd/out-%j.txt', '--wrap', 'echo hi'] },
  { name: 'sbatch -W -e into a directory that does not exist', stack: trace, command: 'sbatch', args: ['-W', '-e', 'made/err-%j.txt', '--wrap', 'echo oops >&2; echo fine'] },
  // srun's -o and -e: srun's own file (every task's output and error,
  // labelled with -l), one task's alone, /dev/null, each task's file made
  // by its node; --open-mode; -l's labels padded to the widest task id.
  { name: 'srun -l -o FILE: every task output and error in the file srun opens, labelled', stack: trace, command: 'srun', args: ['-n', '2', '-O', '-l', '-o', 'out-job%j.txt', 'sh', '-c', 'echo task $SLURM_PROCID; echo err $SLURM_PROCID >&2'], madeFiles: /^out/ },
  { name: 'srun -o and -e per task (%t, %2t): the files each node makes', stack: trace, command: 'srun', args: ['-n', '2', '-O', '-o', 'out-%t.txt', '-e', 'err-%2t.txt', 'sh', '-c', 'echo task $SLURM_PROCID; echo err $SLURM_PROCID >&2'], madeFiles: /^(out|err)/ },
  { name: 'srun -o into a directory that does not exist', stack: trace, command: 'srun', args: ['-o', 'made/dir/out.txt', 'echo', 'hi'], madeFiles: /^made/ },
  { name: 'srun -o under a file that is not a directory', stack: trace, command: 'srun', args: ['-o', 'afile/x.txt', 'echo', 'hi'], files: { afile: '' }, madeFiles: /^afile/ },
  { name: 'srun -o N: that task output and error alone', stack: trace, command: 'srun', args: ['-n', '2', '-O', '-o', '1', 'sh', '-c', 'echo task $SLURM_PROCID; echo err $SLURM_PROCID >&2'] },
  { name: 'srun -o N -e FILE', stack: trace, command: 'srun', args: ['-n', '2', '-O', '-o', '1', '-e', 'e.txt', 'sh', '-c', 'echo task $SLURM_PROCID; echo err $SLURM_PROCID >&2'], madeFiles: /^e\./ },
  { name: 'srun -o none -e FILE', stack: trace, command: 'srun', args: ['-n', '2', '-O', '-o', 'none', '-e', 'err.txt', 'sh', '-c', 'echo task $SLURM_PROCID; echo err $SLURM_PROCID >&2'], madeFiles: /^err/ },
  { name: 'srun -o and -e naming the same file', stack: trace, command: 'srun', args: ['-o', 'same.txt', '-e', 'same.txt', 'sh', '-c', 'echo out; echo err >&2'], madeFiles: /^same/ },
  { name: 'srun --open-mode=append -o FILE', stack: trace, command: 'srun', args: ['--open-mode=append', '-o', 'app.txt', 'echo', 'two'], files: { 'app.txt': 'one\n' }, madeFiles: /^app/ },
  // Job arrays: each task a job of its own, run one after another (the
  // real cluster's select/linear gives a job the whole node), the first
  // tasks with new ids, the last with the array's; the batch step's array
  // items are the launch's, an srun step's its environment's.
  {
    name: 'sbatch -W --array=1-5:2: each task its own job, files by %A_%a, an srun inside each',
    stack: trace,
    command: 'sbatch',
    args: ['-W', '--array=1-5:2', '-o', 'job%A_%a.out', '--wrap', 'echo task $SLURM_ARRAY_TASK_ID job $SLURM_JOB_ID array job $SLURM_ARRAY_JOB_ID count $SLURM_ARRAY_TASK_COUNT min $SLURM_ARRAY_TASK_MIN max $SLURM_ARRAY_TASK_MAX step $SLURM_ARRAY_TASK_STEP; srun true'],
    madeFiles: /^job/,
  },
  { name: 'sbatch -W --array: the highest task exit code; slurm-%A_%a.out', stack: trace, command: 'sbatch', args: ['-W', '--array=2,1,3%1', '--wrap', 'echo $SLURM_ARRAY_TASK_ID; exit $((4 - SLURM_ARRAY_TASK_ID))'], madeFiles: /^slurm-/ },
  { name: 'sbatch --array=3-1 (refused)', stack: trace, command: 'sbatch', args: ['--array=3-1', '--wrap', 'true'] },
  { name: 'sbatch --test-only --array=0-4:2%2', stack: trace, command: 'sbatch', args: ['--test-only', '--array=0-4:2%2', '--wrap', 'true'] },
  // -m/--distribution: what srun, salloc and sbatch write for it, and the
  // values their setter refuses (one node: the layout itself is the same).
  { name: 'srun -n 2 -m plane=2 -l env', stack: trace, command: 'srun', args: ['-n', '2', '-O', '-m', 'plane=2', '-l', 'env'], taskEnv: true },
  { name: "srun -m '*:fcyclic,nopack'", stack: trace, command: 'srun', args: ['-n', '2', '-O', '-m', '*:fcyclic,nopack', '-l', 'sh', '-c', 'echo $SLURM_DISTRIBUTION ${SLURM_DIST_PLANESIZE-none}'] },
  { name: 'srun -m plane with SLURM_DIST_PLANESIZE=3', stack: trace, command: 'srun', args: ['-m', 'plane', 'sh', '-c', 'echo $SLURM_DISTRIBUTION $SLURM_DIST_PLANESIZE'], env: { SLURM_DIST_PLANESIZE: '3' } },
  { name: 'srun -m plane (no size: refused)', stack: trace, command: 'srun', args: ['-m', 'plane', 'true'], stderrOrder: 'Invalid' },
  { name: 'srun -m block:block:block:block (refused)', stack: trace, command: 'srun', args: ['-m', 'block:block:block:block', 'true'] },
  { name: 'salloc -m cyclic: the allocation and the srun inside', stack: trace, command: 'salloc', args: ['-n', '2', '-m', 'cyclic', 'sh', '-c', 'echo salloc $SLURM_DISTRIBUTION; srun -n 2 -l sh -c "echo \\$SLURM_DISTRIBUTION"'] },
  { name: 'sbatch -W -m plane=3: the batch job and the srun inside', stack: trace, command: 'sbatch', args: ['-W', '-n', '2', '-m', 'plane=3', '-o', 'job.out', '--wrap', 'echo batch $SLURM_DISTRIBUTION $SLURM_DIST_PLANESIZE; srun -n 2 -l sh -c "echo \\$SLURM_DISTRIBUTION \\$SLURM_DIST_PLANESIZE"'], madeFiles: /^job\.out/ },
  { name: 'sbatch -m bogus (refused)', stack: trace, command: 'sbatch', args: ['-m', 'bogus', '--wrap', 'true'] },
  { name: 'srun -n 2 -m arbitrary without -w', stack: trace, command: 'srun', args: ['-n', '2', '-m', 'arbitrary', 'true'] },
  { name: 'salloc -m arbitrary without -w', stack: trace, command: 'salloc', args: ['-m', 'arbitrary', 'true'] },
  { name: 'sbatch -m arbitrary without -w', stack: trace, command: 'sbatch', args: ['-m', 'arbitrary', '--wrap', 'true'] },
  { name: 'srun -m arbitrary -w node0', stack: trace, command: 'srun', args: ['-m', 'arbitrary', '-w', 'node0', 'sh', '-c', 'echo $SLURM_DISTRIBUTION'] },
  { name: 'srun -m arbitrary -w node0,node0: a task per name listed', stack: trace, command: 'srun', args: ['-m', 'arbitrary', '-w', 'node0,node0', '-l', 'sh', '-c', 'echo $SLURM_NTASKS $SLURM_NPROCS $SLURM_TASKS_PER_NODE $SLURM_NNODES'] },
  { name: "srun -m arbitrary -w 'node[0,0]' with SLURM_NTASKS=5 (ignored)", stack: trace, command: 'srun', args: ['-m', 'arbitrary', '-w', 'node[0,0]', '-l', 'sh', '-c', 'echo $SLURM_NTASKS'], env: { SLURM_NTASKS: '5' } },
  { name: 'srun -m arbitrary without -n or -w: invalid number of tasks', stack: trace, command: 'srun', args: ['-m', 'arbitrary', 'true'] },
  { name: 'srun -m arbitrary -n 1 -w node0,node0: the step is refused', stack: trace, command: 'srun', args: ['-m', 'arbitrary', '-n', '1', '-w', 'node0,node0', 'true'] },
  { name: 'srun -m arbitrary inside an allocation: the list against -n, and a task per name', stack: trace, command: 'salloc', args: ['-n', '2', 'sh', '-c', 'srun -m arbitrary -n 1 -w node0,node0 true; echo mismatch $?; srun -m arbitrary -w node0,node0 -l sh -c "echo \\$SLURM_NTASKS \\$SLURM_STEP_NUM_TASKS \\$SLURM_TASKS_PER_NODE"'] },
  // -w without -m arbitrary: the job's required nodes.
  { name: 'srun -w node0: the job on the node named', stack: trace, command: 'srun', args: ['-w', 'node0', 'sh', '-c', NODES] },
  { name: 'srun -w node0,node0: each node once', stack: trace, command: 'srun', args: ['-w', 'node0,node0', 'sh', '-c', NODES] },
  { name: 'srun -w naming no node of the cluster', stack: trace, command: 'srun', args: ['-w', 'nodeX', 'true'] },
  { name: "srun -w 'node[1-0]': a list the hostlist refuses", stack: trace, command: 'srun', args: ['-w', 'node[1-0]', 'true'] },
  { name: "srun -w 'node[0-1' (22.05: a host name; 24.11: refused)", stack: trace, command: 'srun', args: ['-w', 'node[0-1', 'true'] },
  { name: 'srun -n 1 -w node0,nodeX: fewer tasks than nodes drops the last one', stack: trace, command: 'srun', args: ['-n', '1', '-w', 'node0,nodeX', 'sh', '-c', NODES] },
  { name: 'srun -N 1 -w node0,nodeX: more nodes listed than -N allows', stack: trace, command: 'srun', args: ['-N', '1', '-w', 'node0,nodeX', 'true'] },
  { name: 'srun -N 1-2 -w node0', stack: trace, command: 'srun', args: ['-N', '1-2', '-w', 'node0', 'sh', '-c', NODES] },
  { name: 'salloc -w naming no node of the cluster', stack: trace, command: 'salloc', args: ['-w', 'nodeX', 'true'] },
  { name: 'sbatch -w naming no node of the cluster', stack: trace, command: 'sbatch', args: ['-w', 'nodeX', '--wrap', 'true'] },
  { name: "salloc -w 'node[1-0]'", stack: trace, command: 'salloc', args: ['-w', 'node[1-0]', 'true'] },
  { name: "sbatch -w 'node[1-0]'", stack: trace, command: 'sbatch', args: ['-w', 'node[1-0]', '--wrap', 'true'] },
  { name: 'sbatch -n 1 -w node0,nodeX (22.05 drops nodeX; 24.11 sends both)', stack: trace, command: 'sbatch', args: ['-n', '1', '-w', 'node0,nodeX', '--wrap', 'true'] },
  { name: 'srun -w inside an allocation: a node of the job, and one it does not have', stack: trace, command: 'salloc', args: ['-w', 'node0', 'sh', '-c', `${NODES}; srun -w node0 true; echo in=$?; srun -w nodeX true; echo bad=$?`] },
  // -x: nodes the job may not have; -m arbitrary's hosts are the job's nodes too.
  { name: 'srun -x naming no node of the cluster', stack: trace, command: 'srun', args: ['-x', 'nodeX', 'true'] },
  { name: "srun -x 'node[1-0]': slurmctld reads the list", stack: trace, command: 'srun', args: ['-x', 'node[1-0]', 'true'] },
  { name: 'srun -x node0,nodeX', stack: trace, command: 'srun', args: ['-x', 'node0,nodeX', 'true'] },
  { name: 'srun -w node0 -x node0: required and excluded', stack: trace, command: 'srun', args: ['-w', 'node0', '-x', 'node0', 'true'] },
  { name: 'sbatch -x naming no node of the cluster', stack: trace, command: 'sbatch', args: ['-x', 'nodeX', '--wrap', 'true'] },
  // -x naming a file (it has a '/'): read as -w's.
  { name: 'srun -x naming a file of a name that is no node', stack: trace, command: 'srun', args: ['-x', './hosts', 'true'], files: { hosts: 'nodeX\n' } },
  { name: 'srun -x naming a file with a line that is not a host', stack: trace, command: 'srun', args: ['-x', './hosts', 'true'], files: { hosts: 'node0\n%bad\n' } },
  { name: 'salloc -x naming a file that does not exist', stack: trace, command: 'salloc', args: ['-x', './nofile', 'true'] },
  { name: 'sbatch -x naming a file of a name that is no node', stack: trace, command: 'sbatch', args: ['-x', './hosts', '--wrap', 'true'], files: { hosts: 'nodeX\n' } },
  // User mistakes the commands refuse, and a time limit past Node's longest timer (24.8 days).
  { name: 'sbatch of a script with DOS line breaks', stack: trace, command: 'sbatch', args: ['crlf.sh'], files: { 'crlf.sh': '#!/bin/sh\r\necho hi\r\n' } },
  { name: 'sbatch --wrap with script arguments', stack: trace, command: 'sbatch', args: ['--wrap', 'true', 'extra'] },
  { name: 'srun --export= (no names: Slurm\'s variables alone)', stack: trace, command: 'srun', args: ['--export=', '/bin/sh', '-c', 'echo FOO=${FOO-unset}'], env: { FOO: 'foo' } },
  { name: 'srun -N 0: slurmctld refuses it; inside a job it is a step of one node', stack: trace, command: 'salloc', args: ['-N', '1', 'sh', '-c', 'srun -N 0 hostname >/dev/null; echo inside=$?'] },
  { name: 'srun -N 0', stack: trace, command: 'srun', args: ['-N', '0', 'true'] },
  { name: 'salloc --ntasks-per-node=0', stack: trace, command: 'salloc', args: ['--ntasks-per-node=0', 'true'] },
  { name: 'srun --mail-type=bogus, and one type it knows among others', stack: trace, command: 'salloc', args: ['sh', '-c', 'srun --mail-type=bogus true; echo bogus=$?; srun --mail-type=END,bogus true; echo mixed=$?'] },
  { name: 'srun --signal=BOGUS', stack: trace, command: 'srun', args: ['--signal=BOGUS', 'true'] },
  { name: 'sbatch --signal=USR1@abc', stack: trace, command: 'sbatch', args: ['--signal=USR1@abc', '--wrap', 'true'] },
  { name: 'sbatch --open-mode=bogus', stack: trace, command: 'sbatch', args: ['--open-mode=bogus', '--wrap', 'true'] },
  // srun's own prolog and epilog: the step's program as their arguments, SLURM_SCRIPT_CONTEXT for the tasks.
  { name: 'srun --prolog and --epilog', stack: trace, command: 'srun', args: ['--prolog=/bin/echo', '--epilog=/bin/echo', 'sh', '-c', 'echo task $SLURM_SCRIPT_CONTEXT'] },
  { name: 'srun --prolog naming no file', stack: trace, command: 'srun', args: ['--prolog=./nope.sh', 'true'] },
  { name: 'srun -W abc', stack: trace, command: 'srun', args: ['-W', 'abc', 'true'] },
  { name: 'srun --kill-on-bad-exit=abc', stack: trace, command: 'srun', args: ['--kill-on-bad-exit=abc', 'true'] },
  { name: 'srun -- sh: the options end at --', stack: trace, command: 'srun', args: ['-n', '1', '--', 'sh', '-c', 'echo $#'] },
  { name: 'srun -t 30-0: a time limit of thirty days', stack: trace, command: 'srun', args: ['-t', '30-0', 'sh', '-c', 'sleep 1; echo done'] },
  // Inside a job srun applies -x itself, then slurmctld reads the names.
  {
    name: 'srun -x inside an allocation: the only node, a file naming it, no node, one -w lists too; -N beyond the job',
    stack: trace,
    command: 'salloc',
    args: ['-N', '1', 'sh', '-c', 'srun -x node0 true; echo only=$?; srun -x ./hosts true; echo file=$?; srun -x nodeX true; echo none=$?; srun -w node0 -x node0 true; echo both=$?; srun -N 2 true; echo beyond=$?; srun -x node0,nodeX -n 1 true; echo some=$?'],
    files: { hosts: 'node0\n' },
  },
  { name: "sbatch --wrap 'srun -x node0 true': the job's only node", stack: trace, command: 'sbatch', args: ['--wrap', 'srun -x node0 true; echo only=$?; srun -x nodeX true; echo none=$?'] },
  { name: 'srun -m arbitrary -w naming no node of the cluster', stack: trace, command: 'srun', args: ['-m', 'arbitrary', '-w', 'nodeX', 'true'] },
  { name: 'srun -m arbitrary -n 2 -w node0,nodeX', stack: trace, command: 'srun', args: ['-m', 'arbitrary', '-n', '2', '-w', 'node0,nodeX', 'true'] },
  // 22.05's srun crashes on it (SIGSEGV after the hostlist's error line).
  { name: "srun -m arbitrary -w 'node[1-0]'", stack: trace, command: 'srun', args: ['-m', 'arbitrary', '-w', 'node[1-0]', 'true'], releases: ['24.11'] },
  { name: "salloc -m arbitrary -w 'node[1-0]'", stack: trace, command: 'salloc', args: ['-m', 'arbitrary', '-w', 'node[1-0]', 'true'] },
  { name: 'SLURM_HOSTFILE without -w: arbitrary, a task per host (comments, name*N)', stack: trace, command: 'srun', args: ['-l', 'sh', '-c', 'echo $SLURM_NTASKS $SLURM_DISTRIBUTION $SLURM_TASKS_PER_NODE'], env: { SLURM_HOSTFILE: 'hosts' }, files: { hosts: '# two tasks\nnode0*2 # both here\n' } },
  { name: 'SLURM_HOSTFILE with -n 2: as many hosts as tasks read', stack: trace, command: 'srun', args: ['-n', '2', '-l', 'sh', '-c', 'echo $SLURM_NTASKS $SLURM_DISTRIBUTION'], env: { SLURM_HOSTFILE: 'hosts' }, files: { hosts: 'node0\nnode0,node0\n' } },
  { name: 'SLURM_HOSTFILE with -w: the list wins', stack: trace, command: 'srun', args: ['-w', 'node0', 'sh', '-c', 'echo $SLURM_NTASKS $SLURM_DISTRIBUTION'], env: { SLURM_HOSTFILE: 'hosts' }, files: { hosts: 'node0\nnode0\n' } },
  { name: 'SLURM_HOSTFILE that does not exist', stack: trace, command: 'srun', args: ['true'], env: { SLURM_HOSTFILE: 'nohosts', SLURM_EXIT_ERROR: '7' } },
  { name: 'SLURM_HOSTFILE with fewer hosts than -n', stack: trace, command: 'srun', args: ['-n', '2', 'true'], env: { SLURM_HOSTFILE: 'hosts' }, files: { hosts: 'node0\n' } },
  { name: 'SLURM_HOSTFILE with a line that is not a host', stack: trace, command: 'srun', args: ['true'], env: { SLURM_HOSTFILE: 'hosts' }, files: { hosts: 'node0\n-x\n' } },
  { name: 'srun -m arbitrary -w naming a file', stack: trace, command: 'srun', args: ['-m', 'arbitrary', '-w', './hosts', '-l', 'sh', '-c', 'echo $SLURM_NTASKS $SLURM_DISTRIBUTION'], files: { hosts: 'node0,node0\n' } },
  { name: 'salloc with SLURM_HOSTFILE: the allocation', stack: trace, command: 'salloc', args: ['sh', '-c', 'echo salloc $SLURM_NTASKS $SLURM_DISTRIBUTION $SLURM_TASKS_PER_NODE'], env: { SLURM_HOSTFILE: 'hosts' }, files: { hosts: 'node0\nnode0\n' } },
  { name: 'salloc -m arbitrary -w node0,node0: its sruns lay their tasks out from SLURM_ARBITRARY_NODELIST', stack: trace, command: 'salloc', args: ['-m', 'arbitrary', '-w', 'node0,node0', 'sh', '-c', 'srun -n 2 -l sh -c "echo \\$SLURM_STEP_NUM_TASKS"; echo two $?; srun -n 1 true; echo one $?'] },
  { name: 'salloc -m arbitrary -w node0,node0: the allocation and an srun inside', stack: trace, command: 'salloc', args: ['-m', 'arbitrary', '-w', 'node0,node0', 'sh', '-c', 'echo salloc $SLURM_NTASKS $SLURM_TASKS_PER_NODE $SLURM_DISTRIBUTION; srun true; echo srun $?'] },
  { name: 'sbatch -W -m arbitrary -w node0,node0: the batch job and an srun inside', stack: trace, command: 'sbatch', args: ['-W', '-m', 'arbitrary', '-w', 'node0,node0', '-o', 'job.out', '--wrap', 'echo batch $SLURM_NTASKS $SLURM_TASKS_PER_NODE $SLURM_DISTRIBUTION; srun true; echo srun $?'], madeFiles: /^job\.out/ },
  { name: 'sbatch -W --open-mode=append -o FILE', stack: trace, command: 'sbatch', args: ['-W', '--open-mode=append', '-o', 'app.out', '--wrap', 'echo two'], files: { 'app.out': 'one\n' }, madeFiles: /^app/ },
  { name: 'srun -o with %n, %u and %s', stack: trace, command: 'srun', args: ['-o', 'o-%n-%u-%s.txt', 'echo', 'hi'], madeFiles: /^o-/ },
  { name: 'srun -o per task under a file: the launch fails on the node', stack: trace, command: 'srun', args: ['-o', 'afile/x-%t.txt', 'echo', 'hi'], files: { afile: '' }, madeFiles: /^afile/ },
  { name: 'srun -o per task into a directory that does not exist', stack: trace, command: 'srun', args: ['-o', 'mk/x-%t.txt', 'echo', 'hi'], madeFiles: /^mk/ },
  { name: 'srun -l -o per task into a directory that does not exist (slurmstepd writes the labels: no directory made)', stack: trace, command: 'srun', args: ['-l', '-o', 'mk/x-%t.txt', 'echo', 'hi'], madeFiles: /^mk/ },
  { name: "srun -o per task: one task's file fails, the next task's is still made", stack: trace, command: 'srun', args: ['-n', '2', '-O', '-o', 'd%t/x.txt', 'echo', 'hi'], files: { d0: '' }, madeFiles: /^d\d/ },
  { name: 'srun -l -o per task: each file labelled', stack: trace, command: 'srun', args: ['-n', '2', '-O', '-l', '-o', 'lab-%t.txt', 'sh', '-c', 'echo task $SLURM_PROCID; printf partial'], madeFiles: /^lab/ },
  { name: 'srun -l with 11 tasks: labels padded to the widest task id', stack: trace, command: 'srun', args: ['-n', '11', '-O', '-l', 'sh', '-c', 'echo task $SLURM_PROCID'] },
  { name: "salloc --x11 without DISPLAY", stack: trace, command: 'salloc', args: ['--x11', 'true'] },
  { name: "srun --x11 without DISPLAY, and a plugin's x11 option", stack: trace, fixture: 'x11_option.c', command: 'srun', args: ['--x11', 'true'] },
  { name: "srun --x11 with a display whose socket is missing", stack: trace, command: 'srun', args: ['--x11', 'true'], env: { DISPLAY: ':4242' } },
  {
    name: 'spank_prepend_task_argv in task_init (22.05: undefined)',
    stack: trace,
    fixture: 'prepend_argv.c',
    command: 'srun',
    args: ['-n', '2', '-O', '-l', 'sh', '-c', 'echo task $SLURM_PROCID PREPENDED=$PREPENDED'],
  },
  { name: 'required: init fails remotely', stack: failing('init', 2), command: 'srun', args: ['true'] },
  { name: 'required: init_post_opt fails remotely', stack: failing('init_post_opt', 2), command: 'srun', args: ['true'] },
  {
    name: 'required: user_init fails',
    stack: failing('user_init', 2),
    command: 'srun',
    args: ['-n', '2', '-O', 'true'],
    // 24.11: task 0's exit line before the launch failures.
    stderrOrder: '^srun: error: .*(launch failed|Exited with exit code)',
  },
  { name: 'sbatch, required: user_init fails in the batch step', stack: failing('user_init', 2), command: 'sbatch', args: ['--wrap', 'true'] },
  { name: 'sbatch, required: task_init fails in the batch step', stack: failing('task_init', 2), command: 'sbatch', args: ['--wrap', 'true'] },
  { name: 'required: task_init_privileged fails', stack: failing('task_init_privileged', 2), command: 'srun', args: ['true'] },
  { name: 'required: task_post_fork fails', stack: failing('task_post_fork', 2), command: 'srun', args: ['true'] },
  { name: 'required: task_init fails', stack: failing('task_init', 2), command: 'srun', args: ['true'] },
  { name: 'required: task_exit fails', stack: failing('task_exit', 2), command: 'srun', args: ['true'] },
  { name: 'required: exit fails remotely', stack: failing('exit', 2), command: 'srun', args: ['true'] },
  { name: 'required: local_user_init fails', stack: failing('local_user_init', 1), command: 'srun', args: ['true'] },
  { name: 'optional: user_init fails', stack: failing('user_init', 2, 'optional'), command: 'srun', args: ['true'] },
  { name: 'required: job_prolog fails', stack: failing('job_prolog', 5), command: 'srun', args: ['true'] },
  { name: 'required: job_epilog fails', stack: failing('job_epilog', 5), command: 'srun', args: ['true'] },
  // slurm_load_job from the job prolog and epilog (job_record.c). 24.11 only:
  // the plugin reads the record through its header's layout, and plugstack's
  // header has 24.11's (22.05 is checked with Debian's header in
  // test/job-record-scripts.test.ts, against what a real 22.05 answered).
  { name: 'slurm_load_job in the job prolog and epilog without slurm_init: the helper dies', stack: [{ keyword: 'required' }], fixture: 'job_record.c', command: 'srun', args: ['true'], releases: ['24.11'] },
  {
    name: 'slurm_load_job with slurm_init: a batch job running, then ended by its script’s status with its srun’s derived code',
    stack: [{ keyword: 'required', args: ['init'] }],
    fixture: 'job_record.c',
    command: 'sbatch',
    args: ['-W', '--wrap', 'srun -n 1 sh -c "exit 4"; exit 3'],
    releases: ['24.11'],
  },
  {
    name: 'slurm_load_job with slurm_init: a job whose task a signal killed is FAILED with FAIL_SIGNAL',
    stack: [{ keyword: 'required', args: ['init'] }],
    fixture: 'job_record.c',
    command: 'srun',
    args: ['-n', '1', 'sh', '-c', 'kill -9 $$'],
    releases: ['24.11'],
  },
  // Not slurm_load_job in user_init under 24.11: its slurmstepd aborts (test/job-record-scripts.test.ts), after which the real srun may never end.
  // Task input (issue 14): srun's standard input, --input, salloc's command's.
  { name: 'srun sends its standard input to every task', stack: trace, command: 'srun', args: ['-n', '2', '-l', 'cat'], stdin: 'hi\nthere\n' },
  { name: 'srun --input=1: task 1 reads it, task 0 /dev/null', stack: trace, command: 'srun', args: ['-n', '2', '-l', '--input=1', 'sh', '-c', 'ls -l /proc/self/fd/0 | sed "s/.*-> //; s/:.*//"; cat'], stdin: 'one\n' },
  { name: 'srun --input=none: every task sees EOF', stack: trace, command: 'srun', args: ['-n', '2', '-l', '-i', 'none', 'sh', '-c', 'cat; echo eof'], stdin: 'unread\n' },
  { name: 'srun --input naming a file that does not exist', stack: trace, command: 'srun', args: ['-n', '2', '--input=no-such-input.txt', 'cat'] },
  { name: 'srun --input=%t naming files that do not exist', stack: trace, command: 'srun', args: ['-n', '2', '--input=no-such-input-%t.txt', 'cat'] },
  { name: "salloc's command reads salloc's standard input", stack: trace, command: 'salloc', args: ['sh', '-c', 'read line; echo got $line'], stdin: 'typed\n' },
  // S_STEP_ALLOC_MEM with --mem and --mem-per-cpu (the clusters' default SelectType: memory is not tracked).
  { name: 'S_STEP_ALLOC_MEM with --mem=1024', stack: trace, fixture: 'alloc_mem.c', command: 'srun', args: ['--mem=1024', 'true'] },
  { name: 'S_STEP_ALLOC_MEM with --mem-per-cpu=300', stack: trace, fixture: 'alloc_mem.c', command: 'srun', args: ['--mem-per-cpu=300', '-n', '2', 'true'] },
  { name: 'S_JOB_ALLOC_MEM in a batch job with --mem=512', stack: trace, fixture: 'alloc_mem.c', command: 'sbatch', args: ['--mem=512', '--wrap', 'srun true'] },
  // srun's --ntasks-per-node against the task and node counts in force (_opt_verify, which differs
  // between the releases), and slurmctld's refusal of a job it cannot lay out.
  { name: 'srun -n 2 -N 1 --ntasks-per-node=1 (22.05: warned and dropped; 24.11: refused)', stack: trace, command: 'srun', args: ['-n', '2', '-N', '1', '--ntasks-per-node=1', 'sh', '-c', PER_NODE] },
  { name: 'srun -n 1 -N 1 --ntasks-per-node=2 (22.05: dropped without a word)', stack: trace, command: 'srun', args: ['-n', '1', '-N', '1', '--ntasks-per-node=2', 'sh', '-c', PER_NODE] },
  { name: 'SLURM_NTASKS=2 srun -N 1 --ntasks-per-node=1 (24.11: the tasks of --ntasks-per-node)', stack: trace, command: 'srun', args: ['-N', '1', '--ntasks-per-node=1', 'sh', '-c', PER_NODE], env: { SLURM_NTASKS: '2' } },
  { name: 'salloc -n 2 srun --ntasks-per-node=1: warned and dropped', stack: trace, command: 'salloc', args: ['-n', '2', 'srun', '--ntasks-per-node=1', 'sh', '-c', PER_NODE] },
  { name: 'salloc -n 2 srun -N 1 --ntasks-per-node=1 (24.11: the tasks of --ntasks-per-node)', stack: trace, command: 'salloc', args: ['-n', '2', 'srun', '-N', '1', '--ntasks-per-node=1', 'sh', '-c', PER_NODE] },
  { name: 'salloc -n 2 -N 1 --ntasks-per-node=1: refused by slurmctld', stack: trace, command: 'salloc', args: ['-n', '2', '-N', '1', '--ntasks-per-node=1', 'true'] },
  // The checks srun, sbatch and salloc share (validate_options_salloc_sbatch_srun), after pre_submit.
  { name: 'srun --core-spec=1: ignored, AllowSpecResourcesUsage is No', stack: trace, command: 'srun', args: ['--core-spec=1', '-n', '1', 'true'] },
  { name: 'sbatch --thread-spec after SBATCH_CORE_SPEC: the later is named', stack: trace, command: 'sbatch', args: ['--thread-spec=1', '--wrap', 'true'], env: { SBATCH_CORE_SPEC: '1' } },
  { name: 'salloc -S with --thread-spec: fatal, exit callbacks run', stack: trace, command: 'salloc', args: ['-S', '1', '--thread-spec=1', 'true'] },
  { name: 'srun --mem with --mem-per-cpu: fatal before init_post_opt', stack: trace, command: 'srun', args: ['--mem=100', '--mem-per-cpu=10', 'true'] },
  { name: 'srun SLURM_MEM_PER_CPU with SLURM_MEM_PER_NODE: fatal', stack: trace, command: 'srun', args: ['true'], env: { SLURM_MEM_PER_CPU: '10', SLURM_MEM_PER_NODE: '100' } },
  { name: 'srun --mem drops SLURM_MEM_PER_CPU', stack: trace, command: 'srun', args: ['--mem=100', 'true'], env: { SLURM_MEM_PER_CPU: '10' } },
  { name: 'sbatch --ntasks-per-gpu with --gpus-per-task: fatal', stack: trace, command: 'sbatch', args: ['--ntasks-per-gpu=1', '--gpus-per-task=1', '--wrap', 'true'] },
  { name: 'srun --exclusive with --oversubscribe (24.11: fatal)', stack: trace, command: 'srun', args: ['--exclusive', '-s', 'true'] },
  { name: 'srun with SLURM_TIMELIMIT it cannot read', stack: trace, command: 'srun', args: ['true'], env: { SLURM_TIMELIMIT: 'abc' } },
  { name: 'salloc with SALLOC_MEM_PER_CPU it cannot read', stack: trace, command: 'salloc', args: ['true'], env: { SALLOC_MEM_PER_CPU: 'xyz' } },
  { name: 'sbatch --nodefile naming a file that does not exist', stack: trace, command: 'sbatch', args: ['--nodefile=no-such-hosts', '--wrap', 'true'] },
  { name: 'salloc --tres-per-task=mem=1 (24.11: fatal)', stack: trace, command: 'salloc', args: ['--tres-per-task=mem=1', 'true'], releases: ['24.11'] },
  // 24.11 reads --pty=N as a descriptor: one not starting with a digit is
  // fatal after the allocation and the step (exit callbacks, the epilog).
  { name: 'srun --pty=x (24.11: fatal once the job exists)', stack: trace, command: 'srun', args: ['--pty=x', '-n', '1', 'true'], releases: ['24.11'] },
  // _fork_command: the command leads a process group of its own in
  // salloc's session (setpgid, not setsid), interactive or not.
  {
    name: "salloc's command: its own process group, in salloc's session",
    stack: trace,
    command: 'salloc',
    args: ['sh', '-c', 'set -- $(cat /proc/$$/stat); pg=$5; sid=$6; set -- $(cat /proc/$PPID/stat); [ "$pg" = "$$" ] && echo own-group; [ "$sid" = "$6" ] && echo salloc-session; [ "$sid" != "$$" ] && echo not-a-session-leader'],
  },
  { name: 'sbatch --profile naming no kind of profile', stack: trace, command: 'sbatch', args: ['--profile=bogus', '--wrap', 'true'] },
  // salloc's --kill-command: sig_name2num over each release's signal names.
  { name: 'salloc --kill-command naming no signal', stack: trace, command: 'salloc', args: ['--kill-command=FOO', 'true'] },
  { name: 'salloc --kill-command=PIPE (22.05: not a signal it names)', stack: trace, command: 'salloc', args: ['--kill-command=PIPE', 'true'] },
  { name: 'salloc --kill-command= (an empty value is none: SIGTERM)', stack: trace, command: 'salloc', args: ['--kill-command=', 'sh', '-c', 'echo ran'] },
];
