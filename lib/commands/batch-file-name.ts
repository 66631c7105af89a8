/**
 * The name of a batch job's output and error file, as slurmstepd makes it
 * from sbatch's -o/-e (default slurm-%j.out, an array task's slurm-%A_%a.out) for the batch step (Slurm's
 * fname_create, batch branch, in src/slurmd/common/fname.c):
 *
 * - a name that is only a task number is that task's file: task 0 (the
 *   batch step's only task) writes to it, any other number is /dev/null;
 * - a backslash anywhere stops every expansion: the name is taken as
 *   written, each backslash dropping out and "\\" leaving one;
 * - otherwise each "%" letter is replaced (the table below), "%%" is a "%",
 *   a width between "%" and the letter pads numbers with zeros (at most
 *   10), and a letter not in the table is left as written;
 * - a relative name is relative to the job's working directory.
 */
import path from 'node:path';
import { releaseRules } from '../releases.generated.js';

export interface BatchFileIds {
  jobId: number;
  /** The batch host's node name (slurmd's). */
  nodeName: string;
  /** The job's user's name. */
  userName: string;
  /** SLURM_JOB_NAME of the batch step's environment (undefined: none). */
  jobName: string | undefined;
  /** An array task's array id and index (absent outside an array: %a is NO_VAL, %A the job's id). */
  arrayJobId?: number;
  arrayTaskId?: number;
}

/** Slurm's NO_VAL, the array task id of a job that is not in an array. */
const NO_VAL = 0xfffffffe;
const MAX_WIDTH = 10;

type Expansion = { number: (ids: BatchFileIds) => number } | { text: (ids: BatchFileIds) => string };

/** What each letter becomes in a batch step's file name. */
const LETTERS: Record<string, Expansion> = {
  a: { number: (ids) => ids.arrayTaskId ?? NO_VAL },
  b: { number: (ids) => (ids.arrayTaskId ?? NO_VAL) % 10 },
  A: { number: (ids) => (ids.arrayTaskId === undefined ? ids.jobId : (ids.arrayJobId ?? ids.jobId)) },
  // The batch step has no step number to add after %J's job id.
  j: { number: (ids) => ids.jobId },
  J: { number: (ids) => ids.jobId },
  n: { number: () => 0 },
  t: { number: () => 0 },
  s: { text: () => 'batch' },
  N: { text: (ids) => ids.nodeName },
  u: { text: (ids) => ids.userName },
  // A NULL job name prints as "(null)".
  x: { text: (ids) => ids.jobName ?? '(null)' },
};

/** The letters a release's slurmstepd expands (releases.json step.batchFileLetters). */
function lettersOf(slurmVersion: string): string {
  return releaseRules(slurmVersion).step.batchFileLetters;
}

/** A backslash stops expansion: Slurm's remove_path_slashes. */
function unescaped(format: string): string | undefined {
  if (!format.includes('\\')) return undefined;
  let out = '';
  for (let i = 0; i < format.length; i++) {
    if (format[i] === '\\') {
      if (format[i + 1] === '\\') out += format[++i];
      continue;
    }
    out += format[i];
  }
  return out;
}

function expand(format: string, ids: BatchFileIds, letters: string): string {
  let out = '';
  for (let i = 0; i < format.length; ) {
    if (format[i] !== '%') {
      out += format[i++];
      continue;
    }
    if (format[i + 1] === '%') {
      out += '%';
      i += 2;
      continue;
    }
    const m = /^(\d*)/.exec(format.slice(i + 1))!;
    const digits = m[1]!;
    const at = i + 1 + digits.length;
    // At the end of the name: a lone "%" stays, a width keeps only its last digit.
    if (at >= format.length) {
      out += digits ? digits.slice(-1) : '%';
      break;
    }
    const letter = format[at]!;
    const rule = letters.includes(letter) ? LETTERS[letter] : undefined;
    if (!rule) {
      // Left as written, but a width's "%" and digits but the last are gone.
      out += digits ? digits.slice(-1) : '%';
      i = at;
      continue;
    }
    const width = digits ? Math.min(Number(digits), MAX_WIDTH) : 0;
    out += 'number' in rule ? String(rule.number(ids) >>> 0).padStart(width, '0') : rule.text(ids);
    i = at + 1;
  }
  return out;
}

/** The file a batch job's stream goes to, for its -o/-e pattern. */
export function batchFileName(format: string, ids: BatchFileIds, workDir: string, slurmVersion: string): string {
  // fname_single_task_io: a name that is a task number names that task's
  // file, and the batch step has only task 0.
  if (/^\s*\+?\d+$/.test(format) && Number(format.trim()) !== 0) return '/dev/null';
  const escaped = unescaped(format);
  const name = escaped ?? expand(format, ids, lettersOf(slurmVersion));
  return path.resolve(workDir, name);
}
