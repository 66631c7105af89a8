/**
 * The environment slurmd builds for a prolog or epilog (the prep/script
 * plugin's _build_env): the job-control environment with every name
 * prefixed SPANK_, then the job's ids, user, nodes and, for an epilog, its
 * exit status.
 */
import { native } from '../native/binding.js';
import { CLUSTER_NAME, PARTITION } from '../cluster/names.js';
import { releaseRules } from '../releases.generated.js';
import { compressHostlist } from '../step/layout.js';
import { spankOptionEnvName } from '../step/launch.js';
import type { JobScriptMode } from './types.js';

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
  /** SLURM_CONF of slurmd, when there is one. */
  slurmConf?: string;
  /** The cluster's name and the job's partition (default: plugstack's own). */
  clusterName?: string;
  partition?: string;
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
  const env: Record<string, string> = {};
  // The job's spank_job_env: the job-control variables and, from srun, the
  // option variables (_SLURM_SPANK_OPTION_*; "(null)" for a flag).
  for (const [k, v] of Object.entries(input.jobControlEnv)) env[spankPrefixed(k)] = v;
  for (const o of input.options) env[spankPrefixed(spankOptionEnvName(o.plugin, o.name))] = o.value ?? '(null)';
  const nodeList = compressHostlist(input.nodes);
  Object.assign(env, {
    SLURMD_NODENAME: input.node,
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
    SLURM_JOB_PARTITION: input.partition ?? PARTITION,
    SLURM_SCRIPT_CONTEXT: input.mode === 'epilog' ? 'epilog_slurmd' : 'prolog_slurmd',
    SLURM_JOB_NUM_NODES: String(input.nodes.length),
  });
  if (releaseRules(input.slurmVersion).jobScript.jobNodelist) env.SLURM_JOB_NODELIST = nodeList;
  if (input.ntasks !== undefined) env.SLURM_JOB_NTASKS = String(input.ntasks);
  if (input.mode === 'epilog' && input.exitStatus !== undefined) {
    const s = input.exitStatus;
    const exited = (s & 0x7f) === 0;
    env.SLURM_JOB_DERIVED_EC = '0';
    env.SLURM_JOB_EXIT_CODE = String(s);
    env.SLURM_JOB_EXIT_CODE2 = `${exited ? (s >> 8) & 0xff : 0}:${exited ? 0 : s & 0x7f}`;
  }
  return env;
}
