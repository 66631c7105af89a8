/**
 * plugstack run / batch / alloc: srun, sbatch and salloc. Leading
 * --conf, --plugin-dir and --slurm-version choose the stack (defaults:
 * PLUGSTACK_CONF, PLUGSTACK_PLUGIN_DIR, PLUGSTACK_SLURM_VERSION, which is
 * how the srun inside a batch script finds the same stack), --json and
 * --timeline say what to make of the result; every word after them is the
 * command's, passed on untouched.
 */
import { processSignals } from '../cluster/control.js';
import { PlugstackError } from '../errors.js';
import { fileExists, Plugstack } from '../plugstack.js';
import type { CommandName } from '../commands/types.js';
import { UsageError } from './args.js';
import { toJson, writeTimeline, type Out } from './output.js';
import { clientOptionsHelp } from './usage.js';

/** Slurm's default plugstack.conf, next to slurm.conf. */
const DEFAULT_CONF = '/etc/slurm/plugstack.conf';

const OWN = ['conf', 'plugin-dir', 'slurm-version', 'timeline', 'json'] as const;
const FLAGS = new Set(['json']);

function splitOwnOptions(argv: string[]): { own: Map<string, string>; rest: string[] } {
  const own = new Map<string, string>();
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      i++;
      break;
    }
    const m = /^--(conf|plugin-dir|slurm-version|timeline|json)(?:=(.*))?$/.exec(a);
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

export async function runCommand(command: CommandName, argv: string[], out: Out): Promise<number> {
  const { own, rest } = splitOwnOptions(argv);
  const env = process.env;
  const named = own.get('conf') ?? env.PLUGSTACK_CONF;
  // Slurm runs with an empty stack when plugstack.conf is missing; a file
  // named on plugstack's own command line that is not there is a mistake.
  if (own.has('conf') && !fileExists(named!)) throw new PlugstackError('CONF_NOT_FOUND', `${named}: no such file`, { file: named! });
  const conf = named ?? DEFAULT_CONF;
  const pluginDir = own.get('plugin-dir') ?? env.PLUGSTACK_PLUGIN_DIR;
  const slurmVersion = own.get('slurm-version') ?? env.PLUGSTACK_SLURM_VERSION;
  const stack = await Plugstack.load(conf, {
    ...(pluginDir !== undefined ? { pluginDir } : {}),
    ...(slurmVersion !== undefined ? { slurmVersion } : {}),
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
    signals: processSignals(),
  };
  const result =
    command === 'srun' ? await stack.srun(options) : command === 'sbatch' ? await stack.sbatch(options) : await stack.salloc(options);
  if (json) out.stdout.write(toJson(result));
  else if (result.client.stoppedAt === 'help') out.stdout.write(clientOptionsHelp(command));
  writeTimeline(own.get('timeline'), result, out);
  return result.exitCode;
}

export const OWN_OPTIONS = OWN;
