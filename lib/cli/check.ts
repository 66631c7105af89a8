/** plugstack check and plugstack help: what Slurm would make of a stack. */
import { PlugstackError } from '../errors.js';
import { LUA_VERSIONS, type LuaVersion } from '../cli-filter/settings.js';
import { Plugstack, type LoadOptions } from '../plugstack.js';
import { ALL_CONTEXTS, CLIENT_COMMANDS, type ClientCommand, type SpankContext } from '../spank.js';
import { parseArgs, UsageError, type ParsedArgs } from './args.js';
import { stackFile } from './input.js';
import { toJson, type Out } from './output.js';
import { renderCheck } from './render-check.js';
import { mpiPluginSite } from '../mpi/check.js';
import { jobContainerPluginSite } from '../job-container/check.js';

const stackOptions = {
  'plugin-dir': { value: true },
  'slurm-version': { value: true },
} as const;

function oneInput(args: ParsedArgs, command: string): string {
  if (args.positionals.length !== 1) throw new UsageError(`${command} takes exactly one plugstack.conf or plugin`);
  return args.positionals[0]!;
}

async function loadStack(args: ParsedArgs, conf: string | undefined): Promise<Plugstack> {
  const options: LoadOptions = {};
  const dir = args.values.get('plugin-dir');
  const version = args.values.get('slurm-version');
  const slurmConf = args.values.get('slurm-conf');
  const lua = args.values.get('lua');
  if (dir !== undefined) options.pluginDir = dir;
  if (version !== undefined) options.slurmVersion = version;
  if (slurmConf !== undefined) options.slurmConf = slurmConf;
  if (lua !== undefined) {
    if (!(LUA_VERSIONS as readonly string[]).includes(lua)) throw new UsageError(`--lua must be one of ${LUA_VERSIONS.join(', ')}, not "${lua}"`);
    options.cliFilter = { lua: lua as LuaVersion };
  }
  return Plugstack.load(conf, options);
}

/** The stack of `file`, saying so on stderr when it is a plugin taken as a one-line stack. */
function openInput(file: string, out: Out): ReturnType<typeof stackFile> {
  return stackFile(file, (line) => out.stderr.write(`plugstack: ${file} is a plugin: checking it as the one-line stack "${line}"\n`));
}

export async function check(argv: string[], out: Out): Promise<number> {
  const args = parseArgs(argv, { ...stackOptions, 'slurm-conf': { value: true }, lua: { value: true }, context: { value: true }, json: {} });
  const context = args.values.get('context');
  if (context !== undefined && !(ALL_CONTEXTS as string[]).includes(context))
    throw new UsageError(`--context must be one of ${ALL_CONTEXTS.join(', ')}`);
  // With --slurm-conf the plugstack.conf may be left out: slurm.conf's PlugStackConfig names it.
  if (args.values.has('slurm-conf') && args.positionals.length === 0) {
    const stack = await loadStack(args, undefined);
    const report = await stack.check(context ? { context: context as SpankContext } : {});
    out.stdout.write(args.flags.has('json') ? toJson(report) : renderCheck(report));
    return report.ok ? 0 : 1;
  }
  const file = oneInput(args, 'check');
  // An mpi plugin (mpi_NAME.so) is checked as slurmd and srun load it.
  // A job_container plugin (job_container_NAME.so) likewise, as slurmd loads it.
  const jcSite = args.values.has('slurm-conf') ? null : jobContainerPluginSite(file);
  const mpiSite = args.values.has('slurm-conf') || jcSite ? jcSite : mpiPluginSite(file);
  if (mpiSite) {
    try {
      if (jcSite)
        out.stderr.write(`plugstack: ${file} is a job_container plugin: checking it as slurmd and slurmstepd load it (PluginDir with it alone, JobContainerType its type)\n`);
      else
        out.stderr.write(`plugstack: ${file} is an mpi plugin: checking it as slurmd and srun load it (PluginDir with it alone, MpiDefault its type)\n`);
      args.values.set('slurm-conf', mpiSite.slurmConf);
      const stack = await loadStack(args, mpiSite.conf);
      const report = await stack.check(context ? { context: context as SpankContext } : {});
      // The text names the file as given, not its link in the temporary PluginDir.
      out.stdout.write(args.flags.has('json') ? toJson(report) : renderCheck(report).split(mpiSite.link).join(file));
      return report.ok ? 0 : 1;
    } finally {
      mpiSite.dispose();
    }
  }
  const input = openInput(file, out);
  try {
    const stack = await loadStack(args, input.conf);
    const report = await stack.check(context ? { context: context as SpankContext } : {});
    // A plugin's one-line stack lives in a temporary file: the text names it for what it is.
    const text = args.flags.has('json') ? toJson(report) : input.conf === file ? renderCheck(report) : renderCheck(report).split(input.conf).join('(one-line stack)');
    out.stdout.write(text);
    return report.ok ? 0 : 1;
  } finally {
    input.dispose();
  }
}

export async function help(argv: string[], out: Out): Promise<number> {
  const args = parseArgs(argv, { ...stackOptions, command: { value: true }, json: {} });
  const file = oneInput(args, 'help');
  const command = args.values.get('command') ?? 'srun';
  if (!(CLIENT_COMMANDS as readonly string[]).includes(command)) throw new UsageError('--command must be srun, sbatch or salloc');
  const input = openInput(file, out);
  try {
    const stack = await loadStack(args, input.conf);
    let text: string;
    try {
      text = await stack.help({ command: command as ClientCommand });
    } catch (error) {
      if (error instanceof PlugstackError && error.code === 'HOST_FAILED') {
        out.stderr.write(`plugstack: ${error.message}\n`);
        return 1;
      }
      throw error;
    }
    out.stdout.write(args.flags.has('json') ? toJson({ conf: file, command, text }) : text);
    return 0;
  } finally {
    input.dispose();
  }
}
