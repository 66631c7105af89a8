/**
 * One job prolog or epilog on one node: slurmd's helper process
 * ("slurmstepd spank prolog|epilog"), a fresh host process in job_script
 * context with the environment slurmd builds, killed after
 * PrologEpilogTimeout like run_command does.
 */
import { addJobContainerEvents, type JobContainerRecord } from '../job-container/record.js';
import { jobContainerSettings } from '../job-container/settings.js';
import type { SlurmConf } from '../config/slurm-conf.js';
import { constants } from 'node:os';
import { PlugstackError, invalidArgument } from '../errors.js';
import { startHost, type HostHandle } from '../host/host-process.js';
import type { SpareHost } from '../host/spare-host.js';
import type { HostSpawnOptions } from '../host/zygote.js';
import { processRecord } from '../host/process-record.js';
import { uint32 } from '../validate.js';
import { jobScriptEnv } from './job-script-env.js';
import { endedJobInfo, jobInfo, stepJobDescription, type JobInfo } from '../cluster/job-info.js';
import { CLUSTER_NAME, PARTITION } from '../cluster/names.js';
import type { JobCredential, JobScriptMode, JobScriptOptions, JobScriptResult } from './types.js';

export interface JobScriptStack {
  conf: string;
  slurmVersion: string;
  pluginDirs: readonly string[];
  hostEnv?: NodeJS.ProcessEnv;
  /** slurm.conf's PrologEpilogTimeout: the default bound of a helper. */
  prologEpilogTimeoutMs?: number;
  /** The job's cluster and partition names (slurm.conf's, or plugstack's own). */
  cluster?: { name: string; defaultPartition?: string };
  /** The slurm.conf slurmd reads (SLURM_CONF of the helper). */
  slurmConfPath?: string;
  /** The slurm.conf itself (JobContainerType and the flags that go with it). */
  slurmConf?: import('../config/slurm-conf.js').SlurmConf;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

const osSignals = constants.signals as Record<string, number>;

/** The credential's fields a caller gave, checked (JobScriptOptions.credential). */
function checkedCredential(credential: unknown): JobCredential | undefined {
  if (credential === undefined) return undefined;
  if (!credential || typeof credential !== 'object') throw invalidArgument('credential', 'an object', credential);
  const c = credential as Record<string, unknown>;
  if (c.batch !== undefined && typeof c.batch !== 'boolean') throw invalidArgument('credential.batch', 'a boolean', c.batch);
  if (c.cpusPerNode !== undefined && (typeof c.cpusPerNode !== 'string' || !/^\d+(\(x\d+\))?(,\d+(\(x\d+\))?)*$/.test(c.cpusPerNode)))
    throw invalidArgument('credential.cpusPerNode', 'counts such as "2" or "2(x3),1"', c.cpusPerNode);
  if (c.account !== undefined && (typeof c.account !== 'string' || c.account.includes('\0'))) throw invalidArgument('credential.account', 'a string', c.account);
  for (const k of ['startTime', 'endTime']) if (c[k] !== undefined) uint32(`credential.${k}`, c[k], 0);
  for (const k of ['stdIn', 'stdOut', 'stdErr'])
    if (c[k] !== undefined && c[k] !== null && (typeof c[k] !== 'string' || (c[k] as string).includes('\0')))
      throw invalidArgument(`credential.${k}`, 'a path or null', c[k]);
  return c as JobCredential;
}

/** What a helper's run is made of: its checked options and the environment slurmd builds for it. */
function helperRun(stack: JobScriptStack, mode: JobScriptMode, options: JobScriptOptions) {
  if (!options || typeof options !== 'object') throw invalidArgument('options', 'an object', options);
  if (options.jobId === undefined) throw invalidArgument('jobId', 'the job id', undefined);
  const jobId = uint32('jobId', options.jobId, 0);
  const uid = uint32('uid', options.uid, process.getuid!());
  const gid = uint32('gid', options.gid, process.getgid!());
  const jobStatus = options.exitStatus === undefined ? undefined : uint32('exitStatus', options.exitStatus, 0);
  const derivedExitCode = options.derivedExitCode === undefined ? undefined : uint32('derivedExitCode', options.derivedExitCode, 0);
  const ntasks = options.ntasks === undefined ? undefined : uint32('ntasks', options.ntasks, 0);
  const timeoutMs = uint32('timeoutMs', options.timeoutMs, stack.prologEpilogTimeoutMs ?? DEFAULT_TIMEOUT_MS);
  const node = options.node ?? 'node0';
  if (typeof node !== 'string' || node === '') throw invalidArgument('node', 'a node name', node);
  const nodes = options.nodes ?? [node];
  if (!Array.isArray(nodes) || nodes.some((n) => typeof n !== 'string' || n === ''))
    throw invalidArgument('nodes', 'an array of node names', nodes);

  if (options.slurmConf !== undefined && options.slurmConf !== null && (typeof options.slurmConf !== 'string' || options.slurmConf === ''))
    throw invalidArgument('slurmConf', 'a path or null', options.slurmConf);
  const credential = checkedCredential(options.credential);
  const slurmConf = options.slurmConf === null ? undefined : (options.slurmConf ?? stack.slurmConfPath ?? (stack.hostEnv ?? process.env).SLURM_CONF);
  const partition = options.partition ?? stack.cluster?.defaultPartition;
  const environment =
    options.environment ??
    jobScriptEnv({
      mode,
      slurmVersion: stack.slurmVersion,
      jobId,
      uid,
      gid,
      node,
      nodes,
      workDir: options.workDir ?? process.cwd(),
      jobControlEnv: options.jobControlEnv ?? {},
      options: options.options ?? [],
      ...(ntasks !== undefined ? { ntasks } : {}),
      ...(jobStatus !== undefined ? { exitStatus: jobStatus } : {}),
      ...(derivedExitCode !== undefined ? { derivedExitCode } : {}),
      ...(slurmConf !== undefined ? { slurmConf } : {}),
      ...(stack.cluster ? { clusterName: stack.cluster.name } : {}),
      ...(partition !== undefined ? { partition } : {}),
      ...(credential ? { credential } : {}),
    });
  return { jobId, node, timeoutMs, environment, uid, gid, nodes, ntasks, partition, credential, jobStatus, derivedExitCode };
}

/**
 * The record slurm_load_job answers in a helper run through the API when
 * the caller gave none (JobScriptOptions.job): a job made of the options,
 * as launchStep makes one of its step — running at the prolog; at the
 * epilog ended with the options' exit status and derived exit code, as
 * slurmctld's _job_complete leaves it.
 */
export function jobScriptRecord(stack: JobScriptStack, mode: JobScriptMode, options: JobScriptOptions): JobInfo {
  const o = helperRun(stack, mode, options);
  // A whole environment given (plugstack prolog without --job-id) names the job as slurmd would.
  const given = (...names: string[]) => {
    const value = names.map((n) => options.environment?.[n]).find((v) => v !== undefined && /^\d+$/.test(v));
    return value === undefined ? undefined : Number(value);
  };
  const uid = given('SLURM_JOB_UID', 'SLURM_UID') ?? o.uid;
  const gid = given('SLURM_JOB_GID', 'SLURM_GID') ?? o.gid;
  const now = Math.floor(Date.now() / 1000);
  const running = jobInfo(
    {
      id: given('SLURM_JOB_ID', 'SLURM_JOBID') ?? o.jobId,
      nodes: options.environment?.SLURMD_NODENAME ? [options.environment.SLURMD_NODENAME] : o.nodes,
      ...(o.ntasks !== undefined ? { ntasks: o.ntasks } : {}),
      partition: o.partition ?? PARTITION,
      clusterName: stack.cluster?.name ?? CLUSTER_NAME,
      description: {
        ...stepJobDescription({ uid, gid, argv: ['-'], cwd: options.workDir ?? process.cwd() }),
        // Nothing says what the job ran or what it was called.
        name: null,
        command: null,
        batch: o.credential?.batch ?? false,
        stdIn: o.credential?.stdIn ?? null,
        stdOut: o.credential?.stdOut ?? null,
        stdErr: o.credential?.stdErr ?? null,
        submitTime: o.credential?.startTime ?? now,
      },
    },
    stack.slurmVersion,
  );
  const record = o.credential?.endTime !== undefined && mode === 'prolog' ? { ...running, end_time: o.credential.endTime } : running;
  if (mode === 'prolog') return record;
  const end = { exitStatus: given('SLURM_JOB_EXIT_CODE') ?? o.jobStatus ?? 0, derivedExitCode: given('SLURM_JOB_DERIVED_EC') ?? o.derivedExitCode ?? 0 };
  return endedJobInfo(record, end, o.credential?.endTime ?? now, stack.slurmVersion);
}

/** The environment slurmd builds for a helper with these options (checked as runJobScript checks them). */
export function jobScriptEnvironment(stack: JobScriptStack, mode: JobScriptMode, options: JobScriptOptions): Record<string, string> {
  return helperRun(stack, mode, options).environment;
}

/** The name a helper's spare process goes by. */
function helperKey(mode: JobScriptMode, jobId: number, node: string): string {
  return `job_script ${mode} ${jobId} ${node}`;
}

/** Who starts helpers ahead (the command's control). */
export interface SpareOwner {
  prestart(key: string, role: 'job_script', options: HostSpawnOptions): void;
}

/**
 * Starts a helper's process before it may run (spare-host.ts): the prolog
 * while srun's own calls go on, the epilog while srun ends. runJobScript
 * hands it its request when its owner gives it back.
 */
export function prestartJobScript(stack: JobScriptStack, mode: JobScriptMode, options: JobScriptOptions, owner: SpareOwner): void {
  // 22.05's slurmd joins the job's container first: that helper starts when it runs.
  if (jobContainerSettings(stack.slurmConf)) return;
  const { jobId, node, environment } = helperRun(stack, mode, options);
  owner.prestart(helperKey(mode, jobId, node), 'job_script', { env: environment, cwd: '/', stdin: false });
}

export async function runJobScript(
  stack: JobScriptStack,
  mode: JobScriptMode,
  options: JobScriptOptions,
  owner?: { track(handle: HostHandle): HostHandle; spare?(key: string): SpareHost | undefined },
  /** The job's record as slurmctld has it while the helper runs (slurm_load_job's answer); none: the helper knows no job. */
  job?: JobInfo,
): Promise<JobScriptResult> {
  const { jobId, node, timeoutMs, environment } = helperRun(stack, mode, options);

  const handle = startHost(
    'job_script',
    {
      conf: stack.conf,
      context: 'job_script',
      mode,
      slurmVersion: stack.slurmVersion,
      pluginDirs: stack.pluginDirs,
      // 22.05's slurmd joins the job's container in the helper's process first.
      ...(jobContainerSettings(stack.slurmConf) ? { jobContainer: jobContainerSettings(stack.slurmConf)! } : {}),
      ...(job ? { job } : {}),
    },
    // The helper gets exactly the environment slurmd built, nothing of ours.
    { label: `spank ${mode} on ${node}`, timeoutMs, env: environment, cwd: '/', spare: owner?.spare?.(helperKey(mode, jobId, node)) },
  );
  owner?.track(handle);
  const run = await handle.finished;
  const fatal = run.events.find((e) => e.t === 'fatal');
  if (fatal && fatal.t === 'fatal') throw new PlugstackError('HOST_FAILED', `plugstack-host refused the ${mode}: ${fatal.message}`);
  // A helper that reported and ended is not a fault, whatever its status.
  const record = processRecord(run, 'job_script', { ignoreFault: run.done !== undefined && run.fault?.kind === 'exit' });

  const timedOut = run.fault?.kind === 'timeout';
  // run_command reports the wait status; a timed-out helper was SIGKILLed.
  const reported = run.done && typeof run.done.status === 'number' ? run.done.status : undefined;
  const exitStatus = reported ?? run.exitCode ?? 1;
  const waitStatus = timedOut ? osSignals.SIGKILL! : run.signal ? (osSignals[run.signal] ?? 0) : (exitStatus & 0xff) << 8;
  const slurmdLog: string[] = [];
  if (timedOut) slurmdLog.push(`spank/${mode} timed out`);
  if (waitStatus !== 0) slurmdLog.push(`spank/${mode} returned status 0x${waitStatus.toString(16).padStart(4, '0')} response=${run.stdout}`);
  return {
    mode,
    jobId,
    node,
    status: timedOut || run.signal ? null : exitStatus,
    signal: timedOut ? 'SIGKILL' : run.signal,
    timedOut,
    ok: waitStatus === 0,
    environment,
    slurmdLog,
    ...record,
    ...(jobContainerSettings(stack.slurmConf) ? { jobContainer: jcRecord(stack.slurmConf!, run.events) } : {}),
  };
}

function jcRecord(conf: SlurmConf, events: readonly import('../host/protocol.js').HostEvent[]): JobContainerRecord {
  const record: JobContainerRecord = { types: conf.jobContainerTypes.map((t) => `job_container/${t}`), calls: [] };
  addJobContainerEvents(record, events);
  return record;
}
