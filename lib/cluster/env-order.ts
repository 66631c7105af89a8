/**
 * The order in which Slurm's commands write their variables (issue 14).
 * An environment is a list: setenv(3) and env_array_overwrite keep a name
 * that is already there in its place and append a new one at the end, so
 * what a plugin walking environ or S_JOB_ENV, or a task running `env`,
 * sees is the caller's variables in the caller's order, then Slurm's in
 * the order Slurm first wrote them. The builders work out the values
 * (command-env.ts, job-env.ts); these tables put them in that order.
 * Measured on a real 22.05 and 24.11 with the environ fixture
 * (test/conformance/environ.test.ts compares the orders).
 */
import { releaseRules } from '../releases.generated.js';
import { commandEnvRules, launcherEnv } from './command-env.js';
import { rlimitNames } from './limits.js';

/**
 * setup_env (src/common/env.c) as srun calls it on its own environment:
 * the variables srun has, in the function's order (the same in 22.05 and
 * 24.11; which of them a release writes is commandEnv's).
 */
const SETUP_ENV = [
  'SLURM_NTASKS',
  'SLURM_NPROCS',
  'SLURM_CPUS_PER_TASK',
  'SLURM_NTASKS_PER_NODE',
  'SLURM_DISTRIBUTION',
  'SLURM_DIST_PLANESIZE',
  'SLURM_OVERCOMMIT',
  'SLURMD_DEBUG',
  'SLURM_LABELIO',
  'SLURM_JOB_ID',
  'SLURM_JOBID',
  'SLURM_JOB_NAME',
  'SLURM_STEP_ID',
  'SLURM_STEPID',
  'SLURM_NNODES',
  'SLURM_JOB_NUM_NODES',
  'SLURM_NODELIST',
  'SLURM_JOB_PARTITION',
  'SLURM_TASKS_PER_NODE',
  'SLURM_JOB_UID',
  'SLURM_JOB_USER',
  'SLURM_JOB_GID',
  'SLURM_JOB_GROUP',
  // 22.05 writes it last.
  'SLURM_WORKING_CLUSTER',
];

/** _set_rlimit_env's variables, in Slurm's rlimit table's order (limits.ts). */
function rlimitVars(slurmVersion: string): string[] {
  return rlimitNames(slurmVersion).map((n) => `SLURM_RLIMIT_${n}`);
}

/** What srun writes before its step exists: the mpi type, then init_srun's. */
function srunInit(slurmVersion: string): string[] {
  return ['SLURM_MPI_TYPE', ...rlimitVars(slurmVersion), 'SLURM_PRIO_PROCESS', 'SRUN_DEBUG', 'SLURM_UMASK'];
}

/**
 * srun's own environment, from init_srun to set_env_from_opts: outside a
 * job the allocation's variables (_set_submit_dir_env, the job's name,
 * _set_env_vars) come before setup_env's; inside one only _set_env_vars'
 * het component (22.05), and the step's name is setup_env's.
 */
function srunOrder(slurmVersion: string, inside: boolean): string[] {
  const allocation = inside
    ? ['SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0']
    : ['SLURM_CLUSTER_NAME', 'SLURM_SUBMIT_DIR', 'SLURM_SUBMIT_HOST', 'SLURM_JOB_NAME', 'SLURM_JOB_CPUS_PER_NODE', 'SLURM_MEM_PER_CPU', 'SLURM_MEM_PER_NODE'];
  // The job's account comes after setup_env's variables (before 22.05's
  // SLURM_WORKING_CLUSTER, which it writes last).
  const setup = [...SETUP_ENV.slice(0, -1), 'SLURM_JOB_ACCOUNT', SETUP_ENV.at(-1)!];
  return [...srunInit(slurmVersion), ...allocation, ...setup, ...fromOpts(slurmVersion)];
}

/** set_env_from_opts (24.11): the TRES variables, then the external launchers' in the order it appends them. */
function fromOpts(slurmVersion: string): string[] {
  return ['SLURM_TRES_PER_TASK', ...Object.keys(commandEnvRules(slurmVersion).launcherVars)];
}

/**
 * env_array_for_job (src/common/env.c): the allocation's variables as
 * salloc writes them, in the function's order (22.05's NULL alias list
 * right after the node list).
 */
