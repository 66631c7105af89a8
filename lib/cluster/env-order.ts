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
import { commandEnvRules, launcherEnv } from './command-env.js';

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

/** What srun writes before its step exists: the mpi type, then init_srun's. */
const SRUN_INIT = ['SLURM_MPI_TYPE', 'SLURM_PRIO_PROCESS', 'SRUN_DEBUG', 'SLURM_UMASK'];

/**
 * srun's own environment, from init_srun to set_env_from_opts: outside a
 * job the allocation's variables (_set_submit_dir_env, the job's name,
 * _set_env_vars) come before setup_env's; inside one only _set_env_vars'
 * het component (22.05), and the step's name is setup_env's.
 */
function srunOrder(slurmVersion: string, inside: boolean): string[] {
  const allocation = inside
    ? ['SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0']
    : ['SLURM_CLUSTER_NAME', 'SLURM_SUBMIT_DIR', 'SLURM_SUBMIT_HOST', 'SLURM_JOB_NAME', 'SLURM_JOB_CPUS_PER_NODE'];
  return [...SRUN_INIT, ...allocation, ...SETUP_ENV, ...fromOpts(slurmVersion)];
}

/** set_env_from_opts (24.11): the TRES variables, then the external launchers' in the order it appends them. */
function fromOpts(slurmVersion: string): string[] {
  return ['SLURM_TRES_PER_TASK', ...Object.keys(commandEnvRules(slurmVersion).launcherVars)];
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

/** The names srun's table knows (for tests: every variable srun writes has its place). */
export function srunOrderNames(slurmVersion: string, inside: boolean): readonly string[] {
  return srunOrder(slurmVersion, inside);
}

/**
 * srun's launch request's environment: under 24.11 what set_env_from_opts
 * wrote into the request's own array comes first (SLURM_TRES_PER_TASK when
 * srun has the option, the launchers' variables whose bootstrap allows
 * them), then srun's environment in its order; under 22.05 srun's
 * environment as it is.
 */
export function launchEnvInOrder(env: string[], slurmVersion: string, srunEnv: Record<string, string>, hasTresPerTask: boolean): string[] {
  if (!commandEnvRules(slurmVersion).launchEnvFromOptsFirst) return env;
  const first = [...(hasTresPerTask ? ['SLURM_TRES_PER_TASK'] : []), ...Object.keys(launcherEnv(slurmVersion, srunEnv, {}))];
  const at = new Map(env.map((e, i) => [e.slice(0, e.indexOf('=')), i]));
  const head = first.filter((n) => at.has(n)).map((n) => env[at.get(n)!]!);
  const moved = new Set(first);
  return [...head, ...env.filter((e) => !moved.has(e.slice(0, e.indexOf('='))))];
}
