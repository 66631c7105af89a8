/** srun, sbatch and salloc as plugstack runs them, and what came of them. */
import type { CliFilterCall, SyslogLine } from '../cli-filter/calls.js';
import type { Problem } from '../check/types.js';
import type { SignalSource } from '../cluster/control.js';
import type { JobScriptResult } from '../daemon/types.js';
import type { StepResult } from '../step/types.js';
import type { MpiRecord } from '../mpi/record.js';
import type { OptionValue } from './structured-args.js';

export type CommandName = 'srun' | 'sbatch' | 'salloc';

export interface CommandOptions {
  /** The words after the command name, as typed: ['-n', '2', '--greeting=hi', 'hostname']. */
  args?: string[];
  /**
   * Instead of `args`: long options by name, built-in or from a plugin
   * ({ ntasks: 2, label: true, greeting: 'hi' }; true for a flag, a list to
   * give an option several times), then `command`.
   */
  options?: Record<string, OptionValue>;
  /** With `options`: srun's and salloc's program and arguments, sbatch's script and arguments. */
  command?: string[];
  /**
   * sbatch: the batch script's text, which sbatch reads from its standard
   * input when no script file is named.
   */
  script?: string;
  /**
   * The command's standard input: bytes, or a stream (the CLI passes its
   * own). srun sends it to its tasks (every task by default, `--input`
   * picks); salloc's command reads it (a stream with a descriptor, such
   * as a terminal, is the command's own standard input); sbatch reads its
   * script from it when none is named (as `script`). Default: nothing
   * (srun's tasks see EOF; salloc's command reads /dev/null).
   */
  stdin?: string | Buffer | NodeJS.ReadableStream;
  /**
   * The command's standard descriptors are this process's (the CLI's
   * terminal). salloc: its command shares this process's standard output
   * and error instead of having them captured; what it prints is then not
   * in the result. srun: --pty asks their terminal's size.
   */
  terminal?: boolean;
  /** The command's environment. Default: this process's. */
  env?: Record<string, string | undefined>;
  /** The command's working directory. Default: this process's. */
  cwd?: string;
  /**
   * plugstack's bound on the whole command (not Slurm's time limit, which
   * is -t): after this long the job is cancelled, and whatever does not end
   * is killed and reported. Default: 5 minutes.
   */
  timeoutMs?: number;
  /**
   * Aborting it is a SIGTERM to srun, sbatch or salloc: srun's tasks are
   * killed, sbatch's job cancelled; salloc's allocation is revoked, but its
   * command runs on to its end unless -K/--kill-command was given, as with
   * Slurm's salloc (`timeoutMs` still bounds it).
   */
  signal?: AbortSignal;
  /**
   * Signals to handle as the command would (SIGINT once and twice,
   * SIGTERM, ...); the CLI passes its own process's.
   */
  signals?: SignalSource;
  /** srun with plugstack's pmi2: keep every PMI line of every rank (result.mpi.ranks[].lines). */
  pmiTrace?: boolean;
  /** Receives what the command writes, as it writes it (the CLI passes these through). */
  onStdout?: (chunk: Buffer) => void;
  onStderr?: (chunk: Buffer) => void;
}

/** A plugin option as one side saw it: given, with this value (null for flags). */
export interface SeenOption {
  plugin: string;
  name: string;
  value: string | null;
}

/** A built-in option of the command, as given. */
export interface BuiltinOptionSetting {
  name: string;
  value: string | null;
  /**
   * Where it came from: the command line, the environment, the batch
   * script, a cli_filter plugin, or the command's own checks ("verify":
   * -m arbitrary's task and node counts, taken from -w's list).
   */
  source: 'argv' | 'env' | 'script' | 'cli_filter' | 'reset' | 'verify';
}

/** One call into plugin code in the client process (srun, sbatch or salloc). */
export interface ClientHookCall {
  plugin: string;
  hook: string;
  context: 'local' | 'allocator';
  role: 'client';
  rc?: number;
  us?: number;
  /** When the call started: microseconds of the system's monotonic clock (process.hrtime's), comparable across processes. */
  at?: number;
}

