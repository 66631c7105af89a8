/**
 * Scenarios 01-05 of real-slurm-22.05.md run through plugstack's srun,
 * sbatch and salloc in 22.05 mode, and compared with what the real cluster
 * did: the callback sequence of each process (client, step daemons, task
 * children), the option callbacks and their `remote` flag, the items of the
 * LOCAL and ALLOCATOR rows, the job-control variable, the task environments
 * and the exit status. Ids, pids, ports, host names and times differ.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandName, CommandResult } from '../lib/commands/types.js';
import { Plugstack } from '../lib/plugstack.js';
import { compilePlugin, readLog, tempDir, writeFile } from './helpers/plugins.js';

interface TraceLine {
  callback: string;
  fields: Record<string, string>;
}

interface TraceRun {
  result: CommandResult;
  trace: TraceLine[];
  raw: string[];
}

const SRUN = '1';
const REMOTE = '2';
const ALLOCATOR = '3';

async function traceCommand(command: CommandName, args: string[], env: Record<string, string> = {}): Promise<TraceRun> {
  const dir = tempDir();
  const log = path.join(dir, 'spanktrace.log');
  const so = compilePlugin('trace.c', { defines: { PLUGIN_VERSION: 0x160508 } });
  const conf = writeFile(dir, 'plugstack.conf', `required ${so} log=${log}\n`);
  const stack = await Plugstack.load(conf, { slurmVersion: '22.05', pluginDir: [] });
  const result = await stack[command]({ args, cwd: dir, env: { PATH: '/usr/bin:/bin', HOME: dir, ...env } });
  const raw = readLog(log);
  const trace = raw
    .filter((l) => / pid=\d+$/.test(l))
    .map((l) => {
      const [head, ...kv] = l.split(' ');
      const callback = head!.startsWith('OPTION_CB') ? 'OPTION_CB' : head!;
      return { callback, fields: Object.fromEntries(kv.map((x) => [x.slice(0, x.indexOf('=')), x.slice(x.indexOf('=') + 1)])) };
    });
  return { result, trace, raw };
}

/** Callbacks per process, in order, with the option callbacks' remote flag and value. */
function sequences(trace: TraceLine[]): string[][] {
  const byPid = new Map<string, string[]>();
  for (const t of trace) {
    const name = t.callback === 'OPTION_CB' ? `OPTION_CB(${t.fields.optarg},remote=${t.fields.remote})` : t.callback;
    byPid.set(t.fields.pid!, [...(byPid.get(t.fields.pid!) ?? []), name]);
  }
  return [...byPid.values()];
}

function processWith(trace: TraceLine[], first: string, ctx: string, stepId?: string): TraceLine[] {
  const start = trace.find((t) => t.callback === first && t.fields.ctx === ctx && (stepId === undefined || t.fields.STEPID === stepId));
  if (!start) throw new Error(`no ${first} in ctx ${ctx}`);
  return trace.filter((t) => t.fields.pid === start.fields.pid);
}

const at = (trace: TraceLine[], t: TraceLine) => trace.indexOf(t);

/** The LOCAL rows of the real items table (E = ERR). */
const LOCAL_OUTSIDE_JOB = {
  ctx: SRUN, remote: '0', JOB_ID: 'ERR3009', STEPID: 'ERR3009', NNODES: 'ERR3009', NODEID: 'ERR3006', LTASKS: 'ERR3006',
  TTASKS: 'ERR3009', UID: 'ERR3009', ARGV: 'ERR3009', TASK_ID: 'ERR3006', GTASK: 'ERR3006', TPID: 'ERR3006', EXIT: 'ERR3006',
  getenv: 'ERR3006', SPANK_TRACE: 'ERR3006', getopt: 'ERR3009',
};
const ALLOCATOR_ROW = {
  ctx: ALLOCATOR, remote: '0', JOB_ID: 'ERR3001', STEPID: 'ERR3001', NNODES: 'ERR3001', NODEID: 'ERR3006', LTASKS: 'ERR3006',
  TTASKS: 'ERR3001', UID: 'ERR3009', ARGV: 'ERR3001', TASK_ID: 'ERR3006', GTASK: 'ERR3006', TPID: 'ERR3006', EXIT: 'ERR3006',
  getenv: 'ERR3006', SPANK_TRACE: 'ERR3006', getopt: 'ERR3009',
};

