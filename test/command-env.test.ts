/**
 * The environments of Slurm's own processes (issue 14), with the environ
 * fixture, which records the whole environ of its process at every
 * callback (and S_JOB_ENV remotely): what srun, sbatch and salloc have in
 * their own environment at each callback, that a variable a local plugin
 * sets in local_user_init reaches the tasks, and that slurmstepd starts from
 * slurmd's environment rather than the caller's. The same runs are compared
 * with a real 22.05 and 24.11 in test/conformance/environ.test.ts.
 */
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { compilePlugin, readLog, tempDir, writeFile } from './helpers/plugins.js';
import { recordCommand } from './helpers/command.js';
import { taskShapeEnv } from '../lib/cluster/command-env.js';
import { inOrder, launchEnvInOrder } from '../lib/cluster/env-order.js';

type Release = '22.05' | '24.11';

interface Recorded {
  /** callback@context -> the records of each process, in order of appearance. */
  env: Map<string, { pid: string; env: Record<string, string>; job: Record<string, string> }[]>;
}

function parse(lines: string[]): Recorded {
  const byKey = new Map<string, { pid: string; env: Record<string, string>; job: Record<string, string> }>();
  const env: Recorded['env'] = new Map();
  for (const line of lines) {
    const m = /^(\S+) pid=(\d+) (env|job|end) ?(.*)$/.exec(line);
    if (!m) continue;
    const [, cb, pid, kind, entry] = m as unknown as [string, string, string, string, string];
    const key = `${cb} ${pid}`;
    let rec = byKey.get(key);
    if (!rec) {
      rec = { pid, env: {}, job: {} };
      byKey.set(key, rec);
      env.set(cb, [...(env.get(cb) ?? []), rec]);
    }
    if (kind === 'end') continue;
    const eq = entry.indexOf('=');
    (kind === 'env' ? rec.env : rec.job)[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return { env };
}

async function run(release: Release, command: 'srun' | 'sbatch' | 'salloc', args: string[], pluginArgs: string[] = [], env: Record<string, string> = {}, script?: string) {
  const dir = tempDir('command-env-');
  const log = path.join(dir, 'environ.log');
  const so = release === '22.05' ? compilePlugin('environ.c', { defines: { PLUGIN_VERSION: 0x160508 } }) : compilePlugin('environ.c');
  const conf = writeFile(dir, 'plugstack.conf', `required ${so} log=${log} ${pluginArgs.join(' ')}\n`);
  const stack = await Plugstack.load(conf, { pluginDir: [], slurmVersion: release, env: { PATH: '/usr/bin:/bin' } });
  const result = await stack[command]({ args, cwd: dir, env: { PATH: '/usr/bin:/bin', CALLER_MARK: 'caller', ...env }, ...(script !== undefined ? { script } : {}) });
  return { result, rec: parse(readLog(log)) };
}

const JOB_VARIABLES = [
  'SLURM_JOB_ID', 'SLURM_JOBID', 'SLURM_STEP_ID', 'SLURM_STEPID', 'SLURM_NTASKS', 'SLURM_NPROCS', 'SLURM_NNODES',
  'SLURM_JOB_NUM_NODES', 'SLURM_NODELIST', 'SLURM_JOB_NAME', 'SLURM_JOB_PARTITION', 'SLURM_TASKS_PER_NODE',
  'SLURM_JOB_CPUS_PER_NODE', 'SLURM_SUBMIT_DIR', 'SLURM_SUBMIT_HOST', 'SLURM_CLUSTER_NAME', 'SLURM_JOB_UID',
  'SLURM_JOB_USER', 'SLURM_PRIO_PROCESS', 'SLURM_UMASK', 'SRUN_DEBUG',
];
const LAUNCHER_24_11 = ['HYDRA_BOOTSTRAP', 'HYDRA_LAUNCHER_EXTRA_ARGS', 'I_MPI_HYDRA_BOOTSTRAP', 'I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS', 'OMPI_MCA_plm_slurm_args', 'PRTE_MCA_plm_slurm_args'];

describe.each(['22.05', '24.11'] as Release[])('the environments of Slurm %s processes', (release) => {
  it("srun: the job's variables from local_user_init on, none before; 24.11's launcher variables", async () => {
    const { result, rec } = await run(release, 'srun', ['-n', '2', 'true']);
    expect(result.exitCode).toBe(0);
    const [init] = rec.env.get('init@1')!;
    const [postOpt] = rec.env.get('init_post_opt@1')!;
    const [lui] = rec.env.get('local_user_init@1')!;
    const [exit] = rec.env.get('exit@1')!;
    for (const name of JOB_VARIABLES) {
      expect(init!.env[name], name).toBeUndefined();
      expect(lui!.env[name], name).toBeDefined();
      expect(exit!.env[name], name).toBe(lui!.env[name]);
    }
    expect(lui!.env.SLURM_JOB_ID).toBe(String(result.job!.jobId));
    expect(lui!.env.SLURM_NTASKS).toBe('2');
    // srun's own environment has no SLURM_JOB_NODELIST; the launch adds it.
    expect(lui!.env.SLURM_JOB_NODELIST).toBeUndefined();
    for (const name of LAUNCHER_24_11) expect(lui!.env[name], name).toBe(release === '24.11' ? (name.endsWith('BOOTSTRAP') ? 'slurm' : '--external-launcher') : undefined);
    expect(lui!.env.SLURM_JOB_GROUP !== undefined).toBe(release === '24.11');
    expect(lui!.env.SLURMD_DEBUG).toBe(release === '24.11' ? '2' : undefined);
    expect(lui!.env.SLURM_WORKING_CLUSTER !== undefined).toBe(release === '22.05');
    // SLURM_MPI_TYPE: 22.05 loads its mpi plugin before init_post_opt, 24.11 with the job's variables.
    expect(postOpt!.env.SLURM_MPI_TYPE).toBe(release === '22.05' ? 'none' : undefined);
    expect(lui!.env.SLURM_MPI_TYPE).toBe('none');
  });

  it('srun: a variable a local plugin sets in local_user_init reaches the tasks; one set in init_post_opt too', async () => {
    const { result } = await run(release, 'srun', ['-n', '2', '-l', 'sh', '-c', 'echo $MY_TMP $FROM_POST_OPT'], [
      'set=MY_TMP=/scratch/job@local_user_init',
      'set=FROM_POST_OPT=yes@init_post_opt',
    ]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.split('\n').filter(Boolean).sort()).toEqual(['0: /scratch/job yes', '1: /scratch/job yes']);
  });

  it("slurmstepd starts from slurmd's environment, not the caller's; the job's environment is the caller's", async () => {
    const { result, rec } = await run(release, 'srun', ['-n', '1', 'true'], [], { SPANK_TRACE: 'leak' });
    expect(result.exitCode).toBe(0);
    for (const cb of ['init@2', 'user_init@2', 'task_init_privileged@2', 'task_init@2', 'exit@2']) {
      for (const r of rec.env.get(cb)!) {
        expect(r.env.SPANK_TRACE, cb).toBeUndefined();
        expect(r.env.CALLER_MARK, cb).toBeUndefined();
        expect(r.env.SLURMD_NODENAME, cb).toBe('node0');
        expect(r.env.PATH, cb).toBe('/usr/bin:/bin');
        expect(r.job.SPANK_TRACE, cb).toBe('leak');
      }
    }
    // 22.05's slurmstepd has the step's mpi type in its own environment.
    expect(rec.env.get('init@2')![0]!.env.SLURM_MPI_TYPE).toBe(release === '22.05' ? 'none' : undefined);
  });

  it("an srun inside a batch job or an allocation: its slurmstepd does not get the job's variables", async () => {
    for (const [command, args] of [
      ['sbatch', ['-W', '--trace-none', '--wrap', 'srun -n 1 true']],
      ['salloc', ['-n', '1', 'srun', '-n', '1', 'true']],
    ] as const) {
      const plain = (args as readonly string[]).filter((a) => a !== '--trace-none');
      const { result, rec } = await run(release, command, [...plain], ['spank_set=FROM_PLUGIN=1@init_post_opt']);
      expect(result.exitCode, command).toBe(0);
      const stepds = rec.env.get('init@2')!;
      const inner = stepds.at(-1)!;
      expect(inner.job.SLURM_STEP_ID, command).toBe('0');
      for (const name of ['SLURM_JOB_ID', 'SLURM_SPANK_FROM_PLUGIN', 'CALLER_MARK', 'ENVIRONMENT'])
        expect(inner.env[name], `${command} ${name}`).toBeUndefined();
      expect(inner.job.SLURM_JOB_ID, command).toBe(String(result.job!.jobId));
    }
  });

  it("sbatch's and salloc's own environment at exit", async () => {
    const sb = await run(release, 'sbatch', ['--wrap', 'true']);
    const sbExit = sb.rec.env.get('exit@3')![0]!.env;
    for (const name of ['SLURM_PRIO_PROCESS', 'SLURM_SUBMIT_DIR', 'SLURM_SUBMIT_HOST', 'SLURM_UMASK']) expect(sbExit[name], name).toBeDefined();
    expect(sbExit.SLURM_JOB_ID).toBeUndefined();
    const sa = await run(release, 'salloc', ['-n', '1', 'true']);
    const saExit = sa.rec.env.get('exit@3')![0]!.env;
    expect(sa.rec.env.get('init_post_opt@3')![0]!.env.SLURM_JOB_ID).toBeUndefined();
    expect(saExit.SLURM_JOB_ID).toBe(String(sa.result.job!.jobId));
    // salloc's job is "interactive" unless -J names it.
    expect(saExit.SLURM_JOB_NAME).toBe('interactive');
    expect(saExit.SLURM_NTASKS).toBe('1');
    for (const name of LAUNCHER_24_11) expect(saExit[name] !== undefined, name).toBe(release === '24.11');
  });
});

describe('S_JOB_UID and S_JOB_GID in srun local_user_init', () => {
  it("are the caller's under 22.05 and SLURM_AUTH_NOBODY (99) under 24.11", async () => {
    for (const [release, want] of [['22.05', process.getuid!()], ['24.11', 99]] as const) {
      const { lines } = await recordCommand('srun', ['items'], ['true'], { slurmVersion: release });
      const lui = lines.find((l) => l.callback === 'local_user_init')!.fields;
      expect(lui.S_JOB_UID, release).toBe(`0:${want}`);
      expect(lui.S_JOB_GID, release).toBe(`0:${release === '24.11' ? 99 : process.getgid!()}`);
    }
  });
});

describe.each(['22.05', '24.11'] as Release[])('whole environments as the real Slurm %s has them', (release) => {
  const is2411 = release === '24.11';
  const taskRecords = (rec: Recorded) => rec.env.get('task_init@2')!;

  it('24.11: the job start and end time in every task, start + 365 days without a time limit, + the limit with -t', async () => {
    const plain = await run(release, 'srun', ['-n', '2', 'true']);
    const limited = await run(release, 'srun', ['-n', '1', '-t', '5', 'true']);
    for (const [{ rec }, span] of [[plain, 365 * 24 * 3600], [limited, 300]] as const) {
      for (const t of taskRecords(rec)) {
        if (!is2411) {
          expect(t.job.SLURM_JOB_START_TIME).toBeUndefined();
          expect(t.job.SLURM_JOB_END_TIME).toBeUndefined();
          continue;
        }
        const start = Number(t.job.SLURM_JOB_START_TIME);
        expect(Math.abs(start - Date.now() / 1000)).toBeLessThan(600);
        expect(Number(t.job.SLURM_JOB_END_TIME) - start).toBe(span);
      }
      // Not in slurmstepd's job environment before its tasks.
      expect(rec.env.get('user_init@2')![0]!.job.SLURM_JOB_START_TIME).toBeUndefined();
    }
  });

  it('the batch job: HOSTNAME, 22.05 SLURM_NODE_ALIASES=(null), 24.11 launcher variables and job times; SLURM_UMASK becomes the umask and leaves the environment', async () => {
    const { result, rec } = await run(release, 'sbatch', ['-W', '--wrap', 'umask; echo UMASK=$SLURM_UMASK'], [], { SLURM_UMASK: '0027', HYDRA_BOOTSTRAP: 'ssh' });
    expect(result.exitCode).toBe(0);
    expect(result.output!.text).toBe('0027\nUMASK=\n');
    const [init] = rec.env.get('init@2')!;
    const [user] = rec.env.get('user_init@2')!;
    expect(init!.job.SLURM_UMASK).toBe('0027');
    expect(user!.job.SLURM_UMASK).toBeUndefined();
    expect(init!.job.HOSTNAME).toBe('node0');
    expect(init!.job.SLURM_NODE_ALIASES).toBe(is2411 ? undefined : '(null)');
    // set_env_from_opts appends: the caller's bootstrap stays, and with it no extra arguments.
    expect(init!.job.HYDRA_BOOTSTRAP).toBe('ssh');
    expect(init!.job.HYDRA_LAUNCHER_EXTRA_ARGS).toBeUndefined();
    expect(init!.job.I_MPI_HYDRA_BOOTSTRAP).toBe(is2411 ? 'slurm' : undefined);
    expect(init!.job.OMPI_MCA_plm_slurm_args).toBe(is2411 ? '--external-launcher' : undefined);
    const [task] = taskRecords(rec);
    expect(task!.job.SLURM_JOB_END_TIME !== undefined).toBe(is2411);
  });

  it('an srun step keeps SLURM_UMASK and runs its tasks with it', async () => {
    const { result } = await run(release, 'srun', ['-n', '1', 'sh', '-c', 'umask; echo UMASK=$SLURM_UMASK'], [], { SLURM_UMASK: '0027' });
    expect(result.stdout).toBe('0027\nUMASK=0027\n');
  });

  it("22.05 sbatch: its job name in its own environment from init_post_opt on (-J, else wrap, else the script's name)", async () => {
    const dir = tempDir('command-env-script-');
    const script = writeFile(dir, 'job.sh', '#!/bin/sh\ntrue\n');
    for (const [args, name] of [
      [['--wrap', 'true'], 'wrap'],
      [['-J', 'named', '--wrap', 'true'], 'named'],
      [[script], 'job.sh'],
    ] as const) {
      const { rec } = await run(release, 'sbatch', [...args]);
      expect(rec.env.get('init@3')![0]!.env.SLURM_JOB_NAME, name).toBeUndefined();
      expect(rec.env.get('init_post_opt@3')![0]!.env.SLURM_JOB_NAME, name).toBe(is2411 ? undefined : name);
    }
  });

  it("sbatch: an --export other than ALL in its own environment from init_post_opt on (SLURM_EXPORT_ENV, a caller's kept); 22.05: --open-mode too", async () => {
    const { rec } = await run(release, 'sbatch', ['--export=ALL,FOO=bar', '--open-mode=append', '--wrap', 'true']);
    expect(rec.env.get('init@3')![0]!.env.SLURM_EXPORT_ENV).toBeUndefined();
    const postOpt = rec.env.get('init_post_opt@3')![0]!.env;
    expect(postOpt.SLURM_EXPORT_ENV).toBe('ALL,FOO=bar');
    expect(postOpt.SLURM_OPEN_MODE).toBe(is2411 ? undefined : 'a');
    const all = await run(release, 'sbatch', ['--export=all', '--wrap', 'true']);
    expect(all.rec.env.get('init_post_opt@3')![0]!.env.SLURM_EXPORT_ENV).toBeUndefined();
    const caller = await run(release, 'sbatch', ['--export=NONE', '--wrap', 'true'], [], { SLURM_EXPORT_ENV: 'mine' });
    expect(caller.rec.env.get('init_post_opt@3')![0]!.env.SLURM_EXPORT_ENV).toBe('mine');
  });

  it("sbatch --dependency, --profile and --acctg-freq reach the batch job (22.05: through sbatch's own environment, in _opt_verify's order; 24.11: slurmctld's, sbatch keeping the dependency)", async () => {
    const { result, rec } = await run(release, 'sbatch', ['-W', '--dependency=singleton', '--profile=task,energy', '--acctg-freq=30', '--export=ALL', '--open-mode=append', '--wrap', 'true']);
    expect(result.exitCode).toBe(0);
    const own = rec.env.get('init_post_opt@3')![0]!.env;
    const ownNames = Object.keys(own).filter((n) => /^SLURM_(OPEN_MODE|JOB_DEPENDENCY|PROFILE|ACCTG_FREQ)$/.test(n));
    expect(ownNames).toEqual(is2411 ? ['SLURM_JOB_DEPENDENCY'] : ['SLURM_OPEN_MODE', 'SLURM_JOB_DEPENDENCY', 'SLURM_PROFILE', 'SLURM_ACCTG_FREQ']);
    // The kinds as Slurm prints them, whatever order and case they were given in.
    const job = rec.env.get('init@2')![0]!.job;
    expect({ dep: job.SLURM_JOB_DEPENDENCY, profile: job.SLURM_PROFILE, freq: job.SLURM_ACCTG_FREQ }).toEqual({ dep: 'singleton', profile: 'Energy,Task', freq: '30' });
    const none = await run(release, 'sbatch', ['-W', '--profile=NONE', '--wrap', 'true']);
    expect(none.rec.env.get('init@2')![0]!.job.SLURM_PROFILE).toBe('None');
    // srun writes its --dependency into its own environment too, which its tasks inherit.
    const srun = await run(release, 'srun', ['--dependency=singleton', 'true']);
    expect(srun.rec.env.get('init_post_opt@1')![0]!.env.SLURM_JOB_DEPENDENCY).toBe('singleton');
    const bad = await run(release, 'sbatch', ['--profile=bogus', '--wrap', 'true']);
    expect(bad.result.exitCode).not.toBe(0);
    expect(bad.result.stderr).toContain('invalid --profile=bogus option');
  });

  it('an srun inside a job: its distribution, 22.05 PACK_GROUP_0, 24.11 user and group left as the job has them; no PWD from plugstack', async () => {
    const cases = [
      [['-n', '1'], 'cyclic'],
      [['-n', '2'], 'block'],
      [['-n', '2', '--mem=0'], undefined],
    ] as const;
    for (const [srunArgs, distribution] of cases) {
      const { result, rec } = await run(release, 'salloc', ['-n', '2', 'srun', ...srunArgs, 'true']);
      expect(result.exitCode, srunArgs.join(' ')).toBe(0);
      const [init] = rec.env.get('init@1')!;
      const [lui] = rec.env.get('local_user_init@1')!;
      expect(init!.env.PWD).toBeUndefined();
      expect(lui!.env.SLURM_DISTRIBUTION, srunArgs.join(' ')).toBe(distribution);
      expect(taskRecords(rec)[0]!.job.SLURM_DISTRIBUTION).toBe(distribution);
      expect(lui!.env.SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0).toBe(is2411 ? undefined : lui!.env.SLURM_JOB_CPUS_PER_NODE);
      // salloc's environment has no user name; 24.11's srun inside writes ids of 0 and no names.
      expect(lui!.env.SLURM_JOB_USER).toBe(is2411 ? undefined : os.userInfo().username);
      expect(lui!.env.SLURM_JOB_GROUP).toBeUndefined();
      expect(lui!.env.SLURM_JOB_UID).toBe(is2411 ? '0' : String(process.getuid!()));
    }
    // A standalone srun has none of it.
    const alone = await run(release, 'srun', ['-n', '1', 'true']);
    expect(alone.rec.env.get('local_user_init@1')![0]!.env.SLURM_DISTRIBUTION).toBeUndefined();
  });

  it("a batch script read from standard input: the job is 'sbatch' (24.11's batch job says so, 22.05's has no name, and its srun takes the program's)", async () => {
    const { result, rec } = await run(release, 'sbatch', [], [], {}, '#!/bin/sh\nsrun -n 1 true\n');
    expect(result.exitCode).toBe(0);
    const [batch] = rec.env.get('init@2')!;
    expect(batch!.job.SLURM_JOB_NAME).toBe(is2411 ? 'sbatch' : undefined);
    expect(rec.env.get('local_user_init@1')![0]!.env.SLURM_JOB_NAME).toBe(is2411 ? 'sbatch' : 'true');
    expect(rec.env.get('init_post_opt@3')![0]!.env.SLURM_JOB_NAME).toBeUndefined();
  });

  it('srun -l has SLURM_LABELIO in its own environment; an srun inside a job writes its step name (-J, else the job\'s)', async () => {
    const { rec } = await run(release, 'salloc', ['-n', '1', '-J', 'outer', 'sh', '-c', 'srun -n 1 -l true && srun -n 1 -J inner true']);
    const [first, second] = rec.env.get('local_user_init@1')!;
    expect(first!.env.SLURM_LABELIO).toBe('1');
    expect(first!.env.SLURM_JOB_NAME).toBe('outer');
    expect(second!.env.SLURM_LABELIO).toBeUndefined();
    expect(second!.env.SLURM_JOB_NAME).toBe('inner');
  });

  it('-c and --ntasks-per-node: SLURM_CPUS_PER_TASK, SLURM_NTASKS_PER_NODE, 24.11 SLURM_TRES_PER_TASK, in srun, salloc and the batch job', async () => {
    const tres = (n: number) => (is2411 ? `cpu=${n}` : undefined);
    const srun = await run(release, 'srun', ['-c', '2', '-n', '1', 'true']);
    const lui = srun.rec.env.get('local_user_init@1')![0]!.env;
    expect(lui.SLURM_CPUS_PER_TASK).toBe('2');
    expect(lui.SLURM_TRES_PER_TASK).toBe(tres(2));
    expect(taskRecords(srun.rec)[0]!.job.SLURM_TRES_PER_TASK).toBe(tres(2));
    const salloc = await run(release, 'salloc', ['-c', '2', 'srun', '-n', '1', '-c', '1', 'true']);
    const sallocExit = salloc.rec.env.get('exit@3')![0]!.env;
    expect(sallocExit.SLURM_CPUS_PER_TASK).toBe('2');
    expect(sallocExit.SLURM_TRES_PER_TASK).toBe(tres(2));
    const inner = salloc.rec.env.get('local_user_init@1')![0]!.env;
    expect(inner.SLURM_CPUS_PER_TASK).toBe('1');
    expect(inner.SLURM_TRES_PER_TASK).toBe(tres(1));
    const sbatch = await run(release, 'sbatch', ['-c', '2', '--ntasks-per-node=2', '--wrap', 'true']);
    const batch = sbatch.rec.env.get('init@2')![0]!.job;
    expect(batch.SLURM_NTASKS_PER_NODE).toBe('2');
    expect(batch.SLURM_NTASKS).toBe('2');
    expect(batch.SLURM_NPROCS).toBe('2');
    expect(batch.SLURM_CPUS_PER_TASK).toBe('2');
    expect(batch.SLURM_TRES_PER_TASK).toBe(tres(2));
  });

  it('24.11: -c replaces the cpu entry of SLURM_TRES_PER_TASK where it is, or puts one first', () => {
    expect(taskShapeEnv(release, { cpusPerTask: 3 }, { SLURM_TRES_PER_TASK: 'gres/gpu=1' }).SLURM_TRES_PER_TASK).toBe(is2411 ? 'cpu=3,gres/gpu=1' : undefined);
    expect(taskShapeEnv(release, { cpusPerTask: 3 }, { SLURM_TRES_PER_TASK: 'gres/gpu=1,cpu=2,license/x=1' }).SLURM_TRES_PER_TASK).toBe(is2411 ? 'gres/gpu=1,cpu=3,license/x=1' : undefined);
    expect(taskShapeEnv(release, { ntasksPerNode: 4 }, {})).toEqual({ SLURM_NTASKS_PER_NODE: '4' });
  });

  it("24.11: slurm.conf's MpiParams=disable_slurm_hydra_bootstrap keeps a HYDRA pair out unless its bootstrap is slurm", async () => {
    const dir = tempDir('command-env-hydra-');
    const log = path.join(dir, 'environ.log');
    const so = release === '22.05' ? compilePlugin('environ.c', { defines: { PLUGIN_VERSION: 0x160508 } }) : compilePlugin('environ.c');
    const conf = writeFile(dir, 'plugstack.conf', `required ${so} log=${log}\n`);
    const slurmConf = writeFile(dir, 'slurm.conf', `ClusterName=c\nSlurmctldHost=localhost\nPlugStackConfig=${conf}\nMpiParams=ports=12000-12999,disable_slurm_hydra_bootstrap\nNodeName=node0\nPartitionName=debug Nodes=node0 Default=YES\n`);
    const stack = await Plugstack.load(conf, { pluginDir: [], slurmVersion: release, slurmConf, env: { PATH: '/usr/bin:/bin' } });
    expect((await stack.srun({ args: ['true'], cwd: dir, env: { PATH: '/usr/bin:/bin', I_MPI_HYDRA_BOOTSTRAP: 'slurm' } })).exitCode).toBe(0);
    expect((await stack.sbatch({ args: ['-W', '-o', '/dev/null', '--wrap', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } })).exitCode).toBe(0);
    const launchers = (env: Record<string, string>) => LAUNCHER_24_11.filter((n) => env[n] !== undefined);
    const [srunTask, batchTask] = parse(readLog(log)).env.get('task_init@2')!;
    const ompi = ['OMPI_MCA_plm_slurm_args', 'PRTE_MCA_plm_slurm_args'];
    // As a real 24.11 gave them with that MpiParams.
    expect(launchers(srunTask!.job)).toEqual(release === '24.11' ? ['I_MPI_HYDRA_BOOTSTRAP', 'I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS', ...ompi] : ['I_MPI_HYDRA_BOOTSTRAP']);
    expect(launchers(batchTask!.job)).toEqual(release === '24.11' ? ompi : []);
  });

  it("slurmd's own environment is PATH and SLURM_CONF, not the caller's", async () => {
    const dir = tempDir('command-env-slurmd-');
    const log = path.join(dir, 'environ.log');
    const so = release === '22.05' ? compilePlugin('environ.c', { defines: { PLUGIN_VERSION: 0x160508 } }) : compilePlugin('environ.c');
    const conf = writeFile(dir, 'plugstack.conf', `required ${so} log=${log}\n`);
    const slurmConf = writeFile(dir, 'slurm.conf', `ClusterName=c\nSlurmctldHost=localhost\nPlugStackConfig=${conf}\nNodeName=node0\nPartitionName=debug Nodes=node0 Default=YES\n`);
    process.env.CALLER_MARK_SLURMD = 'caller';
    try {
      const stack = await Plugstack.load(conf, { pluginDir: [], slurmVersion: release, slurmConf });
      const slurmd = await stack.slurmd();
      await slurmd.stop();
    } finally {
      delete process.env.CALLER_MARK_SLURMD;
    }
    const [init] = parse(readLog(log)).env.get('init@4')!;
    expect(Object.keys(init!.env).filter((k) => !/^(ASAN|UBSAN|LSAN)_OPTIONS$|^PLUGSTACK_HOST_DIR$/.test(k)).sort()).toEqual(['PATH', 'SLURM_CONF']);
    expect(init!.env.SLURM_CONF).toBe(slurmConf);
  });
});

/**
 * The order of the variables (issue 14): an environment is a list, the
 * caller's variables in the caller's order and then Slurm's in the order
 * Slurm first wrote them (a name written again keeps its place). The
 * expected orders are those the real 22.05 and 24.11 showed with the
 * environ fixture (test/conformance/environ.test.ts compares them run by
 * run); here the caller's environment is PATH and CALLER_MARK.
 */
describe.each(['22.05', '24.11'] as Release[])('the order of the variables in the environments of Slurm %s', (release) => {
  const is2411 = release === '24.11';
  const LAUNCHERS = ['OMPI_MCA_plm_slurm_args', 'PRTE_MCA_plm_slurm_args', 'HYDRA_BOOTSTRAP', 'HYDRA_LAUNCHER_EXTRA_ARGS', 'I_MPI_HYDRA_BOOTSTRAP', 'I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS'];
  const launchers = is2411 ? LAUNCHERS : [];
  const names = (env: Record<string, string>) => Object.keys(env).filter((n) => !/^PLUGSTACK_|^(ASAN|UBSAN|LSAN)_OPTIONS$/.test(n));
  // _set_rlimit_env's, right before set_prio_process_env's: every limit is propagated by default (no slurm.conf here).
  const RLIMITS = ['CPU', 'FSIZE', 'DATA', 'STACK', 'CORE', 'RSS', 'NPROC', 'NOFILE', 'MEMLOCK', 'AS'].map((n) => `SLURM_RLIMIT_${n}`);
  const SRUN = [
    'PATH', 'CALLER_MARK', 'SLURM_MPI_TYPE', ...RLIMITS, 'SLURM_PRIO_PROCESS', 'SRUN_DEBUG', 'SLURM_UMASK', 'SLURM_CLUSTER_NAME', 'SLURM_SUBMIT_DIR', 'SLURM_SUBMIT_HOST',
    'SLURM_JOB_NAME', 'SLURM_JOB_CPUS_PER_NODE', 'SLURM_NTASKS', 'SLURM_NPROCS', ...(is2411 ? ['SLURMD_DEBUG'] : []), 'SLURM_JOB_ID', 'SLURM_JOBID',
    'SLURM_STEP_ID', 'SLURM_STEPID', 'SLURM_NNODES', 'SLURM_JOB_NUM_NODES', 'SLURM_NODELIST', 'SLURM_JOB_PARTITION', 'SLURM_TASKS_PER_NODE',
    'SLURM_JOB_UID', 'SLURM_JOB_USER', ...(is2411 ? ['SLURM_JOB_GID', 'SLURM_JOB_GROUP', ...LAUNCHERS] : ['SLURM_WORKING_CLUSTER']),
  ];

  it("srun's own environment: init_srun's, the allocation's, setup_env's, 24.11's set_env_from_opts'", async () => {
    const { rec } = await run(release, 'srun', ['-n', '2', 'true']);
    expect(names(rec.env.get('local_user_init@1')![0]!.env)).toEqual(SRUN);
    expect(names(rec.env.get('exit@1')![0]!.env)).toEqual(SRUN);
  });

  it("the tasks' environment: srun's (24.11: set_env_from_opts' first), the launch's, slurmstepd's setup_env", async () => {
    const { rec } = await run(release, 'srun', ['-n', '2', 'true']);
    // The tasks have no SLURM_MPI_TYPE of srun's (the step's mpi plugin has the type).
    const srun = SRUN.filter((n) => !LAUNCHERS.includes(n) && n !== 'SLURM_MPI_TYPE');
    const launch = ['SLURM_JOB_NODELIST', 'SLURM_STEP_NODELIST', 'SLURM_STEP_NUM_NODES', 'SLURM_STEP_NUM_TASKS', 'SLURM_STEP_TASKS_PER_NODE', 'SLURM_STEP_LAUNCHER_PORT', 'SLURM_SRUN_COMM_PORT', 'SLURM_SRUN_COMM_HOST', 'SLURM_TOPOLOGY_ADDR', 'SLURM_TOPOLOGY_ADDR_PATTERN'];
    const task = [
      'SLURM_CPUS_ON_NODE', ...(is2411 ? ['SLURM_OOM_KILL_STEP', 'SLURM_JOB_END_TIME', 'SLURM_JOB_START_TIME'] : []), 'SLURM_TASK_PID', 'SLURM_NODEID', 'SLURM_PROCID', 'SLURM_LOCALID',
      'SLURM_LAUNCH_NODE_IPADDR', 'SLURM_GTIDS', ...(is2411 ? [] : ['SLURM_JOB_GID']), 'SLURMD_NODENAME',
    ];
    for (const t of rec.env.get('task_init@2')!) expect(names(t.job)).toEqual([...launchers, ...srun, ...launch, ...task]);
  });

  it("salloc's command's environment: _set_submit_dir_env's, then set_env_from_opts', env_array_for_job's, the cluster's name", async () => {
    const { rec } = await run(release, 'salloc', ['-n', '1', 'true']);
    expect(names(rec.env.get('exit@3')![0]!.env)).toEqual([
      'PATH', 'CALLER_MARK', 'SLURM_SUBMIT_DIR', 'SLURM_SUBMIT_HOST', ...launchers, 'SLURM_JOB_ID', 'SLURM_JOB_NAME', 'SLURM_JOB_NUM_NODES', 'SLURM_JOB_NODELIST',
      ...(is2411 ? [] : ['SLURM_NODE_ALIASES']), 'SLURM_JOB_PARTITION', 'SLURM_JOB_CPUS_PER_NODE', 'SLURM_JOBID', 'SLURM_NNODES', 'SLURM_NODELIST', 'SLURM_TASKS_PER_NODE',
      'SLURM_NTASKS', 'SLURM_NPROCS', 'SLURM_CLUSTER_NAME',
    ]);
  });

  it("sbatch's and its batch job's environments; 22.05's batch task has SLURM_WORKING_CLUSTER after the user", async () => {
    const own = ['PATH', 'CALLER_MARK', ...(is2411 ? [] : ['SLURM_JOB_NAME']), ...RLIMITS, 'SLURM_PRIO_PROCESS', 'SLURM_SUBMIT_DIR', 'SLURM_SUBMIT_HOST', 'SLURM_UMASK'];
    const job = (fromOpts: string[], shape: string[], ntasksLast: boolean) => [
      ...own, ...fromOpts, ...shape, ...(is2411 ? ['SLURM_JOB_NAME'] : []), 'SLURM_CLUSTER_NAME', 'SLURM_JOB_ID', 'SLURM_JOB_NUM_NODES', 'SLURM_JOB_NODELIST', 'SLURM_JOB_PARTITION',
      ...(is2411 ? [] : ['SLURM_NODE_ALIASES']), 'SLURM_JOB_CPUS_PER_NODE', 'ENVIRONMENT', 'HOSTNAME', 'SLURM_JOBID', 'SLURM_NNODES', 'SLURM_NODELIST',
      ...(ntasksLast ? ['SLURM_NTASKS', 'SLURM_NPROCS'] : []), 'SLURM_TASKS_PER_NODE', 'SLURM_TOPOLOGY_ADDR', 'SLURM_TOPOLOGY_ADDR_PATTERN',
    ];
    const plain = await run(release, 'sbatch', ['-W', '-n', '2', '-J', 'named', '--wrap', 'true']);
    expect(names(plain.rec.env.get('exit@3')![0]!.env)).toEqual(own);
    expect(names(plain.rec.env.get('init@2')![0]!.job)).toEqual(job(launchers, ['SLURM_NPROCS', 'SLURM_NTASKS'], false));
    const [task] = plain.rec.env.get('task_init@2')!;
    const user = names(task!.job).indexOf('SLURM_JOB_USER');
    expect(names(task!.job).indexOf('SLURM_WORKING_CLUSTER')).toBe(is2411 ? -1 : user + 1);
    // Without -n, 24.11's sbatch has no task count: env_array_for_batch_job writes it after the node list.
    const shaped = await run(release, 'sbatch', ['-W', '-c', '2', '--ntasks-per-node=1', '--wrap', 'true']);
    const fromOpts = is2411 ? ['SLURM_TRES_PER_TASK', ...LAUNCHERS] : [];
    const shape = is2411 ? ['SLURM_CPUS_PER_TASK', 'SLURM_NTASKS_PER_NODE'] : ['SLURM_CPUS_PER_TASK', 'SLURM_NPROCS', 'SLURM_NTASKS', 'SLURM_NTASKS_PER_NODE'];
    expect(names(shaped.rec.env.get('init@2')![0]!.job)).toEqual(job(fromOpts, shape, is2411));
  });
});

describe('ordering an environment as Slurm writes it', () => {
  it("puts a table's names in its order and keeps the others after them, in theirs", () => {
    expect(Object.keys(inOrder({ OTHER: '1', SLURM_JOBID: '2', SLURM_JOB_ID: '2', LAST: '3' }, ['SLURM_JOB_ID', 'SLURM_JOBID', 'ABSENT']))).toEqual(['SLURM_JOB_ID', 'SLURM_JOBID', 'OTHER', 'LAST']);
  });

  it("24.11's launch request starts with what set_env_from_opts wrote (a HYDRA pair the caller's bootstrap refused stays where it is); 22.05's is srun's environment", () => {
    const srun = ['PATH=/bin', 'HYDRA_BOOTSTRAP=ssh', 'SLURM_JOB_ID=1', 'SLURM_TRES_PER_TASK=cpu=2', 'OMPI_MCA_plm_slurm_args=--external-launcher', 'PRTE_MCA_plm_slurm_args=--external-launcher', 'I_MPI_HYDRA_BOOTSTRAP=slurm', 'I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS=--external-launcher'];
    expect(launchEnvInOrder(srun, '22.05')).toEqual(srun);
    expect(launchEnvInOrder(srun, '24.11').map((e) => e.slice(0, e.indexOf('=')))).toEqual([
      'SLURM_TRES_PER_TASK', 'OMPI_MCA_plm_slurm_args', 'PRTE_MCA_plm_slurm_args', 'I_MPI_HYDRA_BOOTSTRAP', 'I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS', 'PATH', 'HYDRA_BOOTSTRAP', 'SLURM_JOB_ID',
    ]);
  });
});
