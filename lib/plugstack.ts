/**
 * The public entry point: a plugstack.conf and the settings a Slurm
 * installation would load it with.
 */
import fs from 'node:fs';
import path from 'node:path';
import { aggregateContext } from './check/aggregate.js';
import { libslurmReports, type LibslurmReports } from './check/libslurm.js';
import type { CheckReport, ContextReport, Problem } from './check/types.js';
import { DEFAULT_PLUGIN_DIR, readSlurmConf, type SlurmConf } from './config/slurm-conf.js';
import { configuredCluster, emulatedCluster, type ClusterShape } from './cluster/shape.js';
import { parseConfig, type ParsedConfig } from './config/plugstack-conf.js';
import { invalidArgument, PlugstackError } from './errors.js';
import { runHost } from './host/host-process.js';
import { runSalloc } from './commands/salloc.js';
import { runSbatch } from './commands/sbatch.js';
import { runSrun } from './commands/srun.js';
import { structuredArgs } from './commands/structured-args.js';
import { runOnSlurm, type SlurmInstallation } from './backend/slurm.js';
import { jobScriptRecord, runJobScript } from './daemon/job-script.js';
import { startSlurmd } from './daemon/slurmd.js';
import type { JobScriptMode, JobScriptOptions, JobScriptResult, SlurmdDaemon, SlurmdOptions } from './daemon/types.js';
import type { CommandOptions, CommandResult, WordCommandOptions } from './commands/types.js';
import { launchStep } from './step/launch.js';
import { checkMpi } from './mpi/check.js';
import { mpiConfPath } from './mpi/conf.js';
import { checkJobContainer } from './job-container/check.js';
import { jobContainerSettings } from './job-container/settings.js';
import type { StepOptions, StepResult } from './step/types.js';
import { checkCliFilter } from './cli-filter/check.js';
import { validCliFilterOptions, type CliFilterOptions } from './cli-filter/settings.js';
import { native } from './native/binding.js';
import { taskScriptProblems, taskScripts } from './step/task-scripts.js';
import { ALL_CONTEXTS, CLIENT_COMMANDS, SPANK_CONTEXTS, type ClientCommand, type SpankContext } from './spank.js';

export { DEFAULT_PLUGIN_DIR };

export interface LoadOptions {
  /**
   * A site's slurm.conf: its PluginDir, its PlugStackConfig (when no
   * plugstack.conf is named), its cluster name, partitions and nodes, its
   * PrologEpilogTimeout, and the other plugin kinds it configures. Problems
   * in it are in check()'s report; srun, sbatch and salloc stop on them as
   * Slurm's commands do.
   */
  slurmConf?: string;
  /** Slurm's PluginDir: a ':'-separated string or a list. Relative plugin paths are searched there. Default: slurm.conf's, else Slurm's compiled-in default. */
  pluginDir?: string | string[];
  /** The Slurm release to emulate: "24.11" (default) or "22.05"; "24.11.3" picks a micro release. */
  slurmVersion?: string;
  /** How long one host process may run before it is killed and reported. Default 10 s. */
  timeoutMs?: number;
  /**
   * Environment of the Slurm processes plugstack plays (what srun or
   * slurmstepd would inherit). Default: this process's environment.
   * Plugins read it with getenv(); COLUMNS sets the --help width.
   */
  env?: Record<string, string | undefined>;
  /**
   * Who runs srun, sbatch and salloc: plugstack (default), or the real
   * Slurm installation described by `slurm` (its commands and cluster; the
   * stack is then whatever that cluster's PlugStackConfig names).
   */
  backend?: 'plugstack' | 'slurm';
  slurm?: SlurmInstallation;
  /** How the cli_filter plugins slurm.conf names run: the Lua version, strict mode, user_defaults' file. */
  cliFilter?: CliFilterOptions;
}

export interface CheckOptions {
  /** The contexts to check; all five by default. */
  context?: SpankContext | SpankContext[];
}

export interface HelpOptions {
  /** Whose --help: srun (default, local context), sbatch or salloc (allocator context). */
  command?: ClientCommand;
}

const DEFAULT_TIMEOUT_MS = 10_000;

export class Plugstack {
  /** Absolute path of the plugstack.conf. */
  readonly conf: string;
  /** The emulated release, e.g. "24.11.5". */
  readonly slurmVersion: string;
  readonly pluginDirs: readonly string[];
  /** The config as parsed in-process when the stack was loaded. */
  readonly config: ParsedConfig;
  private readonly timeoutMs: number;
  private readonly env: NodeJS.ProcessEnv | undefined;