const ENV_ARRAY_FOR_JOB = [
  'SLURM_JOB_ID',
  'SLURM_JOB_NAME',
  'SLURM_JOB_NUM_NODES',
  'SLURM_JOB_NODELIST',
  'SLURM_NODE_ALIASES',
  'SLURM_JOB_PARTITION',
  'SLURM_DISTRIBUTION',
  'SLURM_DIST_PLANESIZE',
  'SLURM_JOB_CPUS_PER_NODE',
  'SLURM_MEM_PER_CPU',
  'SLURM_MEM_PER_NODE',
  'SLURM_JOBID',
  'SLURM_NNODES',
  'SLURM_NODELIST',
  // -m arbitrary: the job's requested node list.
  'SLURM_ARBITRARY_NODELIST',
  'SLURM_TASKS_PER_NODE',
  'SLURM_JOB_ACCOUNT',
  'SLURM_OVERCOMMIT',
  'SLURM_NTASKS',
  'SLURM_NPROCS',
  'SLURM_CPUS_PER_TASK',
  'SLURM_NTASKS_PER_NODE',
];

/**
 * What salloc's option checks (_opt_verify, src/salloc/opt.c) setenv for
 * the sruns of the allocation, in their order: before anything else salloc
 * writes, so a later env_array_for_job keeps them where they are (the real
 * 22.05's `salloc -N 1 --ntasks-per-node=2` has SLURM_NTASKS_PER_NODE right
 * after the caller's variables).
 */
const SALLOC_OPT_VERIFY = [
  'SLURM_CONTAINER',
  'SLURM_CONTAINER_ID',
  'SLURM_OOM_KILL_STEP',
  'SLURM_MEM_BIND',
  'SLURM_MEM_BIND_SORT',
  'SLURM_MEM_BIND_VERBOSE',
  'SLURM_NTASKS_PER_CORE',
  'SLURM_NTASKS_PER_GPU',
  'SLURM_NTASKS_PER_NODE',
  'SLURM_NTASKS_PER_SOCKET',
  'SLURM_NTASKS_PER_TRES',
  'SLURM_PROFILE',
];

/**
 * salloc's own environment (its command's): its option checks' setenvs,
 * _set_submit_dir_env's, then the array salloc builds and sets all at
 * once: set_env_from_opts' (24.11), env_array_for_job's, and the cluster's
 * name last.
 */
function sallocOrder(slurmVersion: string): string[] {
  return [...SALLOC_OPT_VERIFY, 'SLURM_SUBMIT_DIR', 'SLURM_SUBMIT_HOST', ...fromOpts(slurmVersion), ...ENV_ARRAY_FOR_JOB, 'SLURM_CLUSTER_NAME'];
}

/** What salloc writes into its own environment once it has its allocation, in the order it writes it. */
export function sallocEnvInOrder(env: Record<string, string>, slurmVersion: string): Record<string, string> {
  return inOrder(env, sallocOrder(slurmVersion));
}

/** sbatch's own environment: _set_rlimit_env, set_prio_process_env, _set_submit_dir_env, _set_umask_env. */
function sbatchOwn(slurmVersion: string): string[] {
  return [...rlimitVars(slurmVersion), 'SLURM_PRIO_PROCESS', 'SLURM_SUBMIT_DIR', 'SLURM_SUBMIT_HOST', 'SLURM_UMASK'];
}

/** env_array_for_batch_job (src/common/env.c), as slurmd adds it to the batch job's environment. */
const ENV_ARRAY_FOR_BATCH_JOB = [
  'SLURM_CLUSTER_NAME',
  'SLURM_JOB_ID',
  'SLURM_JOB_NUM_NODES',
  'SLURM_ARRAY_JOB_ID',
  'SLURM_ARRAY_TASK_ID',
  'SLURM_JOB_NODELIST',
  'SLURM_JOB_PARTITION',
  'SLURM_NODE_ALIASES',
  'SLURM_JOB_CPUS_PER_NODE',
  'ENVIRONMENT',
  'HOSTNAME',
  'SLURM_JOBID',
  'SLURM_NNODES',
  'SLURM_NODELIST',
  'SLURM_NTASKS',
  'SLURM_NPROCS',
  'SLURM_TASKS_PER_NODE',
  'SLURM_MEM_PER_CPU',
  'SLURM_MEM_PER_NODE',
  'SLURM_JOB_ACCOUNT',
];

