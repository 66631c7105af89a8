import type { TaskInputPlan } from './task-input.js';
import type { StepOutputPlan } from './task-output.js';
/** A job step as slurmd receives it, and what came of it. */
import type { Problem } from '../check/types.js';
import type { JobInfo } from '../host/protocol.generated.js';
import type { MpiRecord } from '../mpi/record.js';
import type { JobContainerRecord } from '../job-container/record.js';

/** A plugin option as the launcher forwards it: `--<name>` of the plugin called `plugin` (its plugin_name). */
export interface SpankOptionValue {
  plugin: string;
  name: string;
  /** The argument; null or absent for an option without one. */
  value?: string | null;
}

export interface StepOptions {
  /** The command every task runs. */
  argv: string[];
  jobId?: number;
  /** Default 0. Use 0xfffffffb (SLURM_BATCH_SCRIPT) for a batch step. */
  stepId?: number;
  /**
   * A batch step's array ids, as the batch launch carries them
   * (S_JOB_ARRAY_ID, S_JOB_ARRAY_TASK_ID): an array task's, or 0 and NO_VAL
   * (the default) for a job outside an array. Other steps take them from
   * SLURM_ARRAY_JOB_ID and SLURM_ARRAY_TASK_ID of their environment, else
   * their job's id and NO_VAL, as slurmstepd does.
   */
  batchArray?: { jobId: number; taskId: number };
  /** Number of nodes (one stepd host process each). Default 1. */
  nodes?: number;
  /** Number of tasks, spread over the nodes in blocks. Default: one per node. */
  ntasks?: number;
  /** Node names; default node0, node1, ... */
  nodeNames?: string[];
  /**
   * How the tasks are spread over the nodes, as srun's -m takes it: 'block'
   * (the default), 'cyclic', 'plane=N', 'arbitrary' with `taskHosts`
   * (other levels and flags are accepted and lay the nodes out by their
   * first level; 'arbitrary' without `taskHosts` is block).
   */
  distribution?: string;
  /**
   * With distribution 'arbitrary': the node of each task, in task order
   * (one of `nodeNames` per task, each node named at least once), as
   * srun's -w list lays them out.
   */
  taskHosts?: string[];
  /** The launch environment (srun's, as it sends it). Default: this process's environment. */
  env?: Record<string, string | undefined> | string[];
  /** Add the variables srun sends (SLURM_NTASKS, SLURM_STEP_NODELIST, ...). Default true. */
  launcherEnv?: boolean;
  /** Job identity; default: this process's. Another uid needs root. */
  uid?: number;
  gid?: number;
  /** User name for SLURM_JOB_USER and the group list; default: looked up from uid. */
  user?: string;
  /** Supplementary groups; default: the user's groups. */
  gids?: number[];
  /** Working directory of user_init and the tasks. Default: this process's cwd. */
  cwd?: string;
  /** CPUs on each node (S_JOB_NCPUS, SLURM_CPUS_ON_NODE): one count for all, or one per node in the step's order; default: the node's task count. */
  cpusPerNode?: number | readonly number[];
  cpusPerTask?: number;
  /** srun's --task-prolog and --task-epilog: run in each task before exec and by slurmstepd after each task (absolute paths). */
  taskProlog?: string;
  taskEpilog?: string;
  /** SLURM_JOB_NAME of the launch environment. Default: the program's name. */
  jobName?: string;
  /** Plugin options the launcher resolved, forwarded as srun does (option list and env). */
  spankOptions?: SpankOptionValue[];
  /**
   * Also put the options' _SLURM_SPANK_OPTION_* variables into the
   * environment (default true). srun passes false: its environment has them
   * already (it set them in its own), and its --export may have dropped them.
   */
  optionEnv?: boolean;
  /** Kill the whole step after this long. Default 60 s. */
  timeoutMs?: number;
  /** Each event of each node's host, as it arrives (for streaming task output). */
  onEvent?: (node: { nodeId: number; name: string; gtids: number[] }, event: import('../host/protocol.js').HostEvent) => void;
  /**
   * What the step record says about the whole step, when it is not what
   * the layout implies. slurmstepd's batch step never fills in the node
   * count (S_JOB_NNODES reads 0) and takes the task count from the job
   * (0 without -n).
   */
  recordCounts?: { nnodes: number; ntasks: number };
  /**
   * The launcher's job variables (launcherEnv): the job's nodes
   * (SLURM_JOB_NODELIST, SLURM_JOB_NUM_NODES, SLURM_NODELIST; default: the
   * step's), and its submission directory (SLURM_SUBMIT_DIR; default: cwd).
   * srun gives a job's own, which inside a job are not the step's.
   */
  jobNodes?: readonly string[];
  submitDir?: string;
  /**
   * The job's record, keyed by slurm_job_info_t's field names, that
   * slurm_load_job answers with in the step's processes. srun and sbatch
   * pass their job's; by default it is a record of a job made of this step
   * alone (its nodes, tasks, user, program and directory), RUNNING.
   */
  job?: JobInfo;
  /**
   * The step's mpi plugin, as srun's launch request names it ("pmi2"):
   * every node's slurmstepd loads it, checks SLURM_MPI_TYPE in the step's
   * environment ("none" is taken out), runs its slurmstepd_prefork, and each
   * task's process its slurmstepd_task. null: the launch names none (24.11's
   * none; SLURM_MPI_TYPE is still checked). Absent: no mpi at all (a batch
   * step). srun's own side (client_prelaunch, client_fini) runs in srun.
   */
  mpi?: string | null;
  /** With plugstack's pmi2: keep every PMI line of every rank (result.mpi.ranks[].lines). */
  pmiTrace?: boolean;
  /**
   * What the tasks read on their standard input, as srun sends its own:
   * bytes, or a stream read as the tasks take it. Every task gets its own
   * copy (or those `input` picks); each sees EOF when it ends. Default:
   * /dev/null, as for a batch step.
   */
  stdin?: string | Buffer | NodeJS.ReadableStream;
  /** Which tasks read `stdin`, or the files they read instead: srun's --input (lib/step/task-input.ts). Default: every task. */
  input?: TaskInputPlan;
  /**
   * The files slurmstepd opens for the tasks' output and error in its IO
   * setup (after the input): srun's per-task -o/-e names
   * (lib/step/task-output.ts), or a batch step's files. One that does not
   * open fails the launch on its node as an input file does. The output
   * still comes back as events; whoever asked (srun, sbatch) writes it into
   * them. Default: none.
   */
  output?: StepOutputPlan;
  /** --open-mode=append (or slurm.conf's JobFileAppend): those files are appended to, not truncated. */
  outputAppend?: boolean;
  /** srun's -l: slurmstepd opens those files to write labelled lines itself (no directory made, the first failure ends the setup). */
  outputLabelled?: boolean;
  /** Memory of the job and of the step on each node in MB, as the credential carries them (S_JOB_ALLOC_MEM, S_STEP_ALLOC_MEM). Default 0. */
  jobMem?: number;
  stepMem?: number;
}

