/**
 * Events a host process sends, one per frame, in the order things happen.
 * `ref` identifies a plugin by the position of its line among the plugin
 * lines of the config (includes expanded), whether it loaded or not.
 */

export interface HelloEvent { t: 'hello'; protocol: number; pid: number; role: string }
export interface FatalEvent { t: 'fatal'; message: string }
export interface ConfEvent { t: 'conf'; path: string; missing: boolean }
/** Plugin code is about to run: `hook` is dlopen, init(), fini(), dlclose or a slurm_spank_* callback. */
export interface EnterEvent {
  t: 'enter';
  ref: number;
  hook: string;
  /** The process running it: the host, or a task child before exec. */
  pid: number;
  path?: string;
  peek?: boolean;
  task?: number;
  option?: string;
  source?: 'launch' | 'env';
  remote?: number;
  value?: string;
}
export interface LeaveEvent { t: 'leave'; ref: number; hook: string; pid: number; us: number; rc?: number }
export interface LogEvent {
  t: 'log';
  source: 'slurm' | 'plugin';
  level: 'error' | 'info' | 'verbose' | 'debug' | 'debug2' | 'debug3';
  msg: string;
  /** slurm_spank_log(): printed without any prefix. */
  bare?: boolean;
  ref?: number;
  hook?: string;
}
/** A plugin line of the config is about to be processed. */
export interface LineEvent {
  t: 'line';
  ref: number;
  file: string;
  line: number;
  required: boolean;
  configPath: string;
  args: string[];
}
/** The outcome of loading the plugin of line `ref`. */
export interface PluginEvent {
  t: 'plugin';
  ref: number;
  path: string;
  loaded: boolean;
  kept?: boolean;
  code?: string;
  name?: string;
  type?: string;
  version?: number;
  callbacks?: string[];
}
export interface OptionEvent {
  t: 'option';
  ref: number;
  name: string;
  source: 'static' | 'registered' | 'getopt';
  arginfo?: string | null;
  usage?: string | null;
  hasArg?: number;
  val?: number;
  hasCallback?: boolean;
  optval?: number;
  disabled?: boolean;
  reason?: string;
  duplicateOf?: number;
  rejected?: boolean;
  rc?: number;
}
export interface ProblemEvent {
  t: 'problem';
  severity: 'error' | 'warning';
  code: string;
  message: string;
  file?: string;
  line?: number;
  ref?: number;
  hook?: string;
  rc?: number;
  option?: string;
  command?: string;
}
export interface WarningEvent { t: 'warning'; code: string; message: string; ref?: number; hook?: string }
export interface ItemEvent { t: 'item'; ref: number; hook: string; item: string | number; rc: number; value?: unknown }
export interface EnvEvent {
  t: 'env';
  op: 'get' | 'set' | 'unset' | 'job_control_get' | 'job_control_set' | 'job_control_unset';
  ref: number;
  hook: string;
  name: string | null;
  value?: string;
  rc: number;
  task?: number;
}
export interface PassEvent { t: 'pass'; hook: string; rc: number; stoppedBy: number | null }
export interface HelpEvent { t: 'help'; command: 'srun' | 'sbatch' | 'salloc'; text: string }
export interface DoneEvent { t: 'done'; ok: boolean; [key: string]: unknown }
/** A step's process group (task 0's pid). */
export interface PgidEvent { t: 'pgid'; pgid: number }
/** Task `task` (local id) of this node was forked. */
export interface TaskEvent { t: 'task'; task: number; gtid: number; pid: number }
/** A task child is about to execve `path`. */
export interface ExecEvent { t: 'exec'; task: number; path: string }
/** Bytes a task wrote (see bytes.ts for the encoding). */
export interface OutputEvent { t: 'output'; task: number; stream: 'stdout' | 'stderr'; data: string }
/** A task was reaped with this raw wait status. */
export interface ExitEvent { t: 'exit'; task: number; gtid: number; pid: number; status: number }
/** spank_prepend_task_argv changed a task's argv. */
export interface ArgvEvent { t: 'argv'; ref: number; hook: string; task: number; argv: string[] }
/** slurmstepd has set up the step's IO: its errors reach srun from here on. */
export interface IoEvent { t: 'io' | 'io_end' }
/** What a client command's getopt would print, or its --help text. */
export interface ConsoleEvent { t: 'console' | 'print'; stream: 'stdout' | 'stderr'; text: string; what?: string }
/** A built-in option the client command saw. */
export interface BuiltinEvent { t: 'builtin'; name: string; value: string | null; source: string }
/** The final state of every task of the node. */
export interface TasksEvent {
  t: 'tasks';
  tasks: { task: number; gtid: number; pid: number; exited: boolean; status?: number }[];
}

export type HostEvent =
  | HelloEvent
  | FatalEvent
  | ConfEvent
  | LineEvent
  | EnterEvent
  | LeaveEvent
  | LogEvent
  | PluginEvent
  | OptionEvent
  | ProblemEvent
  | WarningEvent
  | ItemEvent
  | EnvEvent
  | PassEvent
  | HelpEvent
  | DoneEvent
  | PgidEvent
  | TaskEvent
  | ExecEvent
  | OutputEvent
  | ExitEvent
  | ArgvEvent
  | TasksEvent
  | IoEvent
  | ConsoleEvent
  | BuiltinEvent;