  /** Set when srun, sbatch and salloc go to a real Slurm (backend: 'slurm'). */
  private realSlurm: SlurmInstallation | undefined;
  /** The site's slurm.conf, when one was given. */
  readonly slurmConf: SlurmConf | undefined;
  private readonly cluster: ClusterShape;
  private cliFilter: CliFilterOptions = {};

  private constructor(
    conf: string,
    slurmVersion: string,
    pluginDirs: string[],
    timeoutMs: number,
    env: NodeJS.ProcessEnv | undefined,
    config: ParsedConfig,
    slurmConf: SlurmConf | undefined,
  ) {
    this.conf = conf;
    this.slurmVersion = slurmVersion;
    this.pluginDirs = pluginDirs;
    this.timeoutMs = timeoutMs;
    this.env = env;
    this.config = config;
    this.slurmConf = slurmConf;
    this.cluster = slurmConf ? configuredCluster(slurmConf, slurmVersion) : emulatedCluster(slurmVersion);
  }

  /**
   * Reads a plugstack.conf. Like Slurm, a file that does not exist is an
   * empty stack (see `config.missing`); problems in the file are reported
   * by check(), not thrown.
   */
  static async load(conf: string | undefined, options: LoadOptions = {}): Promise<Plugstack> {
    if (conf !== undefined && (typeof conf !== 'string' || conf === ''))
      throw invalidArgument('conf', 'a path to a plugstack.conf', conf);
    if (options.slurmConf !== undefined && (typeof options.slurmConf !== 'string' || options.slurmConf === ''))
      throw invalidArgument('slurmConf', 'a path to a slurm.conf', options.slurmConf);
    if (conf === undefined && options.slurmConf === undefined)
      throw invalidArgument('conf', 'a plugstack.conf, or a slurm.conf (slurmConf) whose PlugStackConfig names one', conf);
    const version = options.slurmVersion ?? '24.11';
    if (typeof version !== 'string') throw invalidArgument('slurmVersion', 'a string such as "24.11"', version);
    const parsed = native().slurmVersion(version);
    if (!parsed)
      throw new PlugstackError('UNSUPPORTED_SLURM_VERSION', `Slurm ${version} is not emulated; use 24.11 or 22.05`);
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw invalidArgument('timeoutMs', 'a positive integer', timeoutMs);
    if (options.env !== undefined && (typeof options.env !== 'object' || options.env === null))
      throw invalidArgument('env', 'an object of strings', options.env);
    const backend = options.backend ?? 'plugstack';
    if (backend !== 'plugstack' && backend !== 'slurm') throw invalidArgument('backend', '"plugstack" or "slurm"', backend);
    let slurmConf: SlurmConf | undefined;
    if (options.slurmConf !== undefined) {
      slurmConf = readSlurmConf(options.slurmConf, parsed.text);
      if (slurmConf.missing)
        throw new PlugstackError('CONF_NOT_FOUND', `${options.slurmConf}: no such file`, { file: options.slurmConf });
    }
    const absolute = path.resolve(conf ?? slurmConf!.plugStackConfig);
    const stack = new Plugstack(
      absolute,
      parsed.text,
      options.pluginDir === undefined && slurmConf ? slurmConf.pluginDirs.map((d) => path.resolve(d)) : pluginDirList(options.pluginDir),
      timeoutMs,
      options.env === undefined ? undefined : { ...options.env },
      parseConfig(absolute),
      slurmConf,
    );
    stack.cliFilter = validCliFilterOptions(options.cliFilter);
    if (backend === 'slurm') stack.realSlurm = { ...(options.slurm ?? {}) };
    return stack;
  }

  /** What each context of the emulated Slurm would make of this stack. */
  async check(options: CheckOptions = {}): Promise<CheckReport> {
    const contexts = contextList(options.context);
    const libslurm = libslurmReports(this.slurmVersion);
    const reports = await Promise.all(contexts.map((c) => this.inspect(c, libslurm)));
    const report: CheckReport = {
      conf: this.conf,
      slurmVersion: this.slurmVersion,
      pluginDirs: [...this.pluginDirs],
      missing: this.config.missing,
      ok: reports.every((r) => r.ok) && (this.slurmConf?.ok ?? true) && (this.slurmConf?.controllerOk ?? true),
      contexts: reports,
    };
    if (this.slurmConf) {
      report.slurmConf = slurmConfReport(this.slurmConf);
      // TaskProlog/TaskEpilog that slurmstepd could not run.
      const scripts = taskScriptProblems(this.slurmConf);
      report.slurmConf.problems.push(...scripts);
      if (scripts.some((p) => p.severity === 'error')) report.ok = false;
    }
    if (this.slurmConf) {
      const cliFilter = await checkCliFilter(this, this.slurmConf, this.cliFilter, this.timeoutMs, this.env);
      if (cliFilter) {
        report.cliFilter = cliFilter;
        report.ok &&= cliFilter.ok;
      }
      report.mpi = await checkMpi(this, this.slurmConf, this.timeoutMs, this.env);
      report.ok &&= report.mpi.ok;
      const jobContainer = await checkJobContainer(this, this.slurmConf, this.timeoutMs, this.env);
      if (jobContainer) {
        report.jobContainer = jobContainer;
        report.ok &&= jobContainer.ok;
      }
    }
    return report;
  }

