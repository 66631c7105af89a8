/**
 * Differences between plugstack and the real Slurm that are deliberate,
 * each with its reason (allowlist.json; the README lists them too). An
 * entry removes a task-environment variable, or the lines matching a
 * pattern, from both observations of the scenarios it names ("*": all),
 * in the release it names (none: both).
 */
import type { Observation } from './observe.js';

export interface AllowEntry {
  scenario: string;
  /** Only in this release's comparison (default: both). */
  release?: '22.05' | '24.11';
  /** A task environment variable whose value may differ. */
  env?: string;
  /** A regular expression for stdout/stderr/job output/trace lines (and per-process sequences) that may differ. */
  line?: string;
  /** With `line`: rewrite the matching part to this on both sides instead of dropping the line. */
  replace?: string;
  reason: string;
}

export function applyAllowlist(obs: Observation, scenario: string, entries: AllowEntry[], release: string): Observation {
  const mine = entries.filter((e) => (e.scenario === '*' || e.scenario === scenario) && (!e.release || e.release === release));
  const drops = mine.filter((e) => e.line && e.replace === undefined).map((e) => new RegExp(e.line!));
  const rewrites = mine.filter((e) => e.line && e.replace !== undefined).map((e) => [new RegExp(e.line!), e.replace!] as const);
  const fix = (lines: string[]) =>
    lines
      .map((l) => rewrites.reduce((acc, [re, to]) => acc.replace(re, to), l))
      .filter((l) => !drops.some((p) => p.test(l)))
      .sort();
  const out: Observation = {
    ...obs,
    processes: fix(obs.processes),
    callbacks: fix(obs.callbacks),
    stdout: fix(obs.stdout),
    stderr: fix(obs.stderr),
    ...(obs.jobOutput ? { jobOutput: fix(obs.jobOutput) } : {}),
  };
  if (obs.taskEnv) {
    const drop = new Set(mine.filter((e) => e.env).map((e) => e.env!));
    out.taskEnv = Object.fromEntries(
      Object.entries(obs.taskEnv).map(([task, env]) => [task, Object.fromEntries(Object.entries(env).filter(([k]) => !drop.has(k)))]),
    );
  }
  return out;
}
