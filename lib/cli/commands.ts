/**
 * plugstack run / batch / alloc: srun, sbatch and salloc. Leading
 * --conf, --slurm-conf, --plugin-dir and --slurm-version choose the stack
 * (defaults: PLUGSTACK_CONF, SLURM_CONF as Slurm's commands read it,
 * PLUGSTACK_PLUGIN_DIR, PLUGSTACK_SLURM_VERSION, which is how the srun
 * inside a batch script finds the same stack), --lua and --strict how the
 * cli_filter plugins run (PLUGSTACK_LUA, PLUGSTACK_STRICT), --json and
 * --timeline say what to make of the result, --pmi-trace keeps every PMI
 * line of srun's ranks (plugstack's pmi2) in it; every word after them is the
 * command's, passed on untouched.
 */
import fs from 'node:fs';
import { LUA_VERSIONS, type CliFilterOptions, type LuaVersion } from '../cli-filter/settings.js';
import { processSignals } from '../cluster/control.js';
import { PlugstackError } from '../errors.js';
import { fileExists, Plugstack } from '../plugstack.js';
import type { CommandName } from '../commands/types.js';
import { UsageError } from './args.js';
import { toJson, writeTimeline, type Out } from './output.js';
import { clientOptionsHelp } from './usage.js';

/** Slurm's default plugstack.conf, next to slurm.conf. */
const DEFAULT_CONF = '/etc/slurm/plugstack.conf';

const OWN = ['conf', 'slurm-conf', 'plugin-dir', 'slurm-version', 'lua', 'strict', 'timeline', 'json', 'pmi-trace'] as const;
const FLAGS = new Set(['json', 'strict', 'pmi-trace']);

function splitOwnOptions(argv: string[]): { own: Map<string, string>; rest: string[] } {
  const own = new Map<string, string>();
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    // A "--" is the command's own (srun -- -prog: the program is -prog).
    if (a === '--') break;
    const m = /^--(conf|slurm-conf|plugin-dir|slurm-version|lua|strict|timeline|json|pmi-trace)(?:=(.*))?$/.exec(a);
    if (!m) break;
    if (FLAGS.has(m[1]!)) {
      if (m[2] !== undefined) throw new UsageError(`option --${m[1]} takes no value`);
      own.set(m[1]!, '');
      continue;
    }
    const value = m[2] ?? argv[++i];
    if (value === undefined) throw new UsageError(`option --${m[1]} needs a value`);
    own.set(m[1]!, value);
  }
  return { own, rest: argv.slice(i) };
}

/** --lua, --strict; PLUGSTACK_LUA, PLUGSTACK_STRICT and PLUGSTACK_USER_DEFAULTS carry them into a job's sruns. */
function cliFilterOptions(own: Map<string, string>, env: NodeJS.ProcessEnv): CliFilterOptions {
  const lua = own.get('lua') ?? env.PLUGSTACK_LUA;
  if (lua !== undefined && !(LUA_VERSIONS as readonly string[]).includes(lua))
    throw new UsageError(`--lua must be one of ${LUA_VERSIONS.join(', ')}, not "${lua}"`);
  return {
    ...(lua !== undefined ? { lua: lua as LuaVersion } : {}),
    ...(own.has('strict') || env.PLUGSTACK_STRICT === '1' ? { strict: true } : {}),
    ...(env.PLUGSTACK_USER_DEFAULTS ? { userDefaults: env.PLUGSTACK_USER_DEFAULTS } : {}),
  };
}

export async function runCommand(command: CommandName, argv: string[], out: Out): Promise<number> {
  const { own, rest } = splitOwnOptions(argv);
  const env = process.env;
  const named = own.get('conf') ?? env.PLUGSTACK_CONF;
  // Slurm runs with an empty stack when plugstack.conf is missing; a file
  // named on plugstack's own command line that is not there is a mistake.
  if (own.has('conf') && !fileExists(named!)) throw new PlugstackError('CONF_NOT_FOUND', `${named}: no such file`, { file: named! });
  // A slurm.conf names the plugstack.conf (PlugStackConfig) unless one is named here.
  const slurmConf = own.get('slurm-conf') ?? env.SLURM_CONF;
  const conf = named ?? (slurmConf !== undefined ? undefined : DEFAULT_CONF);
  const pluginDir = own.get('plugin-dir') ?? env.PLUGSTACK_PLUGIN_DIR;
  const slurmVersion = own.get('slurm-version') ?? env.PLUGSTACK_SLURM_VERSION;
  const stack = await Plugstack.load(conf, {
    ...(slurmConf !== undefined ? { slurmConf } : {}),
    ...(pluginDir !== undefined ? { pluginDir } : {}),
    ...(slurmVersion !== undefined ? { slurmVersion } : {}),
    cliFilter: cliFilterOptions(own, env),
  });
  const json = own.has('json');
  const options = {
    args: rest,
    // With --json the result says everything, output included.
    ...(json
      ? {}
      : {
          onStdout: (c: Buffer) => out.stdout.write(c),
          onStderr: (c: Buffer) => out.stderr.write(c),
        }),
    // Ctrl-C and kill reach the command as they reach srun, sbatch, salloc.
    signals: processSignals(command),
    // Standard input is the command's: srun's tasks read it, salloc's
    // command has it (and the terminal, unless the result is printed as
    // JSON), sbatch reads its script from it when none is named.
    stdin: command === 'srun' ? srunInput() : process.stdin,
    // salloc's command shares the terminal; srun's --pty asks its size.
    ...(command !== 'sbatch' && !json && out.stdout === process.stdout ? { terminal: true } : {}),
    ...(own.has('pmi-trace') ? { pmiTrace: true } : {}),
  };
  const result =
    command === 'srun' ? await stack.srun(options) : command === 'sbatch' ? await stack.sbatch(options) : await stack.salloc(options);
  if (json) out.stdout.write(toJson(result));
  else if (result.client.stoppedAt === 'help') out.stdout.write(clientOptionsHelp(command));
  writeTimeline(own.get('timeline'), result, out);
  return result.exitCode;
}

/**
 * srun's standard input for its tasks. When it is /dev/null the tasks read
 * EOF at once, which is what srun does with an empty input (''): the
 * stream Node makes on the first use of process.stdin (an fs.ReadStream for
 * a device) cost a short command 2-4 ms, and reading it gives nothing. Any
 * other input (a terminal, a pipe, a file) is process.stdin.
 */
function srunInput(): string | NodeJS.ReadableStream {
  try {
    const input = fs.fstatSync(0);
    if (input.isCharacterDevice() && input.rdev === fs.statSync('/dev/null').rdev) return '';
  } catch {
    // no standard input at all: as before
  }
  return process.stdin;
}

export const OWN_OPTIONS = OWN;