  /**
   * The "Options provided by plugins:" block that `srun --help` (or sbatch,
   * salloc) would print for this stack, byte for byte. The width follows
   * COLUMNS as Slurm reads it. Rejects when the stack would not load.
   */
  async help(options: HelpOptions = {}): Promise<string> {
    const command = options.command ?? 'srun';
    if (!CLIENT_COMMANDS.includes(command)) throw invalidArgument('command', 'srun, sbatch or salloc', command);
    // The help needs no libslurm report of the plugins' files.
    const report = await this.inspect(command === 'srun' ? 'local' : 'allocator');
    const text = report.help[command];
    if (!report.ok || text === undefined) {
      const first = report.problems.find((p) => p.severity === 'error');
      throw new PlugstackError('HOST_FAILED', `${command} would fail before printing its help: ${first?.message ?? 'unknown failure'}`, {
        ...(first?.plugin !== undefined ? { plugin: first.plugin } : {}),
        ...(first?.hook !== undefined ? { hook: first.hook } : {}),
      });
    }
    return text;
  }

  /**
   * Runs a job step as slurmd hands it to slurmstepd: one stepd host per
   * node, the remote context's whole lifecycle, real task processes.
   */
  async launchStep(options: StepOptions): Promise<StepResult> {
    return launchStep(
      {
        conf: this.conf,
        slurmVersion: this.slurmVersion,
        pluginDirs: this.pluginDirs,
        hostEnv: this.env,
        ...(jobContainerSettings(this.slurmConf) ? { jobContainer: jobContainerSettings(this.slurmConf)! } : {}),
        ...(mpiConfPath(this.slurmConf?.path) ? { mpiConf: mpiConfPath(this.slurmConf?.path)! } : {}),
        ...(taskScripts(this.slurmConf) ? { taskScripts: taskScripts(this.slurmConf)! } : {}),
        ...(this.slurmConf ? { propagatedLimits: this.slurmConf.propagatedLimits } : {}),
      },
      options,
    );
  }

  /**
   * srun: `args` are the words after "srun", as a user types them. The
   * local context runs in a client process, the step on the remote side,
   * and the result holds both sides.
   */
  async srun(options: CommandOptions | string[]): Promise<CommandResult> {
    if (this.realSlurm) return runOnSlurm('srun', commandOptions(options), this.realSlurm);
    return runSrun(this.commandStack(), commandOptions(options));
  }

  /**
   * sbatch: `args` are the words after "sbatch" (options, then the script
   * and its arguments, or --wrap). Resolves once the batch job has run.
   */
  async sbatch(options: CommandOptions | string[]): Promise<CommandResult> {
    if (this.realSlurm) return runOnSlurm('sbatch', commandOptions(options), this.realSlurm);
    return runSbatch(this.commandStack(), commandOptions(options));
  }

  /** salloc: `args` are the words after "salloc" (options, then the command to run in the allocation). */
  async salloc(options: CommandOptions | string[]): Promise<CommandResult> {
    if (this.realSlurm) return runOnSlurm('salloc', commandOptions(options), this.realSlurm);
    return runSalloc(this.commandStack(), commandOptions(options));
  }

  /**
   * One job prolog on one node, as slurmd's helper runs it: a fresh process
   * in job_script context, only job_prolog, with the environment slurmd
   * builds from the job.
   */
  async prolog(options: JobScriptOptions): Promise<JobScriptResult> {
    return this.jobScript('prolog', options);
  }

  /** One job epilog on one node (as prolog; `exitStatus` is the job's). */
  async epilog(options: JobScriptOptions): Promise<JobScriptResult> {
    return this.jobScript('epilog', options);
  }

