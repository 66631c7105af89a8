/**
 * The environments of Slurm's own processes, as plugins see them with
 * getenv(3): what srun, sbatch and salloc write into their own environment
 * as they go (so local and allocator callbacks see it, and what a plugin
 * sets there reaches the job), and slurmd's, which slurmstepd inherits
 * (not the caller's). Measured on a real 22.05 and a real 24.11 with the
 * environ fixture (test/conformance/environ.test.ts).
 *
 * What differs between releases is the commandEnv table of
 * native/core/rules/releases.json, one row per release.
 */
import type { SlurmConf } from '../config/slurm-conf.js';
import { distributionEnv, type TaskDistribution } from '../step/distribution.js';
import { native } from '../native/binding.js';
import { userName } from '../daemon/job-script-env.js';
import { releaseRules, type CommandEnvRules } from '../releases.generated.js';

export type { CommandEnvRules } from '../releases.generated.js';

/** SLURM_AUTH_NOBODY: the uid and gid 24.11's srun hands local_user_init. */
export const SLURM_AUTH_NOBODY = 99;

/** The commandEnv table of releases.json for the emulated release. */
export function commandEnvRules(slurmVersion: string): CommandEnvRules {
  return releaseRules(slurmVersion).commandEnv;
}

/**
 * set_env_from_opts' external-launcher variables (24.11), as it appends
 * them to srun's, salloc's or a batch job's environment (dest, by default
 * the command's own): none that is already there is replaced, and a HYDRA
 * bootstrap pair (_set_ext_launcher_hydra) only when the bootstrap is
 * "slurm", or unset and slurm.conf's MpiParams does not say
 * disable_slurm_hydra_bootstrap (getenv of the command's own environment,
 * current).
 */
export function launcherEnv(
  slurmVersion: string,
  current: Record<string, string | undefined>,
  dest: Record<string, string | undefined> = current,
  hydraBootstrapOff = false,
): Record<string, string> {
  const vars = commandEnvRules(slurmVersion).launcherVars;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(vars)) {
    // A bootstrap and its extra arguments go together.
    const bootstrap = name.endsWith('_EXTRA_ARGS') ? HYDRA_PAIRS[name] : name.endsWith('BOOTSTRAP') ? name : undefined;
    if (bootstrap !== undefined) {
      const set = current[bootstrap];
      if (set === undefined ? hydraBootstrapOff : set !== 'slurm') continue;
    }
    if (dest[name] === undefined) out[name] = value;
  }
  return out;
}

/** MpiParams names disable_slurm_hydra_bootstrap (found as _set_ext_launcher_hydra finds it: anywhere in the value, case as written). */
export function hydraBootstrapOff(conf: SlurmConf | undefined): boolean {
  return (conf?.keys.MpiParams ?? '').includes('disable_slurm_hydra_bootstrap');
}

/** Each HYDRA extra-arguments variable's bootstrap variable. */
const HYDRA_PAIRS: Record<string, string> = {
  HYDRA_LAUNCHER_EXTRA_ARGS: 'HYDRA_BOOTSTRAP',
  I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS: 'I_MPI_HYDRA_BOOTSTRAP',
};

/** systemd's default PATH: what a slurmd started as a service runs with. */
export const SERVICE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Settings of plugstack's own programs (its sanitized build), not Slurm's:
 * they reach the step daemons whatever slurmd's environment is.
 */
const PLUGSTACK_OWN = ['ASAN_OPTIONS', 'UBSAN_OPTIONS', 'LSAN_OPTIONS', 'PLUGSTACK_HOST_DIR'];

/**
 * slurmd's environment, which slurmstepd inherits: the stack's `env` when
 * one was given (Plugstack.load), else a service's (PATH only), with the
 * SLURM_CONF slurmd sets for itself (the slurm.conf it read: the stack's,
 * else the one the command names).
 */
export function slurmdEnv(hostEnv: NodeJS.ProcessEnv | undefined, slurmConf: string | undefined): Record<string, string> {
  const base: Record<string, string | undefined> = hostEnv ? { ...hostEnv } : { PATH: SERVICE_PATH };
  for (const name of PLUGSTACK_OWN) if (base[name] === undefined && process.env[name] !== undefined) base[name] = process.env[name];
  // Without a slurm.conf (plugstack's own cluster) there is nothing to name:
  // an inner srun would read it.
  const conf = slurmConf ?? base.SLURM_CONF;
  if (conf !== undefined) base.SLURM_CONF = conf;
  return Object.fromEntries(Object.entries(base).filter((kv): kv is [string, string] => kv[1] !== undefined));
}

/** slurmstepd's own environment on a node: slurmd's, its node name, and (22.05) the step's mpi type. */
export function stepdEnv(daemon: Record<string, string>, nodeName: string, slurmVersion: string, mpiType: string | null | undefined): Record<string, string> {
  const env: Record<string, string> = { ...daemon, SLURMD_NODENAME: nodeName };
  if (mpiType && commandEnvRules(slurmVersion).stepdMpiType) env.SLURM_MPI_TYPE = mpiType;
  return env;
}

/** The user variables setup_env writes from the job's ids (SLURM_JOB_UID/USER, and GID/GROUP where the release does). */
export function jobUserEnv(slurmVersion: string, uid: number, gid: number): Record<string, string> {
  const env: Record<string, string> = { SLURM_JOB_UID: String(uid), SLURM_JOB_USER: userName(uid) };
  if (commandEnvRules(slurmVersion).jobGroup) {
    env.SLURM_JOB_GID = String(gid);
    env.SLURM_JOB_GROUP = native().groupByGid(gid) ?? 'nobody';
  }
  return env;
}

