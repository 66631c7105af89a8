/** What the built-in options of srun, sbatch and salloc mean for plugstack. */
import { native } from '../native/binding.js';
import { taskDistribution, type TaskDistribution } from '../step/distribution.js';
import type { RequiredNodes } from '../cluster/shape.js';
import type { BuiltinOptionSetting } from './types.js';

export interface Builtins {
  ntasks?: number;
  /** -N's minimum (absent: not given). */
  nodes?: number;
  /** -N's maximum, where it gives one ("2-4"). */
  maxNodes?: number;
  label: boolean;
  chdir?: string;
  jobId?: number;
  jobName?: string;
  overcommit: boolean;
  cpusPerTask?: number;
  /** --ntasks-per-node. */
  ntasksPerNode?: number;
  export?: string;
  /** -i/--input. */
  input?: string;
  verbose: number;
  quiet: boolean;
  wait: boolean;
  output?: string;
  error?: string;
  /** -t/--time: the job's time limit in ms; absent for none. */
  timeLimitMs?: number;
  /** -p/--partition. */
  partition?: string;
  /** sbatch --wrap. */
  wrap: boolean;
  /** srun's --task-prolog and --task-epilog. */
  taskProlog?: string;
  taskEpilog?: string;
  /** --mem=0 or --mem-per-cpu=0: no memory limit asked for, which leaves an srun step's distribution unknown. */
  memZero: boolean;
  /** --propagate: the rlimits to send instead of slurm.conf's ("ALL" without a value). */
  propagate?: string;
  /** sbatch --get-user-env: the job's limits are the user's login ones on the node, not sbatch's. */
  getUserEnv: boolean;
  /** srun's and sbatch's --test-only: say when the job would start, run nothing. */
  testOnly: boolean;
  /** sbatch --parsable: the job id alone instead of "Submitted batch job N". */
  parsable: boolean;
  /** srun -K/--kill-on-bad-exit[=0|1] (bare: 1); absent: slurm.conf's KillOnBadExit decides. */
  killOnBadExit?: boolean;
  /** srun -W/--wait=N: seconds after the first task's end before the step is killed (0: none). */
  maxWait?: number;
  /** --open-mode: output files appended to or truncated; absent: slurm.conf's JobFileAppend decides. */
  openMode?: 'append' | 'truncate';
  /** sbatch -a/--array: the job array's index expression, as given (an empty one asks for no array). */
  array?: string;
  /** -m/--distribution, as Slurm reads it (the client refused what it does not take). */
  distribution?: TaskDistribution;
  /** -w/--nodelist, as given. */
  nodelist?: string;
  /** -w's nodes without -m arbitrary, as the client read them (the job's required nodes), with -N's maximum. */
  required?: RequiredNodes;
  /** -x/--exclude, as given (a file's hosts, as the client read it): nodes the job may not have (slurmctld reads the list). */
  exclude?: string;
  /**
   * salloc -K/--kill-command[=signal]: what salloc sends its command when
   * the allocation is revoked (none given: SIGTERM). Without it salloc
   * sends nothing and waits for the command.
   */
  killCommand?: NodeJS.Signals | number;
  /** --mem or --mem-per-cpu (the last given), in megabytes: the job's pn_min_memory; absent for none or 0. */
  memory?: { mb: number; perCpu: boolean };
  /** srun --prolog and --epilog: srun's own scripts (srun-scripts.ts). */
  prolog?: string;
  epilog?: string;
  /** -A/--account: the job's account, which slurmctld keeps (there is no accounting to check it against). */
  account?: string;
  /** srun --pty[=fd] (24.11 takes a descriptor): '' when given bare. */
  pty?: string;
  /** salloc --no-shell: the allocation alone; salloc runs no command and ends once it is granted. */
  noShell: boolean;
}

/**
 * Whether the job's output files are appended to: --open-mode, else
 * slurm.conf's JobFileAppend (srun's launch_common_set_stdio_fds,
 * slurmstepd's io_get_file_flags).
 */
export function appendsOutput(b: Pick<Builtins, 'openMode'>, conf: { jobFileAppend: boolean } | undefined): boolean {
  return b.openMode ? b.openMode === 'append' : (conf?.jobFileAppend ?? false);
}

/** The last setting of any of these options. */
function last(settings: BuiltinOptionSetting[], ...names: string[]): BuiltinOptionSetting | undefined {
  for (let i = settings.length - 1; i >= 0; i--) if (names.includes(settings[i]!.name)) return settings[i];
  return undefined;
}

