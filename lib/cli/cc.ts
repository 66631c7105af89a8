/**
 * plugstack cc: compiles a plugin against plugstack's headers, for the
 * emulated release of the user's choice (--slurm-version 22.05 records
 * 22.05 in plugin_version, through SLURM_VERSION_NUMBER).
 */
import { childProcess } from '../lazy-modules.js';
import { includeDir } from '../native/paths.js';
import { SLURM_VERSIONS, type SlurmRelease } from '../spank.js';
import { DEFAULT_RELEASE, RELEASE_SOURCE } from '../releases.generated.js';
import { UsageError } from './args.js';
import type { Out } from './output.js';

/** The version number SPANK_PLUGIN records for each release (its micro release as plugstack emulates it). */
export const RELEASE_VERSION_NUMBER = Object.fromEntries(
  SLURM_VERSIONS.map((r) => {
    const [major, minor] = r.split('.').map(Number) as [number, number];
    return [r, `0x${((major << 16) | (minor << 8) | RELEASE_SOURCE[r].micro).toString(16)}`];
  }),
) as Record<SlurmRelease, string>;

/**
 * The compiler command for a plugin: `${CC:-cc} -shared -fPIC -I<include> [-D...] args`.
 * micro: a micro release other than the one plugstack emulates by default
 * (cli_filter, mpi and job_container plugins must match it exactly).
 */
export function ccCommand(args: string[], release?: SlurmRelease, compiler = process.env.CC || 'cc', micro?: number): string[] {
  let number = release ? RELEASE_VERSION_NUMBER[release] : undefined;
  if (release && micro !== undefined) number = `0x${((Number(number) & 0xffff00) | micro).toString(16)}`;
  const version = number && number !== RELEASE_VERSION_NUMBER[DEFAULT_RELEASE] ? [`-DSLURM_VERSION_NUMBER=${number}`] : [];
  return [compiler, '-shared', '-fPIC', `-I${includeDir}`, ...version, ...args];
}

/** The micro release of "24.11.6" (6), if the text names one. */
export function microOf(value: string): number | undefined {
  const m = /^\d+\.\d+\.(\d+)$/.exec(value);
  return m ? Number(m[1]) : undefined;
}

export function parseRelease(value: string): SlurmRelease {
  const release = (SLURM_VERSIONS as readonly string[]).find((r) => value === r || value.startsWith(`${r}.`));
  if (!release) throw new UsageError(`--slurm-version must be one of ${SLURM_VERSIONS.join(', ')}, not "${value}"`);
  return release as SlurmRelease;
}

export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./=:,+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function cc(argv: string[], out: Out): number {
  let release: SlurmRelease | undefined;
  let micro: number | undefined;
  let rest = argv;
  const m = /^--slurm-version(?:=(.*))?$/.exec(rest[0] ?? '');
  if (m) {
    const value = m[1] ?? rest[1];
    if (value === undefined) throw new UsageError('option --slurm-version needs a value');
    release = parseRelease(value);
    micro = microOf(value);
    rest = rest.slice(m[1] === undefined ? 2 : 1);
  }
  if (rest.length === 0) throw new UsageError('cc needs a source file and compiler arguments');
  const command = ccCommand(rest, release, undefined, micro);
  out.stdout.write(command.map(shellQuote).join(' ') + '\n');
  const result = childProcess().spawnSync(command[0]!, command.slice(1), { stdio: 'inherit' });
  if (result.error) {
    out.stderr.write(`plugstack cc: cannot run ${command[0]}: ${result.error.message}\n`);
    return 1;
  }
  return result.status ?? 1;
}
