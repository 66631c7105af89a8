/**
 * The plugstack command. A thin layer over the public API: it parses
 * arguments, calls Plugstack, prints, and maps outcomes to exit codes
 * (0 ok, 1 the stack or command fails as it would in Slurm, 2 usage).
 * A usage error of plugstack's own is one line and a pointer to --help;
 * srun's, sbatch's and salloc's own errors are theirs.
 */
import fs from 'node:fs';
import { PlugstackError } from '../errors.js';
import { UsageError } from './args.js';
import { cc } from './cc.js';
import { check, help } from './check.js';
import { runCommand } from './commands.js';
import { runJobScriptCommand } from './job-script.js';
import { quietly, type Out } from './output.js';
import { USAGE } from './usage.js';

const COMMANDS = ['run', 'batch', 'alloc', 'prolog', 'epilog', 'check', 'help', 'cc'] as const;
type Command = (typeof COMMANDS)[number];

/** Errors about what was typed rather than about the stack. */
const USAGE_CODES = new Set(['CONF_NOT_FOUND', 'INVALID_ARGUMENT', 'UNSUPPORTED_SLURM_VERSION']);

function version(): string {
  const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** `--help`/`-h` among plugstack's own words (before `--`). */
function asksForHelp(argv: string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

async function dispatch(command: Command, rest: string[], out: Out): Promise<number> {
  switch (command) {
    case 'run':
      return runCommand('srun', rest, out);
    case 'batch':
      return runCommand('sbatch', rest, out);
    case 'alloc':
      return runCommand('salloc', rest, out);
    case 'prolog':
    case 'epilog':
      return runJobScriptCommand(command, rest, out);
    case 'check':
      return check(rest, out);
    case 'help':
      return help(rest, out);
    case 'cc':
      return cc(rest, out);
  }
}

/** Node's own standard output and error, asked for only when written to. */
const processOut: Out = {
  get stdout() {
    return process.stdout;
  },
  get stderr() {
    return process.stderr;
  },
};

export async function main(argv: string[], given: Out = processOut): Promise<number> {
  const out = quietly(given);
  const [first, ...rest] = argv;
  if (first === undefined) {
    out.stderr.write(USAGE['']! + '\n');
    return 2;
  }
  if (first === '--help' || first === '-h') {
    out.stdout.write(USAGE['']! + '\n');
    return 0;
  }
  if (first === '--version' || first === '-V') {
    out.stdout.write(`plugstack ${version()}\n`);
    return 0;
  }
  if (!(COMMANDS as readonly string[]).includes(first)) {
    out.stderr.write(`plugstack: ${first.startsWith('-') ? `unknown option ${first}` : `unknown command "${first}"`}\nTry "plugstack --help"\n`);
    return 2;
  }
  const command = first as Command;
  // run, batch and alloc hand --help to srun, sbatch and salloc.
  if (!['run', 'batch', 'alloc'].includes(command) && asksForHelp(rest)) {
    out.stdout.write(USAGE[command]! + '\n');
    return 0;
  }
  try {
    return await dispatch(command, rest, out);
  } catch (error) {
    if (error instanceof UsageError || (error instanceof PlugstackError && USAGE_CODES.has(error.code))) {
      out.stderr.write(`plugstack ${command}: ${error.message}\nTry "plugstack ${command} --help"\n`);
      return 2;
    }
    if (error instanceof PlugstackError) {
      out.stderr.write(`plugstack ${command}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
