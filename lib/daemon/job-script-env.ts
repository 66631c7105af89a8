/**
 * The environment slurmd builds for a prolog or epilog (the prep/script
 * plugin's _build_env): the job-control environment with every name
 * prefixed SPANK_, then slurmd's variables (its node, SLURM_CONF, the job's
 * ids, user, nodes, the script context, an epilog's exit status), then
 * those the job's credential carries (CPUs per node, task and node counts,
 * partition, restart count, a batch job's standard input and output files,
 * and under 24.11 its start and end time, oversubscription, core
 * specialisation and user), in the order slurmd writes them
 * (env-order.ts).
 */
import { native } from '../native/binding.js';
import { CLUSTER_NAME, PARTITION } from '../cluster/names.js';
import { releaseRules } from '../releases.generated.js';
import { jobScriptEnvInOrder } from '../cluster/env-order.js';
import { compressCounts, compressHostlist } from '../step/layout.js';
import { spankOptionEnvName } from '../step/launch.js';
import type { JobCredential, JobScriptMode } from './types.js';

export interface JobScriptEnvInput {
  mode: JobScriptMode;
  slurmVersion: string;
  jobId: number;
  uid: number;
  gid: number;
  node: string;
  nodes: string[];
  workDir: string;
  jobControlEnv: Record<string, string>;
  options: { plugin: string; name: string; value: string | null }[];
  ntasks?: number;
  exitStatus?: number;
  derivedExitCode?: number;
  /** SLURM_CONF of slurmd, when there is one. */
  slurmConf?: string;
  /** The cluster's name and the job's partition (default: plugstack's own). */
  clusterName?: string;
  partition?: string;
  /** What the job's credential carries beyond that (defaults: jobCredential's). */
  credential?: JobCredential;
}

/** slurmctld sets the end of a job without a time limit a year after its start. */
const YEAR_SECONDS = 365 * 24 * 60 * 60;

/** The tasks spread over the nodes as the job's do (at least 1 CPU per node): SLURM_JOB_CPUS_PER_NODE. */
function cpusPerNode(nodes: number, ntasks: number | undefined): string {
  const tasks = ntasks || nodes;
  return compressCounts(Array.from({ length: nodes }, (_, i) => Math.max(1, Math.floor(tasks / nodes) + (i < tasks % nodes ? 1 : 0))));
}

/** uid_to_string: the user's name from the user database (LDAP and SSSD users too), or "nobody". */
export function userName(uid: number): string {
  return native().userByUid(uid)?.name ?? 'nobody';
}

/** valid_spank_job_env: a name that does not start with SPANK_ gets the prefix. */
function spankPrefixed(name: string): string {
  return name.startsWith('SPANK_') ? name : `SPANK_${name}`;
}

export function jobScriptEnv(input: JobScriptEnvInput): Record<string, string> {
  const rules = releaseRules(input.slurmVersion).jobScript;
  const spank: Record<string, string> = {};
  // The job's spank_job_env: the job-control variables and, from srun, the
  // option variables (_SLURM_SPANK_OPTION_*; "(null)" for a flag).
  for (const [k, v] of Object.entries(input.jobControlEnv)) spank[spankPrefixed(k)] = v;
  for (const o of input.options) spank[spankPrefixed(spankOptionEnvName(o.plugin, o.name))] = o.value ?? '(null)';
  const nodeList = compressHostlist(input.nodes);
  const cred = input.credential ?? {};
  const now = Math.floor(Date.now() / 1000);
  const start = cred.startTime ?? now;
  const env: Record<string, string> = {
    SLURMD_NODENAME: input.node,
    // slurmd's slurm.conf; plugstack without one names none (as slurmstepd's).
    ...(input.slurmConf !== undefined ? { SLURM_CONF: input.slurmConf } : {}),
    SLURM_CLUSTER_NAME: input.clusterName ?? CLUSTER_NAME,
    SLURM_JOB_ID: String(input.jobId),
    SLURM_JOB_UID: String(input.uid),
    SLURM_JOB_GID: String(input.gid),
    SLURM_JOB_WORK_DIR: input.workDir,
    SLURM_JOB_USER: userName(input.uid),
    SLURM_JOBID: String(input.jobId),
    SLURM_UID: String(input.uid),
    SLURM_NODELIST: nodeList,
    SLURM_SCRIPT_CONTEXT: input.mode === 'epilog' ? 'epilog_slurmd' : 'prolog_slurmd',
    // The credential's.
    SLURM_JOB_CPUS_PER_NODE: cred.cpusPerNode ?? cpusPerNode(input.nodes.length, input.ntasks),
    SLURM_JOB_NUM_NODES: String(input.nodes.length),
    SLURM_JOB_PARTITION: input.partition ?? PARTITION,
    SLURM_JOB_RESTART_COUNT: '0',
  };
  if (rules.jobNodelist) env.SLURM_JOB_NODELIST = nodeList;
  // The credential's task count is the job's (-n), when it has one.
  if (input.ntasks) env.SLURM_JOB_NTASKS = String(input.ntasks);
  if (input.mode === 'epilog' && input.exitStatus !== undefined) {
    const s = input.exitStatus;
    const exited = (s & 0x7f) === 0;
    env.SLURM_JOB_DERIVED_EC = String(input.derivedExitCode ?? 0);
    env.SLURM_JOB_EXIT_CODE = String(s);
    env.SLURM_JOB_EXIT_CODE2 = `${exited ? (s >> 8) & 0xff : 0}:${exited ? 0 : s & 0x7f}`;
  }
  if (rules.coreSpec) Object.assign(env, { SLURM_JOB_CORE_SPEC_COUNT: '0', SLURM_JOB_CORE_SPEC_TYPE: 'cores' });
  if (rules.credentialTimes) {
    env.SLURM_JOB_START_TIME = String(start);
    env.SLURM_JOB_END_TIME = String(cred.endTime ?? (input.mode === 'epilog' ? now : start + YEAR_SECONDS));
  }
  if (rules.oversubscribe) env.SLURM_JOB_OVERSUBSCRIBE = 'NO';
  if (cred.account !== undefined) env.SLURM_JOB_ACCOUNT = cred.account;
  if (cred.stdErr) env.SLURM_JOB_STDERR = cred.stdErr;
  if (cred.stdIn) env.SLURM_JOB_STDIN = cred.stdIn;
  if (cred.stdOut) env.SLURM_JOB_STDOUT = cred.stdOut;
  // 22.05: only the batch launch request names the partition (not the epilog's).
  return { ...spank, ...jobScriptEnvInOrder(env, input.slurmVersion, input.mode === 'prolog' && (cred.batch ?? false)) };
}
