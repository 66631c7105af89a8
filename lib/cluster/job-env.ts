/**
 * The job variables Slurm's commands put in an environment: srun's and
 * salloc's for an allocation (env_array_for_job), sbatch's batch job
 * (env_array_for_batch_job), and what the commands add themselves
 * (SLURM_SUBMIT_DIR, SLURM_CLUSTER_NAME, ...).
 */
import os from 'node:os';
import path from 'node:path';
import { compressCounts, compressHostlist } from '../step/layout.js';
import { workingCluster, type ControllerAddress } from './names.js';
import type { Job } from './jobs.js';

export interface JobEnvInput {
  job: Job;
  jobName: string;
  submitDir: string;
  /** Tasks per node of the allocation; CPUs per node follow it where the job does not have whole nodes. */
  tasksPerNode: number[];
  ntasks?: number;
  cpusPerTask?: number;
  /** The job asked for -O (env_array_for_job: SLURM_OVERCOMMIT). */
  overcommit?: boolean;
}

/** What slurmctld hands back of the job's request: its memory (pn_min_memory) and account. */
function jobOptionEnv(job: Job): Record<string, string> {
  const env: Record<string, string> = {};
  if (job.memory) env[job.memory.perCpu ? 'SLURM_MEM_PER_CPU' : 'SLURM_MEM_PER_NODE'] = String(job.memory.mb);
  if (job.account !== undefined) env.SLURM_JOB_ACCOUNT = job.account;
  return env;
}

/** What env_array_for_batch_job also writes, on the batch host. */
export interface BatchHostInput {
  /** The batch host's name, as HOSTNAME. */
  node: string;
  /** SLURM_NODE_ALIASES from a NULL alias list, "(null)" (22.05). */
  nodeAliasesNull: boolean;
}

/** SLURM_JOB_CPUS_PER_NODE: the job's CPUs on each node (whole nodes), else its tasks (at least one a node). */
function jobCpusPerNode(input: Pick<JobEnvInput, 'job' | 'tasksPerNode'>): string {
  return compressCounts(input.job.cpusPerNode ?? input.tasksPerNode.map((n) => Math.max(1, n)));
}

/** env_array_for_job: the allocation, as srun and salloc export it. */
export function allocationEnv(input: JobEnvInput): Record<string, string> {
  const nodes = compressHostlist(input.job.nodes);
  const cpus = jobCpusPerNode(input);
  return {
    SLURM_JOB_ID: String(input.job.id),
    SLURM_JOB_NAME: input.jobName,
    SLURM_JOB_NUM_NODES: String(input.job.nodes.length),
    SLURM_JOB_NODELIST: nodes,
    SLURM_JOB_PARTITION: input.job.partition,
    SLURM_JOB_CPUS_PER_NODE: cpus,
    SLURM_JOBID: String(input.job.id),
    SLURM_NNODES: String(input.job.nodes.length),
    SLURM_NODELIST: nodes,
    SLURM_TASKS_PER_NODE: compressCounts(input.tasksPerNode),
    ...jobOptionEnv(input.job),
    ...(input.overcommit ? { SLURM_OVERCOMMIT: '1' } : {}),
    SLURM_CLUSTER_NAME: input.job.clusterName,
    SLURM_SUBMIT_DIR: input.submitDir,
    SLURM_SUBMIT_HOST: os.hostname(),
  };
}

/** env_array_for_batch_job: the batch script's job variables (SLURM_JOB_NAME may be absent: 22.05, a script read from standard input). */
export function batchJobEnv(input: Omit<JobEnvInput, 'jobName'> & { jobName: string | undefined }, host?: BatchHostInput): Record<string, string> {
  const env: Record<string, string> = {
    SLURM_CLUSTER_NAME: input.job.clusterName,
    SLURM_JOB_ID: String(input.job.id),
    SLURM_JOB_NUM_NODES: String(input.job.nodes.length),
    SLURM_JOB_NODELIST: compressHostlist(input.job.nodes),
    SLURM_JOB_PARTITION: input.job.partition,
    ...(host?.nodeAliasesNull ? { SLURM_NODE_ALIASES: '(null)' } : {}),
    SLURM_JOB_CPUS_PER_NODE: jobCpusPerNode(input),
    ENVIRONMENT: 'BATCH',
    ...(host ? { HOSTNAME: host.node } : {}),
    SLURM_JOBID: String(input.job.id),
    SLURM_NNODES: String(input.job.nodes.length),
    SLURM_NODELIST: compressHostlist(input.job.nodes),
    SLURM_TASKS_PER_NODE: compressCounts(input.tasksPerNode),
    ...jobOptionEnv(input.job),
    ...(input.jobName !== undefined ? { SLURM_JOB_NAME: input.jobName } : {}),
    SLURM_SUBMIT_DIR: input.submitDir,
    SLURM_SUBMIT_HOST: os.hostname(),
  };
  if (input.cpusPerTask !== undefined) env.SLURM_CPUS_PER_TASK = String(input.cpusPerTask);
  if (input.ntasks !== undefined) {
    env.SLURM_NTASKS = String(input.ntasks);
    env.SLURM_NPROCS = String(input.ntasks);
  }
  return env;
}

