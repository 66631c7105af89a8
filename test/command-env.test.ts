/**
 * The environments of Slurm's own processes (issue 14), with the environ
 * fixture, which records the whole environ of its process at every
 * callback (and S_JOB_ENV remotely): what srun, sbatch and salloc have in
 * their own environment at each callback, that a variable a local plugin
 * sets in local_user_init reaches the tasks, and that slurmstepd starts from
 * slurmd's environment rather than the caller's. The same runs are compared
 * with a real 22.05 and 24.11 in test/conformance/environ.test.ts.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { compilePlugin, readLog, tempDir, writeFile } from './helpers/plugins.js';
import { recordCommand } from './helpers/command.js';

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

async function run(release: Release, command: 'srun' | 'sbatch' | 'salloc', args: string[], pluginArgs: string[] = [], env: Record<string, string> = {}) {
  const dir = tempDir('command-env-');
  const log = path.join(dir, 'environ.log');
  const so = release === '22.05' ? compilePlugin('environ.c', { defines: { PLUGIN_VERSION: 0x160508 } }) : compilePlugin('environ.c');
  const conf = writeFile(dir, 'plugstack.conf', `required ${so} log=${log} ${pluginArgs.join(' ')}\n`);
  const stack = await Plugstack.load(conf, { pluginDir: [], slurmVersion: release, env: { PATH: '/usr/bin:/bin' } });
  const result = await stack[command]({ args, cwd: dir, env: { PATH: '/usr/bin:/bin', CALLER_MARK: 'caller', ...env } });
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