/** The step daemon's and the task children's sequences for a step of `n` tasks, 22.05, option given. */
function remoteSequences(n: number, option: string | null, optionCallbacks = 2): string[][] {
  const opt = option === null ? [] : Array<string>(optionCallbacks).fill(`OPTION_CB(${option},remote=1)`);
  return [
    ['init', ...opt, 'init_post_opt', 'user_init', ...Array<string>(n).fill('task_post_fork'), ...Array<string>(n).fill('task_exit'), 'exit'],
    ...Array.from({ length: n }, () => ['task_init_privileged', 'task_init']),
  ];
}

describe('scenario 01: srun -n 3 -O --trace-opt=hello env', () => {
  it('has the same callback sequence in srun, the step daemon and each task as the real cluster', async () => {
    const { result, trace, raw } = await traceCommand('srun', ['-n', '3', '-O', '--trace-opt=hello', 'env']);
    expect(result.exitCode).toBe(0);
    const seq = sequences(trace);
    expect(seq[0]).toEqual(['init', 'OPTION_CB(hello,remote=0)', 'init_post_opt', 'local_user_init', 'exit']);
    expect(seq.slice(1).sort()).toEqual([...remoteSequences(3, 'hello'), ['job_prolog'], ['job_epilog']].sort());
    expect(raw).toContain('option_register=0');
    // The prolog after local_user_init and before the step; the epilog after srun's exit.
    const prolog = trace.find((t) => t.callback === 'job_prolog')!;
    const epilog = trace.find((t) => t.callback === 'job_epilog')!;
    expect(at(trace, trace.find((t) => t.callback === 'local_user_init')!)).toBeLessThan(at(trace, prolog));
    expect(at(trace, prolog)).toBeLessThan(at(trace, trace.find((t) => t.fields.ctx === REMOTE)!));
    expect(at(trace, trace.find((t) => t.callback === 'exit' && t.fields.ctx === SRUN)!)).toBeLessThan(at(trace, epilog));
    expect(raw).toContain('job_control_setenv(TRACE,1)=0');
    // srun's exit runs after the step daemon's exit.
    const srunExit = trace.find((t) => t.callback === 'exit' && t.fields.ctx === SRUN)!;
    const stepExit = trace.find((t) => t.callback === 'exit' && t.fields.ctx === REMOTE)!;
    expect(at(trace, stepExit)).toBeLessThan(at(trace, srunExit));
    const localUserInit = trace.find((t) => t.callback === 'local_user_init')!;
    expect(at(trace, localUserInit)).toBeLessThan(at(trace, trace.find((t) => t.fields.ctx === REMOTE)!));
  });

  it('answers items in srun as the LOCAL rows of the real items table', async () => {
    const { result, trace } = await traceCommand('srun', ['-n', '3', '-O', '--trace-opt=hello', 'env']);
    const srun = processWith(trace, 'init', SRUN);
    for (const cb of ['init', 'init_post_opt', 'exit']) {
      expect(srun.find((t) => t.callback === cb)!.fields).toMatchObject(LOCAL_OUTSIDE_JOB);
    }
    // local_user_init: the job is allocated (job N, step 0, ttc=3, argv=["env"]).
    expect(srun.find((t) => t.callback === 'local_user_init')!.fields).toMatchObject({
      ...LOCAL_OUTSIDE_JOB,
      JOB_ID: String(result.job!.jobId), STEPID: '0', NNODES: '1', TTASKS: '3', UID: String(process.getuid!()), ARGV: '1:env',
      getopt: 'hello',
    });
    // JOB_SCRIPT row: the job id and uid only; getenv not remote; the option
    // found through SPANK__SLURM_SPANK_OPTION_*; job control as SPANK_TRACE.
    for (const cb of ['job_prolog', 'job_epilog']) {
      expect(trace.find((t) => t.callback === cb)!.fields).toMatchObject({
        ctx: '5', remote: '0', JOB_ID: String(result.job!.jobId), STEPID: 'ERR3009', NNODES: 'ERR3009', NODEID: 'ERR3009',
        LTASKS: 'ERR3009', TTASKS: 'ERR3009', UID: String(process.getuid!()), ARGV: 'ERR3009', TASK_ID: 'ERR3009',
        GTASK: 'ERR3009', TPID: 'ERR3009', EXIT: 'ERR3009', getenv: 'ERR3006', getopt: 'hello',
        'penv.SPANK_TRACE': '1', 'penv.OPT': 'hello',
      });
    }
  });

  it('01b (-l): every task gets the variables the real task 0 had, TMPDIR only task 0, no option variable', async () => {
    const { result } = await traceCommand('srun', ['-n', '3', '-O', '--trace-opt=hello', '-l', 'env'], { SUBMITTER: 'kept' });
    expect(result.exitCode).toBe(0);
    const realTask0 = [
      'SLURMD_NODENAME', 'SLURM_CLUSTER_NAME', 'SLURM_CPUS_ON_NODE', 'SLURM_GTIDS', 'SLURM_JOBID', 'SLURM_JOB_CPUS_PER_NODE',
      'SLURM_JOB_GID', 'SLURM_JOB_ID', 'SLURM_JOB_NAME', 'SLURM_JOB_NODELIST', 'SLURM_JOB_NUM_NODES', 'SLURM_JOB_PARTITION',
      'SLURM_JOB_UID', 'SLURM_JOB_USER', 'SLURM_LABELIO', 'SLURM_LAUNCH_NODE_IPADDR', 'SLURM_LOCALID', 'SLURM_NNODES',
      'SLURM_NODEID', 'SLURM_NODELIST', 'SLURM_NPROCS', 'SLURM_NTASKS', 'SLURM_OVERCOMMIT', 'SLURM_PRIO_PROCESS', 'SLURM_PROCID',
      'SLURM_SRUN_COMM_HOST', 'SLURM_SRUN_COMM_PORT', 'SLURM_STEPID', 'SLURM_STEP_ID', 'SLURM_STEP_LAUNCHER_PORT',
      'SLURM_STEP_NODELIST', 'SLURM_STEP_NUM_NODES', 'SLURM_STEP_NUM_TASKS', 'SLURM_STEP_TASKS_PER_NODE', 'SLURM_SUBMIT_DIR',
      'SLURM_SUBMIT_HOST', 'SLURM_TASKS_PER_NODE', 'SLURM_TASK_PID', 'SLURM_TOPOLOGY_ADDR', 'SLURM_TOPOLOGY_ADDR_PATTERN',
      'SLURM_UMASK', 'SLURM_WORKING_CLUSTER', 'TMPDIR', 'TRACE_SET',
    ];
    const envOf = (task: number) =>
      Object.fromEntries(
        result.stdout
          .split('\n')
          .filter((l) => l.startsWith(`${task}: `))
          .map((l) => l.slice(`${task}: `.length))
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      ) as Record<string, string>;
    for (const task of [0, 1, 2]) {
      const env = envOf(task);
      const ours = Object.keys(env).filter((k) => k.startsWith('SLURM') || k === 'TMPDIR' || k === 'TRACE_SET');
      expect(ours.sort()).toEqual(realTask0.filter((k) => task === 0 || k !== 'TMPDIR').sort());
      expect(env).toMatchObject({
        SUBMITTER: 'kept', TRACE_SET: 'yes', SLURM_PROCID: String(task), SLURM_LOCALID: String(task), SLURM_GTIDS: '0,1,2',
        SLURM_NTASKS: '3', SLURM_NPROCS: '3', SLURM_OVERCOMMIT: '1', SLURM_LABELIO: '1', SLURM_JOB_NAME: 'env', SLURM_STEPID: '0',
        SLURM_JOB_NUM_NODES: '1', SLURM_STEP_TASKS_PER_NODE: '3', SLURM_TASKS_PER_NODE: '3', SLURM_TOPOLOGY_ADDR_PATTERN: 'node',
      });
      expect(env.SLURM_JOB_ID).toBe(String(result.job!.jobId));
      expect(env.SLURM_SRUN_COMM_PORT).toBe(env.SLURM_STEP_LAUNCHER_PORT);
      expect(env.SLURM_UMASK).toMatch(/^0[0-7]{3}$/);
      expect(env).toMatchObject({ SLURM_LAUNCH_NODE_IPADDR: '127.0.0.1', SLURM_SRUN_COMM_HOST: '127.0.0.1', SLURM_WORKING_CLUSTER: 'plugstack:localhost:6817:9728:102' });
      // Not for plain srun tasks: the job-control variable and the option variable.
      expect(Object.keys(env).filter((k) => /SPANK/.test(k))).toEqual([]);
    }
  });
});

