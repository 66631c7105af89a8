/**
 * Slurm's search_path (proc_args.c): where srun, sbatch and salloc look for
 * the program or script they were given.
 *
 * A name starting with "." is taken relative to the working directory, one
 * starting with "/" as it is; either is found only when testExec is set and
 * it exists, is not a directory and passes access(accessMode). Any other
 * name (a "sub/cmd" too) is looked for in each PATH entry (an entry
 * starting with "." relative to the working directory), with the working
 * directory itself last (cwdLast) or first: the first candidate that exists
 * and is not a directory, where with testExec the entry's directory, not
 * the file, must pass access(accessMode), as Slurm tests it.
 */
import fs from 'node:fs';

export interface SearchPathOptions {
  /** Look in the working directory after PATH (salloc, srun) or before it (sbatch). */
  cwdLast: boolean;
  /** access(2)'s mode: fs.constants.X_OK for a program, R_OK for a file read. */
  accessMode: number;
  /** Test the access mode (and find a "." or "/" name at all). */
  testExec: boolean;
  /** The PATH searched (the environment of the process searching); undefined: none. */
  pathVar: string | undefined;
  /** Called when there is no PATH at all (Slurm logs "No PATH environment variable"). */
  noPath?: () => void;
}

function existsNotDir(file: string): boolean {
  try {
    return !fs.statSync(file).isDirectory();
  } catch {
    return false;
  }
}

function accessible(file: string, mode: number): boolean {
  try {
    fs.accessSync(file, mode);
    return true;
  } catch {
    return false;
  }
}

/** The full path Slurm would run or read, or undefined where Slurm finds none. */
export function searchPath(cwd: string, cmd: string, o: SearchPathOptions): string | undefined {
  if (cmd.startsWith('.')) {
    const full = `${cwd}/${cmd}`;
    return o.testExec && existsNotDir(full) && accessible(full, o.accessMode) ? full : undefined;
  }
  if (cmd.startsWith('/')) return o.testExec && existsNotDir(cmd) && accessible(cmd, o.accessMode) ? cmd : undefined;
  if (o.pathVar === undefined) o.noPath?.();
  const entries = (o.pathVar ?? '').split(':').filter((e) => e.length > 0);
  if (o.cwdLast) entries.push(cwd);
  else entries.unshift(cwd);
  for (const dir of entries) {
    const full = dir.startsWith('.') ? `${cwd}/${dir}/${cmd}` : `${dir}/${cmd}`;
    if (!existsNotDir(full)) continue;
    if (!o.testExec || accessible(dir, o.accessMode)) return full;
  }
  return undefined;
}