/** One call into plugin code during the step. */
export interface StepHookCall {
  /** The plugin's path as written in the config. */
  plugin: string;
  /** slurm_spank_user_init, option_cb, dlopen, init(), fini(), dlclose, ... */
  hook: string;
  context: 'remote';
  /** Who made the call: the slurmstepd process, or a task child before exec. */
  role: 'stepd' | 'task';
  node: number;
  /** Global task id, for per-task callbacks. */
  task?: number;
  rc?: number;
  /** Microseconds; absent when the call never returned. */
  us?: number;
  /** When the call started: microseconds of the system's monotonic clock (process.hrtime's), comparable across processes. */
  at?: number;
}

export interface StepItemRead {
  plugin: string;
  hook: string;
  node: number;
  task?: number;
  item: string | number;
  rc: number;
  value?: unknown;
}

export interface StepEnvChange {
  plugin: string;
  hook: string;
  node: number;
  task?: number;
  op: 'get' | 'set' | 'unset' | 'job_control_get' | 'job_control_set' | 'job_control_unset';
  name: string | null;
  value?: string;
  rc: number;
}

export interface StepLogLine {
  source: 'slurm' | 'plugin';
  level: string;
  message: string;
  node: number;
  plugin?: string;
  hook?: string;
}

export interface TaskResult {
  /** Global task id (SLURM_PROCID). */
  task: number;
  node: number;
  localId: number;
  pid: number;
  /** Raw wait status, as S_TASK_EXIT_STATUS gives it; null if the task never ended on its own. */
  status: number | null;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** When slurmstepd forked the task and when it reaped it (monotonic microseconds, as a call's `at`). */
  forkedAt?: number;
  reapedAt?: number;
  /** The program the task exec'd (after PATH lookup), when it got that far. */
  exec?: string;
  /** argv after spank_prepend_task_argv, when a plugin changed it. */
  argv?: string[];
  stdout: string;
  stderr: string;
  stdoutBytes: Buffer;
  stderrBytes: Buffer;
}

export interface NodeResult {
  node: number;
  name: string;
  /** Where the step stopped early on this node: mpi (its plugin did not load), mpi_env (no SLURM_MPI_TYPE), stack, init, init_post_opt, mpi_prefork, user_init, fork, task_post_fork. */
  failedAt: string | null;
  /** slurmstepd's step rc and the exit code it reports for the node. */
  stepRc: number;
  exitCode: number;
  /** SLURM_PLUGIN_NAME_INVALID (1011) when the plugin stack could not start. */
  launchRc: number;
  exitCallbacksRan: boolean;
  /** slurmstepd answered the launch request (srun stops waiting for this node's launch then). */
  launched: boolean;
  /** When slurmstepd itself died (failedAt "host"): the hook it died in, if plugin code was running. */
  diedIn?: string;
}

export interface StepResult {
  jobId: number;
  stepId: number;
  /**
   * Slurm's verdict: the plugin stack started on every node and every task
   * status that was reported is 0.
   */
  ok: boolean;
  /** The largest of the nodes' exit codes (raw statuses, as slurmstepd records them for the step). */
  exitCode: number;
  nodes: NodeResult[];
  /** By global task id. */
  tasks: TaskResult[];
  calls: StepHookCall[];
  items: StepItemRead[];
  env: StepEnvChange[];
  log: StepLogLine[];
  /** Problems: plugin failures, crashes, hangs, configuration errors. */
  problems: (Problem & { node: number; task?: number })[];
  /** The mpi plugin the nodes ran (StepOptions.mpi) and its prefork and task calls. */
  mpi?: MpiRecord;
  /**
   * slurm.conf's JobContainerType: every call of its plugins for the step,
   * with the Slurm process it ran in (slurmd, slurmd's child that becomes a
   * slurmstepd, slurmstepd, a task before exec), node, task, result and the
   * mount namespace of that process.
   */
  jobContainer?: JobContainerRecord;
}
