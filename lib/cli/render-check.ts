/** The human-readable form of a CheckReport. */
import type { CheckReport, ContextReport, Problem } from '../check/types.js';

function place(p: { file?: string; line?: number }): string {
  if (!p.file) return '';
  return p.line ? `${p.file}:${p.line}` : p.file;
}

function pluginLines(r: ContextReport): string[] {
  const out: string[] = [];
  if (r.plugins.length === 0) out.push('    (no plugins)');
  for (const p of r.plugins) {
    const state = !p.loaded ? 'NOT LOADED' : p.kept ? 'loaded' : 'loaded, not kept in this context';
    out.push(`    ${p.required ? 'required' : 'optional'} ${p.configPath}  (${place(p)})  ${state}`);
    if (p.path !== p.configPath) out.push(`      file: ${p.path}`);
    if (p.name !== undefined)
      out.push(`      name ${p.name}, type ${p.type}, version ${p.versionText}`);
    if (p.callbacks.length) out.push(`      callbacks: ${p.callbacks.join(', ')}`);
    const init = p.calls.find((c) => c.hook === 'slurm_spank_init');
    if (init) out.push(`      slurm_spank_init: ${init.rc === undefined ? 'did not return' : `rc ${init.rc}`}`);
  }
  return out;
}

function optionLines(r: ContextReport): string[] {
  if (r.options.length === 0) return [];
  const out = ['    options:'];
  for (const o of r.options) {
    const flags: string[] = [o.source];
    if (o.disabled) flags.push('disabled');
    if (o.conflicts.length) flags.push(`clashes with ${o.conflicts.join(', ')}`);
    out.push(`      --${o.name}${o.arginfo ? `=${o.arginfo}` : ''}  [${flags.join(', ')}]  from ${o.plugin}`);
  }
  return out;
}

/** Problems grouped: the same problem in several contexts is listed once. */
function problemLines(report: CheckReport): string[] {
  const groups = new Map<string, { problem: Problem; contexts: string[] }>();
  for (const c of report.contexts) {
    for (const p of c.problems) {
      const key = [p.severity, p.code, p.message, p.file, p.line].join('\u0000');
      const g = groups.get(key);
      if (g) g.contexts.push(c.context);
      else groups.set(key, { problem: p, contexts: [c.context] });
    }
  }
  const out: string[] = [];
  const all = report.contexts.length;
  for (const { problem: p, contexts } of groups.values()) {
    const where = place(p);
    const scope = contexts.length === all && all > 1 ? 'all contexts' : contexts.join(', ');
    out.push(`  ${p.severity.padEnd(7)} ${p.code}${where ? ` at ${where}` : ''} [${scope}]`);
    out.push(`          ${p.message}`);
  }
  return out;
}

export function renderCheck(report: CheckReport): string {
  const out: string[] = [];
  out.push(`${report.conf}: checked as Slurm ${report.slurmVersion} would load it`);
  out.push(`PluginDir: ${report.pluginDirs.join(':') || '(none)'}`);
  if (report.missing) out.push('the file does not exist: Slurm runs with an empty plugin stack');
  for (const c of report.contexts) {
    out.push('');
    out.push(`context ${c.context}: ${c.ok ? 'ok' : 'FAILS'}`);
    out.push(...pluginLines(c));
    out.push(...optionLines(c));
  }
  const problems = problemLines(report);
  out.push('');
  if (problems.length) {
    out.push('problems:');
    out.push(...problems);
    out.push('');
  }
  const errors = report.contexts.filter((c) => !c.ok).map((c) => c.context);
  out.push(
    errors.length
      ? `result: Slurm ${report.slurmVersion} would fail to load this stack in ${errors.join(', ')}`
      : `result: Slurm ${report.slurmVersion} would load this stack`,
  );
  return out.join('\n') + '\n';
}