/** What happened in the srun, sbatch or salloc process itself. */
export interface ClientRecord {
  command: CommandName;
  context: 'local' | 'allocator';
  calls: ClientHookCall[];
  /** Option callbacks, in order, with the value and where it came from. */
  optionCallbacks: { plugin: string; name: string; value: string | null; source: string; rc: number }[];
  items: { plugin: string; hook: string; item: string | number; rc: number; value?: unknown }[];
  env: { plugin: string; hook: string; op: string; name: string | null; value?: string; rc: number }[];
  log: { source: 'slurm' | 'plugin'; level: string; message: string; plugin?: string; hook?: string }[];
  problems: Problem[];
  builtins: BuiltinOptionSetting[];
  /** Plugin options given to the command (after env and command line). */
  options: SeenOption[];
  /** The job-control environment when the command handed over to the scheduler. */
  jobControlEnv: Record<string, string>;
  /** Where the command stopped early, if it did: init, options, init_post_opt, local_user_init, script, help, cli_filter. */
  stoppedAt?: string;
  /** The cli_filter plugins' calls, in order: arguments, result, options before and after, log lines, problems. */
  cliFilter: CliFilterCall[];
  /** Lines cli_filter/syslog would have sent to syslog(3). */
  syslog: SyslogLine[];
  /** srun: its mpi plugin (type, file, plugin_id) and the calls srun made into it. */
  mpi?: MpiRecord;
}

export interface JobRecord {
  jobId: number;
  /**
   * As slurmctld records it: FAILED when the job's exit code is not 0,
   * CANCELLED when a signal, scancel or plugstack's own bound ended it,
   * TIMEOUT when its time limit (-t) did.
   */
  state: 'COMPLETED' | 'FAILED' | 'CANCELLED' | 'TIMEOUT';
  /** The job's exit code (raw status of the batch script, or what srun/salloc reported). */
  exitCode: number;
  nodes: string[];
  /** Nodes Slurm would drain, with the reason. */
  drained: { node: string; reason: string }[];
  /** Why the job ended without running normally (e.g. "Prolog failure"). */
  reason?: string;
}

/** One task of an sbatch job array: its own job's record, which array and which index, its output file. */
export interface ArrayTaskRecord extends JobRecord {
  arrayJobId: number;
  arrayTaskId: number;
  /** The task's output file (slurm-%A_%a.out by default) and what it holds. */
  output?: { file: string; text: string };
}

export interface CommandResult {
  command: CommandName;
  args: string[];
  /** The command's exit status, as Slurm's command returns it. */
  exitCode: number;
  /** What the command printed (task output included for srun). */
  stdout: string;
  stderr: string;
  client: ClientRecord;
  /**
   * The job, when one was created or joined. For an sbatch job array: the
   * array's id, COMPLETED when every task did, else the state, exit code and
   * reason of its first task that did not; each task's own in `arrayTasks`.
   */
  job?: JobRecord;
  /** sbatch -a/--array: each task, in the order they ran (index order). */
  arrayTasks?: ArrayTaskRecord[];
  /** The steps run for this command: srun's own; sbatch's batch step and the sruns inside it; salloc's sruns. */
  steps: StepResult[];
  /** Job prologs and epilogs run for this command (and the sruns inside its job), in order. */
  jobScripts: JobScriptResult[];
  /**
   * srun: the mpi plugin of its step, and every call into it, in srun, in
   * each node's slurmstepd and in each task (client_prelaunch, the nodes'
   * prefork and task calls, client_fini). Absent when no plugin ran (24.11's
   * none).
   */
  mpi?: MpiRecord;
  /**
   * slurm.conf's JobContainerType: every call of its plugins for the
   * command's steps (slurmd's, each slurmstepd's, each task's), with the
   * process, node, task, result and mount namespace of each.
   */
  jobContainer?: import('../job-container/record.js').JobContainerRecord;
  /** For sbatch: the batch job's output file and what it holds (an array's tasks: in `arrayTasks`). */
  output?: { file: string; text: string };
}

/** CommandOptions with either form turned into the words after the command name. */
export type WordCommandOptions = CommandOptions & { args: string[] };
