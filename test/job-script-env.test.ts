/**
 * The environment slurmd builds for a job prolog or epilog (issue 14):
 * slurmd's variables, then the job's credential's, in the order the real
 * 22.05 and 24.11 wrote them (measured with the environ fixture's
 * job_prolog/job_epilog; test/conformance/environ.test.ts compares whole
 * runs), and their values.
 */
import { describe, expect, it } from 'vitest';
import { jobScriptOrderNames } from '../lib/cluster/env-order.js';
import { jobScriptEnv, userName, type JobScriptEnvInput } from '../lib/daemon/job-script-env.js';

const uid = process.getuid!();
const gid = process.getgid!();

function build(over: Partial<JobScriptEnvInput> = {}): Record<string, string> {
  return jobScriptEnv({
    mode: 'prolog',
    slurmVersion: '24.11',
    jobId: 12,
    uid,
    gid,
    node: 'node0',
    nodes: ['node0'],
    workDir: '/srv/work',
    jobControlEnv: {},
    options: [],
    slurmConf: '/etc/slurm/slurm.conf',
    ...over,
  });
}

const names = (env: Record<string, string>) => Object.keys(env);

describe('the job prolog and epilog environment', () => {
  it('22.05, an srun job: the user after the working directory, the credential’s variables after the script context', () => {
    expect(names(build({ slurmVersion: '22.05', ntasks: 2 }))).toEqual([
      'SLURMD_NODENAME', 'SLURM_CONF', 'SLURM_CLUSTER_NAME', 'SLURM_JOB_ID', 'SLURM_JOB_UID', 'SLURM_JOB_GID', 'SLURM_JOB_WORK_DIR',
      'SLURM_JOB_USER', 'SLURM_JOBID', 'SLURM_UID', 'SLURM_NODELIST', 'SLURM_SCRIPT_CONTEXT',
      'SLURM_JOB_CPUS_PER_NODE', 'SLURM_JOB_NTASKS', 'SLURM_JOB_NUM_NODES', 'SLURM_JOB_PARTITION', 'SLURM_JOB_RESTART_COUNT',
    ]);
  });

  it('22.05, a batch job: the prolog has the launch request’s partition before the script context, the epilog the credential’s; the standard input', () => {
    const credential = { batch: true, stdIn: '/dev/null' };
    expect(names(build({ slurmVersion: '22.05', credential }))).toEqual([
      'SLURMD_NODENAME', 'SLURM_CONF', 'SLURM_CLUSTER_NAME', 'SLURM_JOB_ID', 'SLURM_JOB_UID', 'SLURM_JOB_GID', 'SLURM_JOB_WORK_DIR',
      'SLURM_JOB_USER', 'SLURM_JOBID', 'SLURM_UID', 'SLURM_NODELIST', 'SLURM_JOB_PARTITION', 'SLURM_SCRIPT_CONTEXT',
      'SLURM_JOB_CPUS_PER_NODE', 'SLURM_JOB_NUM_NODES', 'SLURM_JOB_RESTART_COUNT', 'SLURM_JOB_STDIN',
    ]);
    expect(names(build({ slurmVersion: '22.05', mode: 'epilog', exitStatus: 0, credential }))).toEqual([
      'SLURMD_NODENAME', 'SLURM_CONF', 'SLURM_CLUSTER_NAME', 'SLURM_JOB_ID', 'SLURM_JOB_UID', 'SLURM_JOB_GID', 'SLURM_JOB_WORK_DIR',
      'SLURM_JOB_USER', 'SLURM_JOBID', 'SLURM_UID', 'SLURM_NODELIST', 'SLURM_SCRIPT_CONTEXT',
      'SLURM_JOB_DERIVED_EC', 'SLURM_JOB_EXIT_CODE', 'SLURM_JOB_EXIT_CODE2',
      'SLURM_JOB_CPUS_PER_NODE', 'SLURM_JOB_NUM_NODES', 'SLURM_JOB_PARTITION', 'SLURM_JOB_RESTART_COUNT', 'SLURM_JOB_STDIN',
    ]);
  });

  it('24.11: the node list twice, the credential’s core spec, times, oversubscription, and the user last', () => {
    const credential = { batch: true, stdIn: '/dev/null', startTime: 1000, endTime: 1300 };
    expect(names(build({ ntasks: 2, credential }))).toEqual([
      'SLURMD_NODENAME', 'SLURM_CONF', 'SLURM_CLUSTER_NAME', 'SLURM_JOB_ID', 'SLURM_JOB_UID', 'SLURM_JOB_GID', 'SLURM_JOB_WORK_DIR',
      'SLURM_JOBID', 'SLURM_UID', 'SLURM_NODELIST', 'SLURM_JOB_NODELIST', 'SLURM_SCRIPT_CONTEXT',
      'SLURM_JOB_CORE_SPEC_COUNT', 'SLURM_JOB_CORE_SPEC_TYPE', 'SLURM_JOB_END_TIME', 'SLURM_JOB_CPUS_PER_NODE', 'SLURM_JOB_NTASKS',
      'SLURM_JOB_NUM_NODES', 'SLURM_JOB_OVERSUBSCRIBE', 'SLURM_JOB_PARTITION', 'SLURM_JOB_RESTART_COUNT', 'SLURM_JOB_START_TIME',
      'SLURM_JOB_STDIN', 'SLURM_JOB_USER',
    ]);
    expect(names(build({ mode: 'epilog', exitStatus: 256 }))).toEqual([
      'SLURMD_NODENAME', 'SLURM_CONF', 'SLURM_CLUSTER_NAME', 'SLURM_JOB_ID', 'SLURM_JOB_UID', 'SLURM_JOB_GID', 'SLURM_JOB_WORK_DIR',
      'SLURM_JOBID', 'SLURM_UID', 'SLURM_NODELIST', 'SLURM_JOB_NODELIST', 'SLURM_SCRIPT_CONTEXT',
      'SLURM_JOB_DERIVED_EC', 'SLURM_JOB_EXIT_CODE', 'SLURM_JOB_EXIT_CODE2',
      'SLURM_JOB_CORE_SPEC_COUNT', 'SLURM_JOB_CORE_SPEC_TYPE', 'SLURM_JOB_END_TIME', 'SLURM_JOB_CPUS_PER_NODE',
      'SLURM_JOB_NUM_NODES', 'SLURM_JOB_OVERSUBSCRIBE', 'SLURM_JOB_PARTITION', 'SLURM_JOB_RESTART_COUNT', 'SLURM_JOB_START_TIME',
      'SLURM_JOB_USER',
    ]);
  });

  it('the job’s SPANK_ variables come first, in their order', () => {
    const env = build({ jobControlEnv: { B_SECOND: 'b', A_FIRST: 'a' }, options: [{ plugin: 'p', name: 'opt', value: null }] });
    expect(names(env).slice(0, 4)).toEqual(['SPANK_B_SECOND', 'SPANK_A_FIRST', 'SPANK__SLURM_SPANK_OPTION_p_opt', 'SLURMD_NODENAME']);
  });

  it('values: CPUs per node compressed, restart count 0, 24.11’s oversubscription and core spec, the user’s name', () => {
    const env = build({ nodes: ['node0', 'node1', 'node2'], ntasks: 5, credential: { startTime: 1000, endTime: 1300, stdOut: '/o', stdErr: '/e' } });
    expect(env).toMatchObject({
      SLURM_JOB_CPUS_PER_NODE: '2(x2),1',
      SLURM_JOB_NTASKS: '5',
      SLURM_JOB_NUM_NODES: '3',
      SLURM_JOB_RESTART_COUNT: '0',
      SLURM_JOB_OVERSUBSCRIBE: 'NO',
      SLURM_JOB_CORE_SPEC_COUNT: '0',
      SLURM_JOB_CORE_SPEC_TYPE: 'cores',
      SLURM_JOB_START_TIME: '1000',
      SLURM_JOB_END_TIME: '1300',
      SLURM_JOB_STDOUT: '/o',
      SLURM_JOB_STDERR: '/e',
      SLURM_JOB_USER: userName(uid),
      SLURM_CONF: '/etc/slurm/slurm.conf',
    });
    // The caller's count wins; without -n the credential has no task count.
    expect(build({ nodes: ['node0', 'node1'], credential: { cpusPerNode: '4(x2)' } }).SLURM_JOB_CPUS_PER_NODE).toBe('4(x2)');
    expect(build({ nodes: ['node0', 'node1'] })).toMatchObject({ SLURM_JOB_CPUS_PER_NODE: '1(x2)' });
    expect(build().SLURM_JOB_NTASKS).toBeUndefined();
    expect(build().SLURM_JOB_STDIN).toBeUndefined();
  });

  it('24.11’s times without a credential: started now, a year’s limit; an epilog’s job ended now', () => {
    const before = Math.floor(Date.now() / 1000);
    const prolog = build();
    const epilog = build({ mode: 'epilog', exitStatus: 0 });
    const after = Math.floor(Date.now() / 1000);
    const start = Number(prolog.SLURM_JOB_START_TIME);
    expect(start).toBeGreaterThanOrEqual(before);
    expect(start).toBeLessThanOrEqual(after);
    expect(Number(prolog.SLURM_JOB_END_TIME)).toBe(start + 365 * 24 * 3600);
    expect(Number(epilog.SLURM_JOB_END_TIME)).toBeGreaterThanOrEqual(before);
    expect(Number(epilog.SLURM_JOB_END_TIME)).toBeLessThanOrEqual(after);
  });

  it('22.05 writes none of 24.11’s credential variables', () => {
    const env = build({ slurmVersion: '22.05', credential: { startTime: 1000, endTime: 1300 } });
    for (const name of ['SLURM_JOB_NODELIST', 'SLURM_JOB_START_TIME', 'SLURM_JOB_END_TIME', 'SLURM_JOB_OVERSUBSCRIBE', 'SLURM_JOB_CORE_SPEC_COUNT', 'SLURM_JOB_CORE_SPEC_TYPE'])
      expect(env[name], name).toBeUndefined();
  });

  it('without a slurm.conf there is no SLURM_CONF (as in slurmstepd’s environment)', () => {
    expect(build({ slurmConf: undefined }).SLURM_CONF).toBeUndefined();
  });

  it('every variable the builder writes has its place in the release’s table', () => {
    for (const slurmVersion of ['22.05', '24.11'])
      for (const batch of [false, true])
        for (const mode of ['prolog', 'epilog'] as const) {
          const env = build({ slurmVersion, mode, exitStatus: 0, ntasks: 1, credential: { batch, stdIn: '/dev/null', stdOut: '/o', stdErr: '/e' } });
          const table = jobScriptOrderNames(slurmVersion, batch && mode === 'prolog');
          for (const name of Object.keys(env)) expect(table, `${slurmVersion} ${mode} ${name}`).toContain(name);
        }
  });
});
