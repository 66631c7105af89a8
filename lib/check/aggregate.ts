/**
 * Turns one inspect run into a ContextReport. The run's events, folded by
 * the shared reducer, are the only input: if the host died half-way, the
 * report holds everything up to that point plus the fault, named by the
 * shared classifier.
 */
import { hostFault, leftovers } from '../host/faults.js';
import type { HostRun } from '../host/host-process.js';
import { toProblem } from '../host/process-record.js';
import { SPANK_CALLBACKS, type ClientCommand, type SpankCallback, type SpankContext } from '../spank.js';
import { missingLibrary, type LibslurmReports } from './libslurm.js';
import type { ContextReport, OptionReport, PluginReport, Problem } from './types.js';

function versionText(v: number): string {
  return `${(v >> 16) & 0xff}.${String((v >> 8) & 0xff).padStart(2, '0')}.${v & 0xff}`;
}

/** The library a plugin's dlopen failure says is missing (not the plugin file itself). */
function missingFor(run: HostRun, configPath: string, path: string): string | undefined {
  for (const pr of run.record.problems)
    if (pr.code === 'PLUGIN_DLOPEN_FAILED' && pr.plugin === configPath) return missingLibrary(pr.message, path);
  return undefined;
}

function pluginReports(run: HostRun, libslurm?: LibslurmReports): Map<number, PluginReport> {
  const out = new Map<number, PluginReport>();
  for (const p of run.record.plugins.values()) {
    const report: PluginReport = {
      configPath: p.configPath,
      path: p.configPath,
      file: p.file,
      line: p.line,
      required: p.required,
      args: p.args,
      loaded: false,
      kept: false,
      callbacks: [],
      calls: [],
    };
    const e = p.loaded;
    if (e) {
      report.loaded = e.loaded;
      report.kept = e.kept ?? false;
      report.path = e.path;
      if (e.name !== undefined && e.name !== null) report.name = e.name;
      if (e.type !== undefined && e.type !== null) report.type = e.type;
      if (e.version !== undefined) {
        report.version = e.version;
        report.versionText = versionText(e.version);
      }
      report.callbacks = (e.callbacks ?? []).filter((c): c is SpankCallback => (SPANK_CALLBACKS as readonly string[]).includes(c));
    }
    // The libslurm functions it calls, read from its file.
    if (libslurm) {
      const missing = missingFor(run, p.configPath, report.path);
      const lib = libslurm(report.path, missing ? [missing] : []);
      if (lib) report.libslurm = lib;
    }
    out.set(p.ref, report);
  }
  for (const c of run.record.calls) {
    const call: PluginReport['calls'][number] = { hook: c.hook };
    if (c.rc !== undefined) call.rc = c.rc;
    if (c.us !== undefined) call.us = c.us;
    if (c.at !== undefined) call.at = c.at;
    out.get(c.ref)?.calls.push(call);
  }
  // The call that never returned is part of the plugin's record too.
  for (const c of run.record.open.get(run.record.hostPid) ?? []) out.get(c.ref)?.calls.push({ hook: c.hook });
  return out;
}

/** A plugin that could not load because a library it is linked with is missing says which. */
function withMissingLibrary(problem: Problem, plugins: Map<number, PluginReport>): Problem {
  if (problem.code !== 'PLUGIN_DLOPEN_FAILED') return problem;
  const plugin = [...plugins.values()].find((p) => p.configPath === problem.plugin);
  const lib = plugin && missingLibrary(problem.message, plugin.path);
  if (!lib) return problem;
  const what = /^libslurm/.test(lib) ? " (Slurm's client library: the plugin was linked with -lslurm)" : '';
  return { ...problem, message: `${problem.message}; the library ${lib}${what} it is linked with is not installed here` };
}

export function aggregateContext(context: SpankContext, run: HostRun, libslurm?: LibslurmReports): ContextReport {
  const plugins = pluginReports(run, libslurm);
  const report: ContextReport = {
    context,
    ok: false,
    plugins: [...plugins.values()],
    options: [],
    problems: run.record.problems.map((p) => withMissingLibrary(toProblem(p, context), plugins)),
    help: {},
    log: run.record.log.map(({ bare: _bare, ...l }) => ({ ...l })),
  };
  const optionsByName = new Map<string, OptionReport[]>();

  for (const e of run.events) {
    switch (e.t) {
      case 'conf':
        // Slurm runs with an empty stack; a check says so.
        if (e.missing)
          report.problems.push({
            severity: 'warning',
            code: 'CONFIG_MISSING',
            message: `${e.path} does not exist: Slurm runs with an empty plugin stack`,
            context,
            file: e.path,
          });
        break;
      case 'option': {
        if (e.rejected || e.source === 'getopt') break;
        const plugin = plugins.get(e.ref);
        const option: OptionReport = {
          plugin: plugin?.configPath ?? String(e.ref),
          name: e.name,
          arginfo: e.arginfo ?? null,
          usage: e.usage ?? null,
          hasArg: (e.hasArg ?? 0) as 0 | 1 | 2,
          val: e.val ?? 0,
          source: e.source,
          disabled: e.disabled ?? false,
          conflicts: [],
        };
        if (plugin?.name !== undefined) option.pluginName = plugin.name;
        if (e.reason !== undefined) option.reason = e.reason;
        report.options.push(option);
        optionsByName.set(e.name, [...(optionsByName.get(e.name) ?? []), option]);
        break;
      }
      case 'problem':
        if (e.code === 'OPTION_CONFLICT' && e.option) {
          for (const o of optionsByName.get(e.option) ?? [])
            if (!o.disabled && !o.conflicts.includes(e.command as ClientCommand)) o.conflicts.push(e.command as ClientCommand);
        }
        break;
      case 'help':
        report.help[e.command] = e.text;
        break;
      case 'done':
        report.ok = e.ok;
        if (typeof e.initRc === 'number' && context !== 'job_script') report.initRc = e.initRc;
        if (context === 'slurmd') {
          report.anyJobProlog = e.anyJobProlog === true;
          report.anyJobEpilog = e.anyJobEpilog === true;
        }
        break;
      default:
        break;
    }
  }

  const fault = hostFault(run);
  if (fault) {
    const problem: Problem = toProblem(fault, context);
    // "the Slurm process would die the same way": a check names the
    // consequence, not only the cause.
    if (fault.code === 'PLUGIN_CRASHED') problem.message += '; the Slurm process would die the same way';
    report.problems.push(problem);
    report.ok = false;
  }
  for (const l of leftovers(run)) report.problems.push(toProblem(l, context));
  if (report.problems.some((p) => p.severity === 'error')) report.ok = false;
  return report;
}