  private jobScript(mode: JobScriptMode, options: JobScriptOptions): Promise<JobScriptResult> {
    const stack = this.commandStack();
    // slurm_load_job in the helper answers with the given record, else one made of the options.
    return runJobScript(stack, mode, options, undefined, options?.job ?? jobScriptRecord(stack, mode, options));
  }

  /**
   * Starts an emulated slurmd's SPANK stack: init now (`started` is false
   * when it failed), slurmd_exit at `stop()`.
   */
  async slurmd(options: SlurmdOptions = {}): Promise<SlurmdDaemon> {
    return startSlurmd(this.commandStack(), options);
  }

  private commandStack() {
    return {
      conf: this.conf,
      slurmVersion: this.slurmVersion,
      pluginDirs: this.pluginDirs,
      cluster: this.cluster,
      cliFilter: this.cliFilter,
      ...(this.slurmConf ? { slurmConf: this.slurmConf, slurmConfPath: this.slurmConf.path } : {}),
      ...(this.slurmConf?.prologEpilogTimeout ? { prologEpilogTimeoutMs: this.slurmConf.prologEpilogTimeout * 1000 } : {}),
      ...(this.env ? { hostEnv: this.env } : {}),
    };
  }

  private async inspect(context: SpankContext, libslurm?: LibslurmReports): Promise<ContextReport> {
    const run = await runHost(
      'inspect',
      { conf: this.conf, context, slurmVersion: this.slurmVersion, pluginDirs: this.pluginDirs },
      { label: `${context} context`, timeoutMs: this.timeoutMs, ...(this.env ? { env: this.env } : {}) },
    );
    const fatal = run.events.find((e) => e.t === 'fatal');
    if (fatal && fatal.t === 'fatal') throw new PlugstackError('HOST_FAILED', `plugstack-host refused the request: ${fatal.message}`);
    return aggregateContext(context, run, libslurm);
  }
}

/** The slurm.conf part of a check report. */
function slurmConfReport(conf: SlurmConf): NonNullable<CheckReport['slurmConf']> {
  return {
    path: conf.path,
    ok: conf.ok,
    controllerOk: conf.controllerOk,
    problems: conf.problems.map((d) => {
      const p: Problem = { severity: d.severity, code: d.code, message: d.message, context: 'local' };
      if (d.file !== undefined) p.file = d.file;
      if (d.line !== undefined) p.line = d.line;
      return p;
    }),
    log: conf.problems.flatMap((d) => d.slurmLog.map((l) => ({ source: 'slurm' as const, level: l.level, message: l.text }))),
  };
}

function pluginDirList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [DEFAULT_PLUGIN_DIR];
  const list = typeof value === 'string' ? value.split(':') : value;
  if (!Array.isArray(list) || list.some((d) => typeof d !== 'string'))
    throw invalidArgument('pluginDir', 'a string or an array of strings', value);
  // Slurm resolves PluginDir entries as they are; only make them absolute
  // so that the host's working directory does not matter.
  return list.filter((d) => d !== '').map((d) => path.resolve(d));
}

function contextList(value: SpankContext | SpankContext[] | undefined): SpankContext[] {
  if (value === undefined) return [...ALL_CONTEXTS];
  const list = Array.isArray(value) ? value : [value];
  for (const c of list)
    if (!(c in SPANK_CONTEXTS)) throw invalidArgument('context', `one of ${ALL_CONTEXTS.join(', ')}`, c);
  return list;
}

/** True when a file exists (used by the CLI for explicitly named configs). */
export function fileExists(file: string): boolean {
  try {
    fs.statSync(file);
    return true;
  } catch {
    return false;
  }
}

/** Either form of a command's options, as the words after the command name. */
function commandOptions(options: CommandOptions | string[]): WordCommandOptions {
  const o = Array.isArray(options) ? { args: options } : options;
  if (!o || typeof o !== 'object') throw invalidArgument('options', 'an object or an array of strings', o);
  if (!Array.isArray(options) && o.script !== undefined && typeof o.script !== 'string')
    throw invalidArgument('script', 'the batch script as a string', o.script);
  if (o.pmiTrace !== undefined && typeof o.pmiTrace !== 'boolean') throw invalidArgument('pmiTrace', 'a boolean', o.pmiTrace);
  if (o.args === undefined) return { ...o, args: structuredArgs(o) };
  if (o.options !== undefined || o.command !== undefined)
    throw invalidArgument('args', 'either args or options/command, not both', o.args);
  if (!Array.isArray(o.args) || o.args.some((a) => typeof a !== 'string'))
    throw invalidArgument('args', 'an array of strings (the words after the command name)', o.args);
  return o as WordCommandOptions;
}
