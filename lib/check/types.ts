/** The report of `plugstack check` and `Plugstack#check()`. */
import type { ClientCommand, SpankCallback, SpankContext } from '../spank.js';

export type Severity = 'error' | 'warning';

/**
 * Something Slurm would trip over. `error`: Slurm would refuse the stack in
 * that context (the command or daemon fails). `warning`: Slurm carries on,
 * but probably not as intended.
 */
export interface Problem {
  severity: Severity;
  /** Stable code, e.g. PLUGIN_DLOPEN_FAILED, CONFIG_INVALID_LINE, PLUGIN_CRASHED. */
  code: string;
  message: string;
  context: SpankContext;
  file?: string;
  line?: number;
  /** The plugin, by its path as written in the config. */
  plugin?: string;
  hook?: string;
  rc?: number;
  signal?: string;
  option?: string;
  command?: ClientCommand;
  /** A process plugin code left behind (PLUGIN_LEFT_PROCESS). */
  pid?: number;
  /** The libslurm function a LIBSLURM_NOT_EMULATED or LIBSLURM_NOT_IN_RELEASE problem is about. */
  function?: string;
}

/** A libslurm function a plugin calls, and who answers it in plugstack's processes. */
export interface LibslurmFunctionReport {
  name: string;
  /**
   * plugstack: answered as Slurm would. not-emulated: defined, but fails
   * with Slurm's error value (LIBSLURM_NOT_EMULATED). not-in-release: the
   * emulated release's headers do not declare it (in that Slurm the call
   * dies of an undefined symbol). libslurm: the real libslurm the plugin
   * is linked with answers it. undefined: nothing defines it; calling it
   * ends the process (PLUGIN_UNDEFINED_SYMBOL).
   */
  answer: 'plugstack' | 'not-emulated' | 'not-in-release' | 'libslurm' | 'undefined';
  /** The public header that declares it. */
  header?: 'slurm.h' | 'slurmdb.h' | 'slurm_errno.h';
}

/** The libslurm functions a plugin file references (its undefined dynamic symbols). */
export interface LibslurmReport {
  /** The libraries it is linked with (DT_NEEDED). */
  needed: string[];
  /** Those the dynamic loader could not find: the plugin cannot load. */
  missing: string[];
  functions: LibslurmFunctionReport[];
}

/** One call into plugin code: loading, generic init()/fini(), or a SPANK callback. */
export interface HookCall {
  hook: string;
  /** Return value, for calls that return one. */
  rc?: number;
  /** Wall time in microseconds; absent when the call never returned. */
  us?: number;
  /** When the call started: microseconds of the system's monotonic clock (process.hrtime's), comparable across processes. */
  at?: number;
}

export interface PluginReport {
  /** Path as written in the config, and what was handed to dlopen. */
  configPath: string;
  path: string;
  file: string;
  line: number;
  required: boolean;
  args: string[];
  /** Loaded: dlopen, the symbol and version checks and init() all passed. */
  loaded: boolean;
  /** Kept for this context (slurmd keeps only init/slurmd_exit plugins, job_script only prolog/epilog ones). */
  kept: boolean;
  name?: string;
  type?: string;
  /** plugin_version, as a number and as "24.11.5". */
  version?: number;
  versionText?: string;
  callbacks: SpankCallback[];
  calls: HookCall[];
  /** The libslurm functions the plugin calls and who answers them; absent when its file could not be read. */
  libslurm?: LibslurmReport;
}

export interface OptionReport {
  /** The plugin's path as written in the config, and its plugin_name. */
  plugin: string;
  pluginName?: string;
  name: string;
  arginfo: string | null;
  usage: string | null;
  hasArg: 0 | 1 | 2;
  val: number;
  source: 'static' | 'registered';
  /** Hidden from getopt and --help, its callback never runs. */
  disabled: boolean;
  reason?: string;
  /** Commands whose own option of the same name disables it. */
  conflicts: ClientCommand[];
}

export interface LogLine {
  source: 'slurm' | 'plugin';
  level: string;
  message: string;
  plugin?: string;
  hook?: string;
}

export interface ContextReport {
  context: SpankContext;
  /** Slurm would create the stack and (where it runs) slurm_spank_init would succeed. */
  ok: boolean;
  plugins: PluginReport[];
  options: OptionReport[];
  problems: Problem[];
  /** The "Options provided by plugins:" block of each client command of this context. */
  help: Partial<Record<ClientCommand, string>>;
  /** Result of the slurm_spank_init pass, where the context runs it. */
  initRc?: number;
  /** slurmd context: whether any plugin defines job_prolog / job_epilog (slurmd then runs the SPANK prolog/epilog). */
  anyJobProlog?: boolean;
  anyJobEpilog?: boolean;
  /** Everything logged, by Slurm's code and by the plugins. */
  log: LogLine[];
}

export interface CheckReport {
  conf: string;
  /** The emulated Slurm release, e.g. "24.11.5". */
  slurmVersion: string;
  pluginDirs: string[];
  /** The file does not exist: Slurm runs with an empty stack. */
  missing: boolean;
  /** Every context checked is ok (and the slurm.conf, when one was given). */
  ok: boolean;
  contexts: ContextReport[];
  /** The slurm.conf given, if any: whether srun, sbatch and salloc could read it, and why not. */
  /**
   * ok: srun, sbatch and salloc read the file; controllerOk: slurmctld
   * would start on its nodes and partitions.
   */
  slurmConf?: { path: string; ok: boolean; controllerOk: boolean; problems: Problem[]; log: LogLine[] };
  /** The cli_filter plugins the slurm.conf names, loaded as srun, sbatch and salloc load them. */
  cliFilter?: CliFilterCheck;
  /** The mpi plugins of the slurm.conf's PluginDir, loaded as slurmd loads them, and MpiDefault's. */
  mpi?: MpiCheck;
  /** JobContainerType's plugins, loaded as slurmd (and each slurmstepd) loads them. */
  jobContainer?: JobContainerCheck;
}

export interface JobContainerCheck {
  /** JobContainerType, in order: "job_container/tmpfs". */
  types: string[];
  /** Every plugin loads with every hook of the release: slurmd would start. */
  ok: boolean;
  plugins: import('../job-container/record.js').DaemonJobContainerPlugin[];
  problems: Problem[];
  log: LogLine[];
}

export interface MpiCheck {
  /** slurm.conf's MpiDefault as srun falls back to it (null: no plugin, 24.11's none). */
  default: string | null;
  /** slurmd starts (at least one loads) and MpiDefault's plugin is among those that load. */
  ok: boolean;
  /** Every mpi_*.so of PluginDir and plugstack's own, in load order. */
  plugins: import('../mpi/record.js').DaemonMpiPlugin[];
  /** The mpi.conf slurmd reads (beside slurm.conf), and whether it is there. */
  mpiConf: { path: string; exists: boolean };
  problems: Problem[];
  log: LogLine[];
}

export interface CliFilterCheck {
  /** The processes that load them. */
  commands: ClientCommand[];
  ok: boolean;
  plugins: {
    /** As slurm.conf names it: cli_filter/lua. */
    type: string;
    /** Where CliFilterPlugins is. */
    file: string;
    line: number;
    /** The shared object found along PluginDir, cli_filter.lua, or plugstack's own. */
    path: string;
    loaded: boolean;
    code?: string;
    version?: number;
  }[];
  problems: Problem[];
  log: LogLine[];
}
