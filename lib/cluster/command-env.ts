/**
 * The environments of Slurm's own processes, as plugins see them with
 * getenv(3): what srun, sbatch and salloc write into their own environment
 * as they go (so local and allocator callbacks see it, and what a plugin
 * sets there reaches the job), and slurmd's, which slurmstepd inherits
 * (not the caller's). Measured on a real 22.05 and a real 24.11 with the
 * environ fixture (test/conformance/environ.test.ts).
 *
 * What differs between releases is the table below, one row per release.
 */
import { native } from '../native/binding.js';
import { userName } from '../daemon/job-script-env.js';

export interface CommandEnvRules {
  /**
   * srun sets these before local_user_init (env.c, setup_env's external
   * launcher variables: MPICH's, Intel MPI's, Open MPI's and PRRTE's
   * bootstrap through srun; 24.11).
   */
  readonly launcherVars: Readonly<Record<string, string>>;
  /** setup_env writes SLURM_JOB_GID and SLURM_JOB_GROUP into srun's environment (24.11). */
  readonly jobGroup: boolean;
  /** setup_env writes SLURMD_DEBUG (srun's slurmd debug level, 2 unless -d) into srun's environment (24.11). */
  readonly slurmdDebug: string | null;
  /**
   * SLURM_MPI_TYPE is in srun's environment only from when the mpi plugin
   * loads (22.05, before init_post_opt); otherwise (24.11) "none" appears
   * with the job's variables, before local_user_init, when no plugin loads.
   */
  readonly mpiNoneBeforeLocalUserInit: boolean;
  /** slurmstepd has SLURM_MPI_TYPE of an srun step in its own environment (22.05: its mpi plugin's init sets it). */
  readonly stepdMpiType: boolean;
  /** S_JOB_UID and S_JOB_GID in srun's local_user_init: the caller's ids (22.05) or SLURM_AUTH_NOBODY (24.11 resets the option's uid and gid to 99 and srun passes those). */
  readonly localUserInitNobody: boolean;
}

const EXTERNAL_LAUNCHER = '--external-launcher';

export const COMMAND_ENV_RULES: Readonly<Record<'22.05' | '24.11', CommandEnvRules>> = {
  '24.11': {
    launcherVars: {
      HYDRA_BOOTSTRAP: 'slurm',
      HYDRA_LAUNCHER_EXTRA_ARGS: EXTERNAL_LAUNCHER,
      I_MPI_HYDRA_BOOTSTRAP: 'slurm',
      I_MPI_HYDRA_BOOTSTRAP_EXEC_EXTRA_ARGS: EXTERNAL_LAUNCHER,
      OMPI_MCA_plm_slurm_args: EXTERNAL_LAUNCHER,
      PRTE_MCA_plm_slurm_args: EXTERNAL_LAUNCHER,
    },
    jobGroup: true,
    slurmdDebug: '2',
    mpiNoneBeforeLocalUserInit: true,
    stepdMpiType: false,
    localUserInitNobody: true,
  },
  '22.05': {
    launcherVars: {},
    jobGroup: false,
    slurmdDebug: null,
    mpiNoneBeforeLocalUserInit: false,
    stepdMpiType: true,
    localUserInitNobody: false,
  },
};

/** SLURM_AUTH_NOBODY: the uid and gid 24.11's srun hands local_user_init. */
export const SLURM_AUTH_NOBODY = 99;

export function commandEnvRules(slurmVersion: string): CommandEnvRules {
  const line = slurmVersion.split('.').slice(0, 2).join('.');
  const rules = COMMAND_ENV_RULES[line as '22.05' | '24.11'];
  if (!rules) throw new Error(`no command environment rules for Slurm ${slurmVersion}`);
  return rules;
}

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
}): Record<string, string> {
  const rules = commandEnvRules(input.slurmVersion);
  const env: Record<string, string> = {
    SLURM_NTASKS: String(input.ntasks),
    SLURM_NPROCS: String(input.ntasks),
    SLURM_STEP_ID: String(input.stepId),
    SLURM_STEPID: String(input.stepId),
    ...jobUserEnv(input.slurmVersion, input.uid, input.gid),
    ...rules.launcherVars,
  };
  if (rules.slurmdDebug !== null) env.SLURMD_DEBUG = input.current.SLURMD_DEBUG ?? rules.slurmdDebug;
  if (rules.mpiNoneBeforeLocalUserInit && input.current.SLURM_MPI_TYPE === undefined) env.SLURM_MPI_TYPE = 'none';
  return env;
}

/** "NAME=value" entries of a record. */
export function entriesOf(env: Record<string, string>): string[] {
  return Object.entries(env).map(([k, v]) => `${k}=${v}`);
}