/**
 * What srun writes into its own environment once it has its step, before
 * local_user_init: the step's variables, the user's, the release's extras
 * (the allocation's variables and srun's own flags come from job-env.ts).
 */
export function srunStepEnv(input: {
  slurmVersion: string;
  stepId: number;
  ntasks: number;
  uid: number;
  gid: number;
  /** srun's environment so far: SLURM_MPI_TYPE is added only when absent. */
  current: Record<string, string>;
  /** The srun runs inside a job (a batch script, salloc's command): its step joins the allocation. */
  inside?: { nodes: number; memZero?: boolean };
  /**
   * An srun that made its job with memory (--mem, --mem-per-cpu above 0):
   * it writes the step's distribution as an srun inside a job does (the
   * real 22.05 and 24.11, on one node and three).
   */
  withMemory?: { nodes: number };
  /** slurm.conf's MpiParams disables the HYDRA bootstrap pairs (hydraBootstrapOff). */
  hydraBootstrapOff?: boolean;
}): Record<string, string> {
  const rules = commandEnvRules(input.slurmVersion);
  const inside = input.inside;
  // Inside a job 24.11's srun never learns its job's user and group: the
  // ids are 0 and the names are left as the job has them.
  const user = inside && rules.innerSrunUserUnknown ? innerUserEnv(input.slurmVersion) : jobUserEnv(input.slurmVersion, input.uid, input.gid);
  const env: Record<string, string> = {
    ...(inside ? innerStepEnv(input.slurmVersion, input.ntasks, inside, input.current) : {}),
    ...(!inside && input.withMemory ? { SLURM_DISTRIBUTION: defaultDistribution(input.ntasks, input.withMemory.nodes) } : {}),
    SLURM_NTASKS: String(input.ntasks),
    SLURM_NPROCS: String(input.ntasks),
    SLURM_STEP_ID: String(input.stepId),
    SLURM_STEPID: String(input.stepId),
    ...user,
    ...launcherEnv(input.slurmVersion, input.current, input.current, input.hydraBootstrapOff),
  };
  if (rules.slurmdDebug !== null) env.SLURMD_DEBUG = input.current.SLURMD_DEBUG ?? rules.slurmdDebug;
  if (rules.mpiNoneBeforeLocalUserInit && input.current.SLURM_MPI_TYPE === undefined) env.SLURM_MPI_TYPE = 'none';
  return env;
}

/** setup_env's user variables in an srun inside a job under 24.11: the ids of a record never filled (0), no names. */
function innerUserEnv(slurmVersion: string): Record<string, string> {
  return { SLURM_JOB_UID: '0', ...(commandEnvRules(slurmVersion).jobGroup ? { SLURM_JOB_GID: '0' } : {}) };
}

/**
 * What only an srun inside a job writes: the step's distribution, which
 * the step request got from srun's defaults (launch.c: cyclic when there
 * are no more tasks than nodes, else block; unknown, and so not written,
 * with a zero --mem), and 22.05's allocation variables for het component 0
 * (_set_env_vars: the job's CPUs per node, unless already set).
 */
function innerStepEnv(slurmVersion: string, ntasks: number, inside: { nodes: number; memZero?: boolean }, current: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  const cpus = current.SLURM_JOB_CPUS_PER_NODE;
  if (commandEnvRules(slurmVersion).innerSrunPackGroup && cpus !== undefined && current.SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0 === undefined)
    env.SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0 = cpus;
  if (!inside.memZero) env.SLURM_DISTRIBUTION = defaultDistribution(ntasks, inside.nodes);
  return env;
}

/** srun's default distribution of a step (launch.c): cyclic when there are no more tasks than nodes, else block. */
function defaultDistribution(ntasks: number, nodes: number): string {
  return ntasks <= nodes ? 'cyclic' : 'block';
}

/**
 * What the task-shape options write wherever the command writes its job's
 * variables (srun's setup_env, salloc's env_array_for_job, sbatch's
 * set_envs): SLURM_CPUS_PER_TASK and SLURM_NTASKS_PER_NODE when given,
 * -m's SLURM_DISTRIBUTION and SLURM_DIST_PLANESIZE (step/distribution.ts), and
 * under 24.11 SLURM_TRES_PER_TASK with -c's cpu entry (set_env_from_opts).
 */
export function taskShapeEnv(
  slurmVersion: string,
  options: { cpusPerTask?: number; ntasksPerNode?: number; distribution?: TaskDistribution },
  current: Record<string, string | undefined>,
): Record<string, string> {
  const env: Record<string, string> = { ...distributionEnv(options.distribution) };
  if (options.cpusPerTask !== undefined) env.SLURM_CPUS_PER_TASK = String(options.cpusPerTask);
  if (options.ntasksPerNode !== undefined) env.SLURM_NTASKS_PER_NODE = String(options.ntasksPerNode);
  if (options.cpusPerTask !== undefined && commandEnvRules(slurmVersion).tresPerTaskCpu)
    env.SLURM_TRES_PER_TASK = tresWithCpus(current.SLURM_TRES_PER_TASK, options.cpusPerTask);
  return env;
}

/** slurm_option_update_tres_per_task for cpu: its entry replaced where it is, else put first. */
function tresWithCpus(tres: string | undefined, cpus: number): string {
  const entries = tres ? tres.split(',').filter(Boolean) : [];
  const i = entries.findIndex((e) => e.toLowerCase().startsWith('cpu='));
  if (i < 0) return [`cpu=${cpus}`, ...entries].join(',');
  entries[i] = `cpu=${cpus}`;
  return entries.join(',');
}

/** "NAME=value" entries of a record. */
export function entriesOf(env: Record<string, string>): string[] {
  return Object.entries(env).map(([k, v]) => `${k}=${v}`);
}
