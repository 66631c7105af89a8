/**
 * Resource limits as Slurm's commands send them to a job: which of Slurm's
 * rlimits are propagated (slurm.conf's PropagateResourceLimits or
 * PropagateResourceLimitsExcept, else all of them; srun's and sbatch's
 * --propagate instead when given), and the SLURM_RLIMIT_<NAME> variables
 * carrying the command's soft limits. slurmstepd applies them to each task
 * right before its execve (native/core/lifecycle/slurm_limits.cc).
 */
import { releaseRules } from '../releases.generated.js';

/** Slurm's rlimit names, in its table's order. */
export function rlimitNames(slurmVersion: string): string[] {
  return releaseRules(slurmVersion).limits.propagated.split(',');
}

/**
 * parse_rlimits: the names a value propagates. "ALL" and "NONE" count only
 * as the whole value (case matters); otherwise names separated by commas or
 * white space, each maybe prefixed "RLIMIT_", are given the flag and every
 * other name its opposite. propagate is false for an Except value. A name
 * Slurm does not know makes the whole value bad.
 */
export function parseRlimits(value: string, propagate: boolean, names: string[]): { propagated: string[] } | { bad: string } {
  if (value === 'ALL' || value === 'NONE') {
    const all = value === 'ALL' ? propagate : !propagate;
    return { propagated: all ? [...names] : [] };
  }
  const listed = new Set<string>();
  for (const token of value.split(/[, \t\n]+/)) {
    if (token === '') continue;
    // Slurm strips one "RLIMIT_" before comparing with each name of its
    // table in turn: RLIMIT_RLIMIT_CORE reaches CORE stripped, while
    // RLIMIT_RLIMIT_CPU is already past CPU ("Bad rlimit name: CPU").
    let name = token;
    let match: string | undefined;
    for (const n of names) {
      if (name.startsWith('RLIMIT_')) name = name.slice('RLIMIT_'.length);
      if (name === n) {
        match = n;
        break;
      }
    }
    if (match === undefined) return { bad: name };
    listed.add(match);
  }
  return { propagated: names.filter((n) => listed.has(n) === propagate) };
}

/** What a site's slurm.conf says (its keys; none: Slurm's default, all of them). */
export function configuredPropagation(
  keys: Record<string, string> | undefined,
  slurmVersion: string,
): { propagated: string[]; key?: string; bad?: string } {
  const names = rlimitNames(slurmVersion);
  const except = keys?.PropagateResourceLimitsExcept;
  // Except wins: PropagateResourceLimits is not even read then.
  const key = except !== undefined ? 'PropagateResourceLimitsExcept' : 'PropagateResourceLimits';
  const parsed = parseRlimits(except ?? keys?.PropagateResourceLimits ?? 'ALL', except === undefined, names);
  return 'bad' in parsed ? { propagated: [], key, bad: parsed.bad } : { propagated: parsed.propagated };
}

/** The command's soft limits by name, as its client process read them after init_post_opt. */
export type CommandLimits = readonly { name: string; soft: string }[];

/**
 * _set_rlimit_env: SLURM_RLIMIT_<NAME> for each propagated limit, the
 * command's soft limit in decimal; "U" first when the user asked with
 * --propagate.
 */
export function rlimitEnv(limits: CommandLimits, propagated: string[], byUser: boolean): Record<string, string> {
  const soft = Object.fromEntries(limits.map((l) => [l.name, l.soft]));
  const env: Record<string, string> = {};
  for (const name of propagated) {
    const value = soft[name];
    if (value !== undefined) env[`SLURM_RLIMIT_${name}`] = `${byUser ? 'U' : ''}${value}`;
  }
  return env;
}

/**
 * What srun or sbatch sends: the variables for what slurm.conf propagates
 * (configured; none given: all), or for what --propagate names instead
 * (propagate: its value, "ALL" without one). A --propagate naming a limit
 * Slurm does not know ends the command (bad).
 */
export function commandRlimitEnv(
  slurmVersion: string,
  limits: CommandLimits,
  configured: readonly string[] | undefined,
  propagate: string | undefined,
): { env: Record<string, string> } | { bad: string; value: string } {
  if (propagate === undefined) return { env: rlimitEnv(limits, [...(configured ?? rlimitNames(slurmVersion))], false) };
  const parsed = parseRlimits(propagate, true, rlimitNames(slurmVersion));
  return 'bad' in parsed ? { bad: parsed.bad, value: propagate } : { env: rlimitEnv(limits, parsed.propagated, true) };
}