describe('scenario 02: SLURM_SPANK__SLURM_SPANK_OPTION_trace_trace_opt=hello srun -n 3 -O env', () => {
  it('produces the same sequence as 01: the option from the environment, remote=0 in srun, twice remotely', async () => {
    const { result, trace } = await traceCommand('srun', ['-n', '3', '-O', 'env'], { SLURM_SPANK__SLURM_SPANK_OPTION_trace_trace_opt: 'hello' });
    expect(result.exitCode).toBe(0);
    const seq = sequences(trace);
    expect(seq[0]).toEqual(['init', 'OPTION_CB(hello,remote=0)', 'init_post_opt', 'local_user_init', 'exit']);
    expect(seq.slice(1).sort()).toEqual([...remoteSequences(3, 'hello'), ['job_prolog'], ['job_epilog']].sort());
    expect(trace.find((t) => t.callback === 'job_prolog')!.fields['penv.OPT']).toBe('hello');
    expect(processWith(trace, 'init', SRUN).find((t) => t.callback === 'local_user_init')!.fields.getopt).toBe('hello');
  });
});

describe("scenario 03: sbatch --trace-opt=x --wrap 'srun -n 2 true'", () => {
  it('runs sbatch, the batch step, the inner srun and its step in the real order', async () => {
    const { result, trace } = await traceCommand('sbatch', ['--trace-opt=x', '--wrap', 'srun -n 2 true']);
    expect(result.exitCode).toBe(0);
    expect(result.job).toMatchObject({ state: 'COMPLETED', exitCode: 0 });
    const sbatch = processWith(trace, 'init', ALLOCATOR);
    expect(sbatch.map((t) => (t.callback === 'OPTION_CB' ? `OPTION_CB(${t.fields.optarg},remote=${t.fields.remote})` : t.callback))).toEqual([
      'init', 'OPTION_CB(x,remote=0)', 'init_post_opt', 'exit',
    ]);
    for (const cb of ['init', 'init_post_opt', 'exit']) expect(sbatch.find((t) => t.callback === cb)!.fields).toMatchObject(ALLOCATOR_ROW);

    // The batch step: step 4294967291, nn=0 ttc=0 ltc=1, argv the script; the option once.
    const batch = processWith(trace, 'init', REMOTE, '4294967291');
    const names = (p: TraceLine[]) => p.map((t) => (t.callback === 'OPTION_CB' ? `OPTION_CB(${t.fields.optarg},remote=${t.fields.remote})` : t.callback));
    expect(names(batch)).toEqual(remoteSequences(1, 'x', 1)[0]);
    const batchInit = batch[0]!.fields;
    expect(batchInit).toMatchObject({ JOB_ID: String(result.job!.jobId), NNODES: '0', TTASKS: '0', LTASKS: '1', NODEID: '0' });
    expect(batchInit.ARGV).toMatch(/^1:\/.*\/slurm_script$/);

    // The inner srun: LOCAL, the option picked up from the job env with remote=0; job N step 0.
    const srun = processWith(trace, 'init', SRUN);
    expect(names(srun)).toEqual(['init', 'OPTION_CB(x,remote=0)', 'init_post_opt', 'local_user_init', 'exit']);
    expect(srun.find((t) => t.callback === 'local_user_init')!.fields).toMatchObject({ JOB_ID: String(result.job!.jobId), STEPID: '0', TTASKS: '2' });

    // Step N.0: TRACE_SET already set in init (inherited from the batch step), the option twice.
    const step = processWith(trace, 'init', REMOTE, '0');
    expect(names(step)).toEqual(remoteSequences(2, 'x')[0]);
    expect(step[0]!.fields.getenv).toBe('yes');

    // Order: sbatch exit, the one prolog (the inner srun's step finds it
    // done), the batch step; inner srun exit before the batch step's
    // task_exit; the epilog last.
    const i = (t: TraceLine) => at(trace, t);
    const prologs = trace.filter((t) => t.callback === 'job_prolog');
    const epilogs = trace.filter((t) => t.callback === 'job_epilog');
    expect([prologs.length, epilogs.length]).toEqual([1, 1]);
    expect(prologs[0]!.fields).toMatchObject({ JOB_ID: String(result.job!.jobId), getopt: 'x', 'penv.SPANK_TRACE': '1', 'penv.OPT': 'x' });
    expect(i(sbatch.at(-1)!)).toBeLessThan(i(prologs[0]!));
    expect(i(prologs[0]!)).toBeLessThan(i(batch[0]!));
    expect(i(batch.at(-1)!)).toBeLessThan(i(epilogs[0]!));
    expect(i(sbatch.at(-1)!)).toBeLessThan(i(batch[0]!));
    expect(i(srun.at(-1)!)).toBeLessThan(i(batch.find((t) => t.callback === 'task_exit')!));
    expect(i(step.at(-1)!)).toBeLessThan(i(srun.at(-1)!));
  });
});

