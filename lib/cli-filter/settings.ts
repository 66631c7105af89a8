/**
 * How srun, sbatch and salloc run the cli_filter plugins slurm.conf names:
 * which Lua cli_filter/lua runs on, whether problems Slurm passes over end
 * the command (strict), and where cli_filter/user_defaults reads.
 */
import { invalidArgument } from '../errors.js';
import type { SlurmConf } from '../config/slurm-conf.js';
import type { ClientRequest } from '../host/protocol.generated.js';

type CliFilterRequest = NonNullable<ClientRequest['cliFilter']>;

export const LUA_VERSIONS = ['5.1', '5.3', '5.4'] as const;
export type LuaVersion = (typeof LUA_VERSIONS)[number];

export interface CliFilterOptions {
  /**
   * The Lua cli_filter/lua runs the site's cli_filter.lua with: "5.1" (the
   * default: what Debian's Slurm 22.05 and 24.11 link), "5.3" or "5.4". The
   * machine's liblua of that version is used (Debian: liblua5.X-0).
   */
  lua?: LuaVersion;
  /**
   * Make what Slurm passes over in silence end the command: a Lua error, a
   * hook declared with parameters Slurm never passes, a non-numeric result,
   * an `options[...] =` that sets nothing. setup_defaults and pre_submit
   * then fail ("cli_filter plugin terminated with error").
   */
  strict?: boolean;
  /** cli_filter/user_defaults' file; default ~/.slurm/defaults of the user (passwd), as Slurm. */
  userDefaults?: string;
}

export function validCliFilterOptions(value: unknown): CliFilterOptions {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null) throw invalidArgument('cliFilter', 'an object', value);
  const o = value as Record<string, unknown>;
  if (o.lua !== undefined && !(LUA_VERSIONS as readonly unknown[]).includes(o.lua))
    throw invalidArgument('cliFilter.lua', LUA_VERSIONS.map((v) => `"${v}"`).join(', '), o.lua);
  if (o.strict !== undefined && typeof o.strict !== 'boolean') throw invalidArgument('cliFilter.strict', 'a boolean', o.strict);
  if (o.userDefaults !== undefined && (typeof o.userDefaults !== 'string' || o.userDefaults === ''))
    throw invalidArgument('cliFilter.userDefaults', 'a path', o.userDefaults);
  return { ...o } as CliFilterOptions;
}

/** The client host's cliFilter request: nothing when slurm.conf names no plugin. */
export function cliFilterRequest(
  slurmConf: SlurmConf | undefined,
  options: CliFilterOptions,
): CliFilterRequest | undefined {
  if (!slurmConf || slurmConf.cliFilterPlugins.length === 0) return undefined;
  const where = slurmConf.keyLines.CliFilterPlugins;
  return {
    plugins: slurmConf.cliFilterPlugins,
    slurmConf: slurmConf.path,
    file: where?.file ?? slurmConf.path,
    line: where?.line ?? 0,
    clusterName: slurmConf.clusterName ?? '',
    luaVersion: options.lua ?? '5.1',
    ...(options.strict ? { strict: true } : {}),
    ...(options.userDefaults ? { userDefaults: options.userDefaults } : {}),
  };
}
