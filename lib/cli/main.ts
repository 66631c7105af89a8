/**
 * The plugstack command. A thin layer over the public API: it parses
 * arguments, calls Plugstack, prints, and maps outcomes to exit codes
 * (0 ok, 1 the stack or command fails as it would in Slurm, 2 usage).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { PlugstackError } from '../errors.js';
import { includeDir } from '../native/paths.js';
import { fileExists, Plugstack } from '../plugstack.js';
import { ALL_CONTEXTS, CLIENT_COMMANDS, type ClientCommand, type SpankContext } from '../spank.js';
import { parseArgs, UsageError, type ParsedArgs } from './args.js';
import { runCommand } from './commands.js';
import { runJobScriptCommand } from './job-script.js';
import { renderCheck } from './render-check.js';

const USAGE = `usage: plugstack <command> [options]

commands:
  run [STACK] [srun options] command...     srun: a job step through the local and remote contexts
  batch [STACK] [sbatch options] script...  sbatch: the allocator context, then the batch job
  alloc [STACK] [salloc options] command... salloc: the allocator context, then the command
      STACK: --conf FILE (default $PLUGSTACK_CONF, else /etc/slurm/plugstack.conf),
             --plugin-dir DIRS, --slurm-version V; they come before the command's own options
  prolog [STACK] [JOB]     the SPANK job prolog of one job on one node, as slurmd's helper runs it
  epilog [STACK] [JOB]     the same for the job epilog; exit status as the helper's (1 = failed)
      STACK: --conf FILE, --plugin-dir DIRS, --slurm-version V, as for run
      JOB: from the environment as slurmd passes it (SLURM_JOBID, SLURM_UID, SLURM_JOB_GID, SPANK_*, ...),
           or --job-id N [--uid U] [--gid G] [--node NAME] [--exit-status RAW] to build it;
           --timeout SECONDS as PrologEpilogTimeout
  check <plugstack.conf>   load the stack in every SPANK context as Slurm would, report problems
      --plugin-dir DIRS      Slurm's PluginDir (':'-separated) for relative plugin paths
      --slurm-version V      emulate Slurm 24.11 (default) or 22.05
      --context C            only this context (local, remote, allocator, slurmd, job_script)
      --json                 print the report as JSON
  help <plugstack.conf>    print the "Options provided by plugins:" block of srun --help
      --command C            srun (default), sbatch or salloc
      --plugin-dir DIRS, --slurm-version V   as for check
  cc <plugin.c> [cc args]  compile a SPANK plugin against plugstack's headers
                           (runs: \${CC:-cc} -shared -fPIC -I<include> <args>)

exit status: 0 ok, 1 Slurm would fail, 2 usage error
`;

type Out = { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream };

const stackOptions = {
  'plugin-dir': { value: true },
  'slurm-version': { value: true },
} as const;

function oneConf(args: ParsedArgs, command: string): string {
  if (args.positionals.length !== 1) throw new UsageError(`${command} takes exactly one plugstack.conf`);
  const conf = args.positionals[0]!;
  // Slurm treats a missing plugstack.conf as an empty stack, but a file
  // named on our command line that is not there is a mistake worth stopping.
  if (!fileExists(conf)) throw new PlugstackError('CONF_NOT_FOUND', `${conf}: no such file`, { file: conf });
  return conf;
}

async function loadStack(args: ParsedArgs, conf: string): Promise<Plugstack> {
  const options: { pluginDir?: string; slurmVersion?: string } = {};
  const dir = args.values.get('plugin-dir');
  const version = args.values.get('slurm-version');
  if (dir !== undefined) options.pluginDir = dir;
  if (version !== undefined) options.slurmVersion = version;
  return Plugstack.load(conf, options);
}

async function check(argv: string[], out: Out): Promise<number> {
  const args = parseArgs(argv, { ...stackOptions, context: { value: true }, json: {} });
  const conf = oneConf(args, 'check');
  const context = args.values.get('context');
  if (context !== undefined && !(ALL_CONTEXTS as string[]).includes(context))
    throw new UsageError(`--context must be one of ${ALL_CONTEXTS.join(', ')}`);
  const stack = await loadStack(args, conf);
  const report = await stack.check(context ? { context: context as SpankContext } : {});
  out.stdout.write(args.flags.has('json') ? JSON.stringify(report, null, 2) + '\n' : renderCheck(report));
  return report.ok ? 0 : 1;
}

async function help(argv: string[], out: Out): Promise<number> {
  const args = parseArgs(argv, { ...stackOptions, command: { value: true } });
  const conf = oneConf(args, 'help');
  const command = args.values.get('command') ?? 'srun';
  if (!(CLIENT_COMMANDS as readonly string[]).includes(command))
    throw new UsageError('--command must be srun, sbatch or salloc');
  const stack = await loadStack(args, conf);
  try {
    out.stdout.write(await stack.help({ command: command as ClientCommand }));
  } catch (error) {
    if (error instanceof PlugstackError && error.code === 'HOST_FAILED') {
      out.stderr.write(`plugstack: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  return 0;
}

function cc(argv: string[], out: Out): number {
  if (argv.length === 0) throw new UsageError('cc needs a source file and compiler arguments');
  const compiler = process.env.CC || 'cc';
  const command = [compiler, '-shared', '-fPIC', `-I${includeDir}`, ...argv];
  out.stdout.write(command.map(shellQuote).join(' ') + '\n');
  const result = spawnSync(command[0]!, command.slice(1), { stdio: 'inherit' });
  if (result.error) {
    out.stderr.write(`plugstack cc: cannot run ${compiler}: ${result.error.message}\n`);
    return 1;
  }
  return result.status ?? 1;
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./=:,+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export async function main(argv: string[], out: Out = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'check':
        return await check(rest, out);
      case 'help':
        return await help(rest, out);
      case 'cc':
        return cc(rest, out);
      case 'run':
        return await runCommand('srun', rest);
      case 'batch':
        return await runCommand('sbatch', rest);
      case 'alloc':
        return await runCommand('salloc', rest);
      case 'prolog':
      case 'epilog':
        return await runJobScriptCommand(command, rest, out);
      case '--version': {
        const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
        out.stdout.write(`plugstack ${pkg.version}\n`);
        return 0;
      }
      case undefined:
      case '--help':
      case '-h':
        (command === undefined ? out.stderr : out.stdout).write(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      out.stderr.write(`plugstack: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof PlugstackError) {
      out.stderr.write(`plugstack: ${error.message}\n`);
      return error.code === 'CONF_NOT_FOUND' || error.code === 'INVALID_ARGUMENT' || error.code === 'UNSUPPORTED_SLURM_VERSION' ? 2 : 1;
    }
    throw error;
  }
}