/**
 * The batch job's environment: sbatch's own (with 22.05's SLURM_JOB_NAME
 * where sbatch set it), what sbatch adds to the job's copy
 * (set_env_from_opts under 24.11, then set_envs' task shape: the task
 * count only when sbatch has one), an array's shape, 24.11's job name and
 * open mode from slurmctld, then env_array_for_batch_job's (an array
 * task's ids after the node count).
 */
function batchOrder(slurmVersion: string, sbatchHasNtasks: boolean): string[] {
  const sbatchShape = ['SLURM_CPUS_PER_TASK', 'SLURM_DISTRIBUTION', ...(sbatchHasNtasks ? ['SLURM_NPROCS', 'SLURM_NTASKS'] : []), 'SLURM_NTASKS_PER_NODE', 'SLURM_DIST_PLANESIZE'];
  // A job array's shape (slurmctld's _create_job_array), then its
  // _set_job_env (24.11): the job's name, its --open-mode, dependency,
  // --profile and --acctg-freq.
  const arrayShape = ['SLURM_ARRAY_TASK_COUNT', 'SLURM_ARRAY_TASK_MIN', 'SLURM_ARRAY_TASK_MAX', 'SLURM_ARRAY_TASK_STEP'];
  // sbatch's job description first hands on -m arbitrary's requested node list.
  return [...sbatchOwn(slurmVersion), 'SLURM_ARBITRARY_NODELIST', ...fromOpts(slurmVersion), ...sbatchShape, ...arrayShape, 'SLURM_JOB_NAME', 'SLURM_OPEN_MODE', 'SLURM_JOB_DEPENDENCY', 'SLURM_PROFILE', 'SLURM_ACCTG_FREQ', ...ENV_ARRAY_FOR_BATCH_JOB];
}

/** sbatch's own environment at its exit callbacks, in the order it writes it. */
export function sbatchEnvInOrder(env: Record<string, string>, slurmVersion: string): Record<string, string> {
  return inOrder(env, sbatchOwn(slurmVersion));
}

/**
 * What a batch job's environment adds to sbatch's exported one, in the
 * order Slurm adds it. sbatch has a task count with -n, and under 22.05
 * with --ntasks-per-node too (commandEnv.sbatchNtasksFromPerNode).
 */
export function batchEnvInOrder(env: Record<string, string>, slurmVersion: string, options: { ntasks?: number; ntasksPerNode?: number }): Record<string, string> {
  const sbatchHasNtasks = options.ntasks !== undefined || (options.ntasksPerNode !== undefined && commandEnvRules(slurmVersion).sbatchNtasksFromPerNode);
  return inOrder(env, batchOrder(slurmVersion, sbatchHasNtasks));
}

/**
 * The variables in the order a table gives; a name the table does not
 * know keeps its place after them (so nothing is ever lost).
 */
export function inOrder(env: Record<string, string>, order: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of order) if (name in env) out[name] = env[name]!;
  for (const [name, value] of Object.entries(env)) if (!(name in out)) out[name] = value;
  return out;
}

/** What srun writes into its own environment before local_user_init, in the order it writes it. */
export function srunEnvInOrder(env: Record<string, string>, slurmVersion: string, inside: boolean): Record<string, string> {
  return inOrder(env, srunOrder(slurmVersion, inside));
}

/** The names each command's table knows (for tests: every variable a command writes has its place). */
export function orderNames(command: 'srun' | 'srun-inside' | 'salloc' | 'batch', slurmVersion: string): readonly string[] {
  if (command === 'batch') return batchOrder(slurmVersion, true);
  return command === 'salloc' ? sallocOrder(slurmVersion) : srunOrder(slurmVersion, command === 'srun-inside');
}

/**
 * srun's launch request's environment (srun's own, env): under 24.11 what
 * set_env_from_opts wrote into the request's own array comes first
 * (SLURM_TRES_PER_TASK when srun has the option, from -c or its
 * environment; the launchers' variables whose bootstrap allows them), then
 * srun's environment in its order; under 22.05 srun's environment as it is.
 */