function int(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  const n = Number.parseInt(value, 10);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/**
 * The level of -v (arg_set_verbose): SLURM_DEBUG and the like set it to
 * their number; each -v adds one, and the first one on the command line
 * drops what a variable set.
 */
function verbosity(settings: BuiltinOptionSetting[]): number {
  const given = settings.filter((s) => s.name === 'verbose');
  const counted = given.filter((s) => s.source !== 'env').length;
  if (counted || !given.length) return counted;
  return Number.parseInt(given[given.length - 1]!.value ?? '', 10) || 0;
}

/**
 * Reads the options that change what plugstack does; the others are
 * accepted and recorded only. cwd: the command's working directory, which
 * a relative -D is made full against; env: its environment (a plane's
 * size may come from SLURM_DIST_PLANESIZE).
 */
export function readBuiltins(
  settings: BuiltinOptionSetting[],
  cwd?: string,
  env: Record<string, string | undefined> = {},
  /** The client's reading of -w (its ready event's requiredNodes). */
  required?: RequiredNodes,
): Builtins {
  const value = (name: string) => last(settings, name)?.value ?? undefined;
  const nodes = value('nodes');
  const b: Builtins = {
    label: settings.some((s) => s.name === 'label'),
    overcommit: settings.some((s) => s.name === 'overcommit'),
    verbose: verbosity(settings),
    quiet: settings.some((s) => s.name === 'quiet'),
    wait: settings.some((s) => s.name === 'wait'),
    wrap: settings.some((s) => s.name === 'wrap'),
    getUserEnv: settings.some((s) => s.name === 'get-user-env'),
    testOnly: settings.some((s) => s.name === 'test-only'),
    parsable: settings.some((s) => s.name === 'parsable'),
    noShell: settings.some((s) => s.name === 'no-shell'),
    memZero: ['mem', 'mem-per-cpu'].some((name) => Number.parseInt(value(name) ?? '', 10) === 0),
  };
  const set = <K extends keyof Builtins>(k: K, v: Builtins[K] | undefined) => {
    if (v !== undefined) b[k] = v;
  };
  set('ntasks', int(value('ntasks')));
  const propagate = last(settings, 'propagate');
  if (propagate) b.propagate = propagate.value ?? 'ALL';
  // "-N 2" or a range "-N 2-4": the minimum is what a free cluster gives.
  const range = nodes === undefined ? null : native().nodeCountRange(nodes);
  // -N 0 is kept: slurmctld refuses it (shape.ts).
  if (range) b.nodes = range.min;
  // -N's maximum; where -w's list set the minimum (_opt_verify), the
  // maximum stays what -N gave, none without it.
  const maxNodes = required ? required.maxNodes : (range?.max ?? 0);
  if (maxNodes > 0) b.maxNodes = maxNodes;
  if (required) b.required = required;
  // The client checked the value; no limit is -1 (and 0 means none too).
  const time = value('time');
  const seconds = time === undefined ? null : native().timeStringSeconds(time);
  if (seconds !== null && seconds > 0) b.timeLimitMs = seconds * 1000;
  // arg_set_chdir: a relative directory is made full (make_full_path: the
  // working directory, "/", the name; nothing normalised).
  const chdir = value('chdir');
  if (chdir !== undefined) b.chdir = chdir.startsWith('/') || cwd === undefined ? chdir : `${cwd}/${chdir}`;
  set('jobId', int(value('jobid')));
  set('jobName', value('job-name'));
  set('cpusPerTask', int(value('cpus-per-task')));
  set('ntasksPerNode', int(value('ntasks-per-node')));
  set('export', value('export'));
  set('input', value('input'));
  set('output', value('output'));
  set('partition', value('partition'));
  set('error', value('error'));
  set('taskProlog', value('task-prolog'));
  set('taskEpilog', value('task-epilog'));
  const kill = last(settings, 'kill-on-bad-exit');
  if (kill) b.killOnBadExit = kill.value === null || kill.value === undefined || Number.parseInt(kill.value, 10) !== 0;
  set('maxWait', int(value('wait')));
  // arg_set_open_mode: the first letter (the client refused anything else).
  const mode = value('open-mode')?.[0]?.toLowerCase();
  if (mode === 'a' || mode === 't') b.openMode = mode === 'a' ? 'append' : 'truncate';
  // _valid_array_inx: an empty expression is no array.
  const array = value('array');
  if (array) b.array = array;
  const killCommand = last(settings, 'kill-command');
  if (killCommand) b.killCommand = killSignal(killCommand.value);
  set('distribution', taskDistribution(value('distribution'), env));
  set('nodelist', value('nodelist'));
  set('exclude', value('exclude'));
  set('account', value('account'));
  set('prolog', value('prolog'));
  set('epilog', value('epilog'));
  const memory = last(settings, 'mem', 'mem-per-cpu');
  const mb = memory?.value ? native().memoryMegabytes(memory.value) : null;
  if (memory && mb) b.memory = { mb, perCpu: memory.name === 'mem-per-cpu' };
  const pty = last(settings, 'pty');
  if (pty) b.pty = pty.value ?? '';
  return b;
}

/**
 * The signal of a --kill-command value the client took (it refused what
 * Slurm's sig_name2num does not know, by the release's names): a number,
 * or a name with or without SIG, in any case; none is SIGTERM.
 */
function killSignal(value: string | null): NodeJS.Signals | number {
  const text = value?.trim() ?? '';
  if (text === '') return 'SIGTERM';
  if (/^[+-]?\d/.test(text)) return Number.parseInt(text, 10);
  return `SIG${text.replace(/^sig/i, '').toUpperCase()}` as NodeJS.Signals;
}
