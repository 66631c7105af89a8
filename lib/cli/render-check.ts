/** The human-readable form of a CheckReport. */
import type { CheckReport, ContextReport, PluginReport, Problem } from '../check/types.js';

function place(p: { file?: string; line?: number }): string {
  if (!p.file) return '';
  return p.line ? `${p.file}:${p.line}` : p.file;
}

/** Each plugin line once, with what loading it revealed in any context. */
function pluginLines(report: CheckReport): string[] {
  const seen = new Map<string, PluginReport>();
  for (const c of report.contexts)
    for (const p of c.plugins) {
      const key = place(p);
      const known = seen.get(key);
      if (!known || (!known.name && p.name)) seen.set(key, p);
    }
  if (seen.size === 0) return ['  (none)'];
  const out: string[] = [];
  for (const p of seen.values()) {
    out.push(`  ${place(p)}  ${p.required ? 'required' : 'optional'} ${p.configPath}${p.args.length ? ` ${p.args.join(' ')}` : ''}`);
    if (p.path !== p.configPath) out.push(`      file: ${p.path}`);
    if (p.name !== undefined) out.push(`      name ${p.name}, type ${p.type}, version ${p.versionText}`);
    if (p.callbacks.length) out.push(`      callbacks: ${p.callbacks.join(', ')}`);
    if (p.libslurm?.missing.length) out.push(`      missing libraries: ${p.libslurm.missing.join(', ')}`);
    if (p.libslurm?.functions.length)
      out.push(`      libslurm: ${p.libslurm.functions.map((f) => (f.answer === 'plugstack' ? f.name : `${f.name} (${f.answer})`)).join(', ')}`);
    if (!report.contexts.some((c) => c.plugins.some((q) => place(q) === place(p) && q.loaded))) out.push('      not loaded');
  }
  return out;
}

function contextLine(c: ContextReport): string {
  const kept = c.plugins.filter((p) => p.kept).length;
  const parts = [`${c.context.padEnd(10)} ${c.ok ? 'ok   ' : 'FAILS'}`];
  parts.push(kept === c.plugins.length ? `${kept} plugin${kept === 1 ? '' : 's'}` : `${kept} of ${c.plugins.length} plugins kept`);
  if (c.initRc !== undefined) parts.push(`init rc ${c.initRc}`);
  const options = c.options.filter((o) => !o.disabled && o.conflicts.length === 0);
  if (options.length) parts.push(`options: ${options.map((o) => `--${o.name}${o.arginfo ? `=${o.arginfo}` : ''}`).join(' ')}`);
  if (c.anyJobProlog || c.anyJobEpilog)
    parts.push(`runs ${[c.anyJobProlog && 'job_prolog', c.anyJobEpilog && 'job_epilog'].filter(Boolean).join(' and ')}`);
  return `  ${parts.join('   ')}`;
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

function problemLine(p: Problem): string {
  const where = place(p);
  return `  ${p.severity} ${p.code}${where ? ` ${where}` : ''}: ${p.message}`;
}

/** The slurm.conf, and the cli_filter plugins it names (loaded by srun, sbatch and salloc). */
function slurmConfLines(report: CheckReport): string[] {
  const out: string[] = [];
  if (report.slurmConf) {
    const controller = report.slurmConf.controllerOk ? '' : '; slurmctld stops at its start on its nodes or partitions';
    out.push('', `slurm.conf ${report.slurmConf.path}: ${report.slurmConf.ok ? 'srun, sbatch and salloc read it' : 'srun, sbatch and salloc stop on it'}${controller}`);
    out.push(...report.slurmConf.problems.map(problemLine));
  }
  const cf = report.cliFilter;
  if (cf) {
    out.push('', `cli_filter (loaded by ${cf.commands.join(', ')}):`);
    for (const p of cf.plugins) out.push(`  ${p.file}:${p.line}  ${p.type}  ${p.loaded ? 'loaded' : `not loaded (${p.code ?? 'error'})`}`, `      file: ${p.path}`);
    out.push(...cf.problems.map(problemLine));
  }
  const mpi = report.mpi;
  if (mpi) {
    out.push('', `mpi (loaded by slurmd at start; srun's default: ${mpi.default ?? 'none, no plugin'}):`);
    for (const p of mpi.plugins)
      out.push(
        `  mpi/${p.type}  ${p.loaded ? `loaded (plugin_id ${p.pluginId})` : `not loaded (${p.code ?? 'error'})`}`,
        `      file: ${p.path}`,
        ...(p.confOptions ? [`      mpi.conf keys: ${p.confOptions.map((o) => o.key).join(', ')}`] : []),
      );
    out.push(`  mpi.conf: ${mpi.mpiConf.path}${mpi.mpiConf.exists ? '' : ' (none)'}`);
    out.push(...mpi.problems.map(problemLine));
  }
  const jc = report.jobContainer;
  if (jc) {
    out.push('', `job_container (loaded by slurmd at start and by every slurmstepd: ${jc.types.join(',')}):`);
    for (const p of jc.plugins) out.push(`  job_container/${p.type}  ${p.loaded ? 'loaded' : `not loaded (${p.code ?? 'error'})`}`, `      file: ${p.path}`);
    out.push(...jc.problems.map(problemLine));
  }
  return out;
}

export function renderCheck(report: CheckReport): string {
  const out: string[] = [];
  out.push(`${report.conf}: as Slurm ${report.slurmVersion} would load it (PluginDir ${report.pluginDirs.join(':') || 'unset'})`);
  if (report.missing) out.push('the file does not exist: Slurm runs with an empty plugin stack');
  out.push('', 'plugins:', ...pluginLines(report));
  out.push('', 'contexts:', ...report.contexts.map(contextLine));
  const problems = problemLines(report);
  if (problems.length) out.push('', 'problems:', ...problems);
  out.push(...slurmConfLines(report));
  const failing: string[] = report.contexts.filter((c) => !c.ok).map((c) => c.context);
  if (report.slurmConf && !report.slurmConf.ok) failing.push('srun, sbatch and salloc (slurm.conf)');
  if (report.slurmConf && !report.slurmConf.controllerOk) failing.push('slurmctld (slurm.conf)');
  if (report.slurmConf?.problems.some((p) => p.code === 'TASK_PROLOG_UNUSABLE')) failing.push('every task (TaskProlog)');
  if (report.cliFilter && !report.cliFilter.ok) failing.push(`${report.cliFilter.commands.join(', ')} (cli_filter)`);
  if (report.mpi && !report.mpi.ok) failing.push('slurmd and srun (mpi)');
  if (report.jobContainer && !report.jobContainer.ok) failing.push('slurmd and slurmstepd (job_container)');
  out.push(
    '',
    failing.length
      ? `result: Slurm ${report.slurmVersion} would fail with this stack in ${failing.join(', ')}`
      : `result: Slurm ${report.slurmVersion} would load this stack`,
  );
  return out.join('\n') + '\n';
}
