/**
 * --export (or SLURM_EXPORT_ENV) of srun and sbatch: which variables the
 * step's tasks or the batch job get, and in which order. The two commands
 * read the list differently:
 *
 * srun (_build_user_env, src/srun/launch.c): the variables the list names
 * come first, in its order (NAME=value as given, NAME with srun's value
 * when it has one), until a NONE, which ends the list; then srun's
 * environment is merged in: all of it when ALL is anywhere in the list
 * (its values overwrite the named ones, which keep their places), else only
 * the variables Slurm always passes (exportKeeps).
 *
 * sbatch (src/sbatch/sbatch.c, env_merge_filter in src/common/env.c): ALL
 * alone is the whole environment, NONE alone (and under 24.11 NIL) only
 * the variables Slurm always passes; any other list is read in its order,
 * ALL merging the whole environment where it stands, NAME=value and NAME
 * overwriting in place or appending, and then the variables Slurm always
 * passes are merged in after them.
 *
 * "Always passed" is exportKeeps of releases.json's commandEnv: names
 * starting with SLURM (22.05), and the remote option variables
 * _SLURM_SPANK_OPTION_* too (24.11, env_array_merge_slurm_spank).
 */
import { releaseRules } from '../releases.generated.js';

/** A list as an ordered map: NAME -> value, overwriting in place. */
export class EnvArray {
  private readonly entries = new Map<string, string>();
  overwrite(name: string, value: string): void {
    this.entries.set(name, value);
  }
  merge(list: readonly string[], keep: (name: string) => boolean = () => true): void {
    for (const e of list) {
      const eq = e.indexOf('=');
      if (eq <= 0) continue;
      const name = e.slice(0, eq);
      if (keep(name)) this.overwrite(name, e.slice(eq + 1));
    }
  }
  list(): string[] {
    return [...this.entries].map(([k, v]) => `${k}=${v}`);
  }
}

/**
 * The list's items as Slurm's find_quote_token cuts them: at commas outside
 * single or double quotes, an item quoted whole losing its quotes.
 */
export function exportItems(option: string): string[] {
  const out: string[] = [];
  let single = false;
  let double = false;
  let start = 0;
  for (let i = 0; i <= option.length; i++) {
    const c = option[i];
    if (c === "'") single = !single;
    else if (c === '"') double = !double;
    else if (i === option.length || (c === ',' && !single && !double)) {
      let item = option.slice(start, i);
      if (item.length >= 2 && (item[0] === "'" || item[0] === '"') && item[item.length - 1] === item[0]) item = item.slice(1, -1);
      out.push(item);
      start = i + 1;
      if (i === option.length) break;
    }
  }
  // A trailing comma ends the list without an empty item.
  return out.filter((item, i) => item !== '' || i < out.length - 1);
}

/** The variables Slurm passes whatever --export says. */
function alwaysPassed(slurmVersion: string): (name: string) => boolean {
  const prefixes = releaseRules(slurmVersion).commandEnv.exportKeeps.split(',');
  return (name) => prefixes.some((p) => name.startsWith(p));
}

function valueIn(list: readonly string[], name: string): string | undefined {
  const found = list.find((e) => e.startsWith(`${name}=`));
  return found === undefined ? undefined : found.slice(name.length + 1);
}

/** srun: the environment a step is launched with, from srun's own (in its order). */
export function srunExportEnv(environ: readonly string[], option: string | undefined, slurmVersion: string): string[] {
  // An empty --export is a list of no names: Slurm's variables alone.
  if (option === undefined) return [...environ];
  const dest = new EnvArray();
  let all = false;
  for (const item of exportItems(option)) {
    if (item.toUpperCase() === 'ALL') all = true;
    if (item.toUpperCase() === 'NONE') break;
    const eq = item.indexOf('=');
    if (eq >= 0) dest.overwrite(item.slice(0, eq), item.slice(eq + 1));
    else {
      const value = valueIn(environ, item);
      if (value !== undefined) dest.overwrite(item, value);
    }
  }
  dest.merge(environ, all ? undefined : alwaysPassed(slurmVersion));
  return dest.list();
}

/** sbatch: the batch job's environment as sbatch sends it, from sbatch's own. */
export function sbatchExportEnv(environ: readonly string[], option: string | undefined, slurmVersion: string): string[] {
  if (option === undefined || option.toUpperCase() === 'ALL') return [...environ];
  const dest = new EnvArray();
  const upper = option.toUpperCase();
  if (upper === 'NONE' || (upper === 'NIL' && releaseRules(slurmVersion).commandEnv.sbatchExportNil)) {
    dest.merge(environ, alwaysPassed(slurmVersion));
    return dest.list();
  }
  for (const item of exportItems(option)) {
    if (item.toUpperCase() === 'ALL') dest.merge(environ);
    else if (item.includes('=')) dest.merge([item]);
    else {
      const value = valueIn(environ, item);
      if (value !== undefined) dest.overwrite(item, value);
    }
  }
  dest.merge(environ, alwaysPassed(slurmVersion));
  return dest.list();
}

/**
 * sbatch: whether the job goes with SLURM_GET_USER_ENV=1, which makes
 * slurmd load the user's login environment under it (daemon/user-env.ts):
 * --get-user-env, or an --export other than ALL alone (under 24.11 NIL,
 * which sends only Slurm's variables, does not).
 */
export function sbatchGetsUserEnv(option: string | undefined, getUserEnv: boolean, slurmVersion: string): boolean {
  if (getUserEnv) return true;
  const upper = option?.toUpperCase();
  return upper !== undefined && upper !== 'ALL' && !(upper === 'NIL' && releaseRules(slurmVersion).commandEnv.sbatchExportNil);
}

/**
 * sbatch's own environment once its options are checked: an --export other
 * than ALL is also written there as SLURM_EXPORT_ENV (unless the caller set
 * one), so that the sruns of the batch job export the same. sbatch writes it
 * while checking its options, before the plugins' option variables
 * (_SLURM_SPANK_OPTION_*, SLURM_SPANK_*) that it sets afterwards.
 */
export function withSbatchExportVar(environ: readonly string[], option: string | undefined, caller: Readonly<Record<string, string | undefined>>): string[] {
  if (option === undefined || option.toUpperCase() === 'ALL' || environ.some((e) => e.startsWith('SLURM_EXPORT_ENV='))) return [...environ];
  const later = environ.findIndex((e) => /^(_SLURM_SPANK_OPTION_|SLURM_SPANK_)/.test(e) && caller[e.slice(0, e.indexOf('='))] === undefined);
  const out = [...environ];
  out.splice(later < 0 ? out.length : later, 0, `SLURM_EXPORT_ENV=${option}`);
  return out;
}
