import type { JobInfo } from '../cluster/job-info.js';
import type { JobContainerRecord } from '../job-container/record.js';
/** slurmd and its prolog/epilog helper, as plugstack plays them. */
import type { ProcessRecord } from '../host/process-record.js';
import type { DaemonMpiPlugin } from '../mpi/record.js';

export type JobScriptMode = 'prolog' | 'epilog';

/** What slurmctld's credential for the job gives the prolog and epilog. */
export interface JobCredential {
  /** A batch job (22.05 takes its partition from the batch launch request too). */
  batch?: boolean;
  /** SLURM_JOB_CPUS_PER_NODE, as uint32_compressed_to_str writes it ("2", "2(x3),1"). Default: one per node, or the tasks spread over the nodes. */
  cpusPerNode?: string;
  /** The job's account (-A): SLURM_JOB_ACCOUNT. Default: none. */
  account?: string;
  /** The job's start and end, in seconds since the epoch (24.11). Default: now; the prolog's end a year later, the epilog's now. */
  startTime?: number;
  endTime?: number;
  /** A batch job's files (sbatch's -i, -o, -e; its standard input is /dev/null). */
  stdIn?: string | null;
  stdOut?: string | null;
  stdErr?: string | null;
}

export interface JobScriptOptions {
  jobId: number;
  /** The job's user and group. Default: this process's. */
  uid?: number;
  gid?: number;
  /** SLURMD_NODENAME: the node this prolog or epilog runs on. Default: node0. */
  node?: string;
  /** The job's nodes (SLURM_NODELIST). Default: [node]. */
  nodes?: string[];
  /** SLURM_JOB_WORK_DIR. Default: this process's working directory. */
  workDir?: string;
  /** The job-control environment the job was submitted with (spank_job_control_setenv), unprefixed: it reaches the helper as SPANK_<NAME>. */
  jobControlEnv?: Record<string, string>;
  /** Plugin options given to the job; they reach the helper as SPANK__SLURM_SPANK_OPTION_<plugin>_<option>. */
  options?: { plugin: string; name: string; value: string | null }[];
  /** Tasks of the job (SLURM_JOB_NTASKS), when known. */
  ntasks?: number;
  /** The job's partition (SLURM_JOB_PARTITION). Default: the cluster's default partition. */
  partition?: string;
  /** Epilog: the job's raw exit status (SLURM_JOB_EXIT_CODE, SLURM_JOB_EXIT_CODE2). */
  exitStatus?: number;
  /** Epilog: slurmctld's derived exit code, the highest exit code of the job's srun steps (SLURM_JOB_DERIVED_EC). Default: 0. */
  derivedExitCode?: number;
  /** SLURM_CONF: the slurm.conf slurmd read (null: none). Default: the stack's, else the SLURM_CONF of its `env`; none without either. */
  slurmConf?: string | null;
  /**
   * What the job's credential carries besides the above: whether it is a
   * batch job, its CPUs per node, start and end time, standard input and
   * output files. Default: one CPU per node (or the tasks spread over the
   * nodes), started now, a year's limit (an epilog's job ended now), no files.
   */
  credential?: JobCredential;
  /**
   * Instead of building slurmd's environment: the helper's whole
   * environment, as given (what `plugstack prolog` does with its own).
   */
  environment?: Record<string, string>;
  /** PrologEpilogTimeout, in ms: the helper is killed after this long. Default: 5 minutes. */
  timeoutMs?: number;
  /**
   * The job's record as slurmctld has it, which slurm_load_job answers in
   * the helper. Default: one made of the options above (the job's id,
   * user, nodes, tasks, partition, directory, the credential's batch flag,
   * files and times), running at the prolog and, at the epilog, ended as
   * slurmctld's _job_complete leaves it with `exitStatus` and
   * `derivedExitCode`.
   */
  job?: JobInfo;
}

export interface JobScriptResult extends ProcessRecord {
  mode: JobScriptMode;
  /** 22.05: the join slurmd's child makes before it becomes the helper (JobContainerType). */
  jobContainer?: JobContainerRecord;
  jobId: number;
  node: string;
  /** The helper's exit status: 0, or 1 when a required plugin's callback returned < 0; null when killed. */
  status: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** What slurmd makes of it: a non-zero status or a kill is a failed prolog/epilog. */
  ok: boolean;
  /** The environment the helper ran with. */
  environment: Record<string, string>;
  /** The lines slurmd logs about the run (empty when it went well). */
  slurmdLog: string[];
}

export interface SlurmdOptions {
  /** The node this slurmd serves. Default: node0. */
  node?: string;
  /** slurmd -c (clean start): restore is called with recover false. */
  cleanStart?: boolean;
  /** How long init, and later slurmd_exit, may take. Default: 5 minutes. */
  timeoutMs?: number;
}

export interface SlurmdStop extends ProcessRecord {
  /** slurmd_exit's stack result (24.11 logs a failure; it changes nothing). */
  exitRc: number | null;
}

/** A running emulated slurmd: its SPANK stack with init done. */
export interface SlurmdDaemon {
  node: string;
  /** False when init (or loading the stack) failed: slurmd does not start. */
  started: boolean;
  initRc: number;
  /** Whether any plugin of plugstack.conf defines job_prolog / job_epilog: slurmd then runs the SPANK helper for prologs / epilogs. */
  runsJobProlog: boolean;
  runsJobEpilog: boolean;
  /** What happened in slurmd's plugin code so far. */
  record: ProcessRecord;
  /**
   * The mpi plugins slurmd loaded at start, after SPANK's init: every
   * mpi_*.so of PluginDir and plugstack's own (pmi2; none for 22.05), each
   * one's init() run; one that fails is passed over, and slurmd does not
   * start when none loads. Their fini() runs at stop, before slurmd_exit.
   */
  mpi: DaemonMpiPlugin[];
  /**
   * slurm.conf's JobContainerType: its plugins loaded after SPANK's init
   * (one that does not load stops slurmd), and what restore
   * (SlurmdSpoolDir, recover) and later fini did: calls in slurmd's process.
   */
  jobContainer?: JobContainerRecord;
  /** Shuts slurmd down: slurmd_exit, then the stack is unloaded. */
  stop(): Promise<SlurmdStop>;
}
