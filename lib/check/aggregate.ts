/**
 * Turns the events of one inspect run into a ContextReport. Events are the
 * only input: if the host died half-way, the report holds everything up to
 * that point plus a problem naming the plugin, hook and cause.
 */
import type { HostEvent, LineEvent } from '../host/events.js';
import type { HostRun } from '../host/host-process.js';
import { SPANK_CALLBACKS, type ClientCommand, type SpankCallback, type SpankContext } from '../spank.js';
import type { ContextReport, OptionReport, PluginReport, Problem } from './types.js';

function versionText(v: number): string {
  return `${(v >> 16) & 0xff}.${String((v >> 8) & 0xff).padStart(2, '0')}.${v & 0xff}`;
}

function faultProblem(run: HostRun, context: SpankContext, plugins: Map<number, PluginReport>): Problem {
  const fault = run.fault!;
  const plugin = fault.ref === undefined ? undefined : plugins.get(fault.ref);
  const where = plugin ? `${plugin.configPath} in ${fault.hook}` : 'plugstack-host outside any plugin';
  const stderrTail = run.stderr.trim().split('\n').slice(-3).join(' | ');
  const problem: Problem = { severity: 'error', code: 'HOST_FAILED', message: '', context };
  if (plugin) {
    problem.plugin = plugin.configPath;
    problem.file = plugin.file;
    problem.line = plugin.line;
  }
  if (fault.hook) problem.hook = fault.hook;
  switch (fault.kind) {
    case 'signal':
      problem.code = 'PLUGIN_CRASHED';
      problem.signal = fault.signal!;
      problem.message = `${where}: killed by ${fault.signal}; the Slurm process would die the same way`;
      break;
    case 'timeout':
      problem.code = 'PLUGIN_TIMEOUT';
      problem.message = `${where}: still running after ${fault.timeoutMs} ms; killed`;
      break;
    case 'exit':
      problem.code = fault.exitCode === 127 && /symbol lookup error/.test(run.stderr) ? 'PLUGIN_UNDEFINED_SYMBOL' : 'PLUGIN_EXITED';
      problem.message = `${where}: the process exited with status ${fault.exitCode}` + (stderrTail ? ` (${stderrTail})` : '');
      break;
    case 'protocol':
      problem.code = 'HOST_PROTOCOL';
      problem.message = `${where}: ${fault.message}`;
      break;
  }
  if (!plugin && fault.kind !== 'timeout') problem.code = 'HOST_FAILED';
  return problem;
}

export function aggregateContext(context: SpankContext, run: HostRun): ContextReport {
  const plugins = new Map<number, PluginReport>();
  const byRef = (ref: number | undefined): PluginReport | undefined => (ref === undefined ? undefined : plugins.get(ref));
  const report: ContextReport = { context, ok: false, plugins: [], options: [], problems: [], help: {}, log: [] };
  const optionsByName = new Map<string, OptionReport[]>();
  const callsOf = (ref: number): PluginReport['calls'] => plugins.get(ref)?.calls ?? [];

  const addPlugin = (e: LineEvent): void => {
    const p: PluginReport = {
      configPath: e.configPath,
      path: e.configPath,
      file: e.file,
      line: e.line,
      required: e.required,
      args: e.args,
      loaded: false,
      kept: false,
      callbacks: [],
      calls: [],
    };
    plugins.set(e.ref, p);
    report.plugins.push(p);
  };

  for (const e of run.events as HostEvent[]) {
    switch (e.t) {
      case 'line':
        addPlugin(e);
        break;
      case 'plugin': {
        const p = plugins.get(e.ref);
        if (!p) break;
        p.loaded = e.loaded;
        p.kept = e.kept ?? false;
        p.path = e.path;
        if (e.name !== undefined) p.name = e.name;
        if (e.type !== undefined) p.type = e.type;
        if (e.version !== undefined) {
          p.version = e.version;
          p.versionText = versionText(e.version);
        }
        p.callbacks = (e.callbacks ?? []).filter((c): c is SpankCallback => (SPANK_CALLBACKS as readonly string[]).includes(c));
        break;
      }
      case 'leave': {
        const call: PluginReport['calls'][number] = { hook: e.hook, us: e.us };
        if (e.rc !== undefined) call.rc = e.rc;
        callsOf(e.ref).push(call);
        break;
      }
      case 'option': {
        if (e.rejected || e.source === 'getopt') break;
        const plugin = byRef(e.ref);
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
        const same = optionsByName.get(e.name) ?? [];
        same.push(option);
        optionsByName.set(e.name, same);
        break;
      }
      case 'problem': {
        const problem: Problem = { severity: e.severity, code: e.code, message: e.message, context };
        if (e.file !== undefined) problem.file = e.file;
        if (e.line !== undefined) problem.line = e.line;
        const plugin = byRef(e.ref);
        if (plugin) problem.plugin = plugin.configPath;
        if (e.hook !== undefined) problem.hook = e.hook;
        if (e.rc !== undefined) problem.rc = e.rc;
        if (e.option !== undefined) problem.option = e.option;
        if (e.command !== undefined) problem.command = e.command as ClientCommand;
        report.problems.push(problem);
        if (e.code === 'OPTION_CONFLICT' && e.option) {
          for (const o of optionsByName.get(e.option) ?? [])
            if (!o.disabled && !o.conflicts.includes(e.command as ClientCommand)) o.conflicts.push(e.command as ClientCommand);
        }
        break;
      }
      case 'warning': {
        const problem: Problem = { severity: 'warning', code: e.code, message: e.message, context };
        const plugin = byRef(e.ref);
        if (plugin) problem.plugin = plugin.configPath;
        if (e.hook !== undefined) problem.hook = e.hook;
        report.problems.push(problem);
        break;
      }
      case 'log': {
        const line: ContextReport['log'][number] = { source: e.source, level: e.level, message: e.msg };
        const plugin = byRef(e.ref);
        if (plugin) line.plugin = plugin.configPath;
        if (e.hook !== undefined) line.hook = e.hook;
        report.log.push(line);
        break;
      }
      case 'help':
        report.help[e.command] = e.text;
        break;
      case 'done': {
        report.ok = e.ok;
        if (typeof e.initRc === 'number' && context !== 'job_script') report.initRc = e.initRc;
        if (context === 'slurmd') {
          report.anyJobProlog = e.anyJobProlog === true;
          report.anyJobEpilog = e.anyJobEpilog === true;
        }
        break;
      }
      default:
        break;
    }
  }

  if (run.fault) {
    // The call that never returned is part of the plugin's record too.
    if (run.fault.ref !== undefined && run.fault.hook !== undefined) callsOf(run.fault.ref).push({ hook: run.fault.hook });
    report.problems.push(faultProblem(run, context, plugins));
    report.ok = false;
  }
  if (report.problems.some((p) => p.severity === 'error')) report.ok = false;
  return report;
}