describe("scenario 04: srun -n 1 sh -c 'exit 3'", () => {
  it('exits 3 with the real error line; getopt without the option is ESPANK_ERROR in local_user_init', async () => {
    const { result, trace } = await traceCommand('srun', ['-n', '1', 'sh', '-c', 'exit 3']);
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toMatch(/^srun: error: \S+: task 0: Exited with exit code 3\n$/);
    const seq = sequences(trace);
    expect(seq[0]).toEqual(['init', 'init_post_opt', 'local_user_init', 'exit']);
    expect(seq.slice(1).sort()).toEqual([...remoteSequences(1, null), ['job_prolog'], ['job_epilog']].sort());
    expect(trace.find((t) => t.callback === 'local_user_init')!.fields.getopt).toBe('ERR3000');
    expect(trace.find((t) => t.callback === 'job_prolog')!.fields.getopt).toBe('ERR3000');
    expect(trace.find((t) => t.callback === 'task_exit')!.fields.EXIT).toBe('768');
  });
});

describe("scenario 05: salloc -n 2 --trace-opt=alloc srun -n 2 sh -c 'echo ...'", () => {
  it('runs the allocator around the srun, which picks the option up from the environment', async () => {
    const { result, trace } = await traceCommand('salloc', [
      '-n', '2', '--trace-opt=alloc', 'srun', '-n', '2', 'sh', '-c', 'echo task $SLURM_PROCID TRACE_SET=$TRACE_SET SPANK_TRACE=${SPANK_TRACE-unset}',
    ]);
    expect(result.exitCode).toBe(0);
    const salloc = processWith(trace, 'init', ALLOCATOR);
    const srun = processWith(trace, 'init', SRUN);
    const step = processWith(trace, 'init', REMOTE);
    const names = (p: TraceLine[]) => p.map((t) => (t.callback === 'OPTION_CB' ? `OPTION_CB(${t.fields.optarg},remote=${t.fields.remote})` : t.callback));
    expect(names(salloc)).toEqual(['init', 'OPTION_CB(alloc,remote=0)', 'init_post_opt', 'exit']);
    expect(names(srun)).toEqual(['init', 'OPTION_CB(alloc,remote=0)', 'init_post_opt', 'local_user_init', 'exit']);
    expect(names(step)).toEqual(remoteSequences(2, 'alloc')[0]);
    // The allocator's exit comes after srun's and before the epilog; the
    // prolog runs when srun launches the job's first step.
    const prolog = trace.find((t) => t.callback === 'job_prolog')!;
    const epilog = trace.find((t) => t.callback === 'job_epilog')!;
    expect(at(trace, srun.find((t) => t.callback === 'local_user_init')!)).toBeLessThan(at(trace, prolog));
    expect(at(trace, prolog)).toBeLessThan(at(trace, step[0]!));
    expect(at(trace, srun.at(-1)!)).toBeLessThan(at(trace, salloc.at(-1)!));
    expect(at(trace, salloc.at(-1)!)).toBeLessThan(at(trace, epilog));
    expect(epilog.fields).toMatchObject({ 'penv.SPANK_TRACE': '1', 'penv.OPT': 'alloc' });
    expect(result.stdout.split('\n').filter((l) => l.startsWith('task')).sort()).toEqual([
      'task 0 TRACE_SET=yes SPANK_TRACE=unset',
      'task 1 TRACE_SET=yes SPANK_TRACE=unset',
    ]);
  });
});