/**
 * What an srun inside the job needs to find the same plugin stack: the
 * `srun` on the PATH runs `plugstack run`, which reads these.
 */
export function plugstackEnv(
  stack: {
    conf: string;
    slurmVersion: string;
    pluginDirs: readonly string[];
    slurmConf?: { path: string };
    cliFilter?: { lua?: string; strict?: boolean; userDefaults?: string };
  },
  shimDir: string,
  pathVar: string | undefined,
): Record<string, string> {
  const cf = stack.cliFilter ?? {};
  return {
    // The srun inside reads the same slurm.conf, as Slurm's commands do,
    // and runs its cli_filter plugins the same way.
    ...(stack.slurmConf ? { SLURM_CONF: stack.slurmConf.path } : {}),
    ...(cf.lua ? { PLUGSTACK_LUA: cf.lua } : {}),
    ...(cf.strict ? { PLUGSTACK_STRICT: '1' } : {}),
    ...(cf.userDefaults ? { PLUGSTACK_USER_DEFAULTS: cf.userDefaults } : {}),
    PLUGSTACK_CONF: stack.conf,
    PLUGSTACK_SLURM_VERSION: stack.slurmVersion,
    PLUGSTACK_PLUGIN_DIR: stack.pluginDirs.join(':'),
    PATH: pathVar ? `${shimDir}${path.delimiter}${pathVar}` : shimDir,
  };
}

/**
 * What srun and sbatch write into their own environment before it goes to
 * the job (_set_rlimit_env, set_prio_process_env, _set_umask_env, and for srun setup_env's
 * flags), so tasks see them. SLURM_UMASK and SRUN_DEBUG keep a value
 * inherited from an enclosing job.
 */
export function commandProcessEnv(
  command: 'srun' | 'sbatch',
  current: Record<string, string>,
  settings: { slurmVersion: string; clusterName: string; controller?: ControllerAddress; overcommit?: boolean; verbose?: number; quiet?: boolean; rlimits?: Record<string, string> },
): Record<string, string> {
  const mask = process.umask();
  const env: Record<string, string> = {
    // _set_rlimit_env, right before set_prio_process_env (limits.ts).
    ...settings.rlimits,
    SLURM_PRIO_PROCESS: String(os.getPriority()),
    SLURM_UMASK: current.SLURM_UMASK ?? `0${(mask >> 6) & 7}${(mask >> 3) & 7}${mask & 7}`,
  };
  if (command === 'sbatch') return env;
  // LOG_LEVEL_INFO is 3; -v and -q move it.
  env.SRUN_DEBUG = current.SRUN_DEBUG ?? String(3 + (settings.verbose ?? 0) - (settings.quiet ? 1 : 0));
  if (settings.overcommit) env.SLURM_OVERCOMMIT = '1';
  const cluster = workingCluster(settings.slurmVersion, settings.clusterName, settings.controller);
  if (cluster !== undefined) env.SLURM_WORKING_CLUSTER = cluster;
  return env;
}

/** Applies NAME=value overrides to an environment list, keeping its order. */
export function overlayEnv(list: string[], extra: Record<string, string>): string[] {
  const out = [...list];
  const index = new Map(out.map((e, i) => [e.slice(0, e.indexOf('=')), i]));
  for (const [k, v] of Object.entries(extra)) {
    const i = index.get(k);
    if (i !== undefined) out[i] = `${k}=${v}`;
    else {
      index.set(k, out.length);
      out.push(`${k}=${v}`);
    }
  }
  return out;
}

export function envRecord(list: string[]): Record<string, string> {
  return Object.fromEntries(list.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
}

export function envList(env: Record<string, string | undefined>): string[] {
  return Object.entries(env)
    .filter((kv): kv is [string, string] => typeof kv[1] === 'string')
    .map(([k, v]) => `${k}=${v}`);
}