export function launchEnvInOrder(env: string[], slurmVersion: string, hydraBootstrapOff = false): string[] {
  if (!commandEnvRules(slurmVersion).launchEnvFromOptsFirst) return env;
  const srunEnv = Object.fromEntries(env.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
  const first = [...(srunEnv.SLURM_TRES_PER_TASK !== undefined ? ['SLURM_TRES_PER_TASK'] : []), ...Object.keys(launcherEnv(slurmVersion, srunEnv, {}, hydraBootstrapOff))];
  const at = new Map(env.map((e, i) => [e.slice(0, e.indexOf('=')), i]));
  const head = first.filter((n) => at.has(n)).map((n) => env[at.get(n)!]!);
  const moved = new Set(first);
  return [...head, ...env.filter((e) => !moved.has(e.slice(0, e.indexOf('='))))];
}

/**
 * slurmd's prolog and epilog (the prep/script plugin's _build_env, the
 * same function in 22.05 and 24.11): slurmd's own variables, then the
 * epilog's exit codes, then what the job's credential carries, each in the
 * order written (which of them a release writes is releases.json
 * jobScript's). 22.05 names the user right after the working directory,
 * and in a batch job's prolog the partition from the batch launch request
 * before the script context; 24.11 takes both from the credential.
 */
function jobScriptOrder(slurmVersion: string, batchLaunch: boolean): string[] {
  const rules = releaseRules(slurmVersion).jobScript;
  const slurmd = [
    'SLURMD_NODENAME',
    'SLURM_CONF',
    'SLURM_CLUSTER_NAME',
    'SLURM_JOB_ID',
    'SLURM_JOB_UID',
    'SLURM_JOB_GID',
    'SLURM_JOB_WORK_DIR',
    ...(rules.userFromCredential ? [] : ['SLURM_JOB_USER']),
    'SLURM_JOBID',
    'SLURM_PACK_JOB_ID',
    'SLURM_HET_JOB_ID',
    'SLURM_UID',
    'SLURM_NODE_ALIASES',
    'SLURM_NODELIST',
    'SLURM_JOB_NODELIST',
    ...(rules.batchPartitionFirst && batchLaunch ? ['SLURM_JOB_PARTITION'] : []),
    'SLURM_SCRIPT_CONTEXT',
    'SLURM_JOB_DERIVED_EC',
    'SLURM_JOB_EXIT_CODE',
    'SLURM_JOB_EXIT_CODE2',
  ];
  const credential = [
    'SLURM_JOB_ACCOUNT',
    'SLURM_JOB_COMMENT',
    'SLURM_JOB_CORE_SPEC_COUNT',
    'SLURM_JOB_CORE_SPEC_TYPE',
    'SLURM_JOB_CONSTRAINTS',
    'SLURM_JOB_END_TIME',
    'SLURM_JOB_EXTRA',
    'SLURM_JOB_CPUS_PER_NODE',
    'SLURM_JOB_LICENSES',
    'SLURM_JOB_NTASKS',
    'SLURM_JOB_NUM_NODES',
    'SLURM_JOB_OVERSUBSCRIBE',
    'SLURM_JOB_PARTITION',
    'SLURM_JOB_RESERVATION',
    'SLURM_JOB_RESTART_COUNT',
    'SLURM_JOB_START_TIME',
    'SLURM_JOB_STDERR',
    'SLURM_JOB_STDIN',
    'SLURM_JOB_STDOUT',
    ...(rules.userFromCredential ? ['SLURM_JOB_USER'] : []),
  ];
  // A name written twice keeps its first place.
  return [...slurmd, ...credential.filter((n) => !slurmd.includes(n))];
}

/**
 * slurmd's variables of a prolog or epilog in the order _build_env writes
 * them (the job's SPANK_ variables, which it merges first, are not
 * these). batchLaunch: a batch job's prolog, which slurmd runs from the
 * batch launch request (22.05 takes the partition from it).
 */
export function jobScriptEnvInOrder(env: Record<string, string>, slurmVersion: string, batchLaunch: boolean): Record<string, string> {
  return inOrder(env, jobScriptOrder(slurmVersion, batchLaunch));
}

/** The names of a prolog's or epilog's table (for tests: every variable has its place). */
export function jobScriptOrderNames(slurmVersion: string, batchLaunch: boolean): readonly string[] {
  return jobScriptOrder(slurmVersion, batchLaunch);
}
