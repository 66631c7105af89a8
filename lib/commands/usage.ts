/**
 * The built-in part of --help. plugstack's own short text (Slurm's is not
 * copied): the options plugstack acts on. Every other option of the real
 * command is accepted and recorded. The plugin block that follows is Slurm's
 * to the byte.
 */
import type { CommandName } from './types.js';

const COMMON = `  -N, --nodes=N               number of nodes (emulated: node0, node1, ...)
  -n, --ntasks=N              number of tasks
  -c, --cpus-per-task=N       CPUs per task
  -D, --chdir=PATH            working directory of the job
  -J, --job-name=NAME         name of the job
  -v, --verbose               more of the command's own log lines
  -Q, --quiet                 only errors
  -h, --help                  this text`;

const TEXT: Record<CommandName, string> = {
  srun: `Usage: srun [OPTIONS(0)... [executable(0) [args(0)...]]]
(run through plugstack: a job step with the SPANK local and remote contexts)

${COMMON}
  -l, --label                 prepend task number to lines of output
      --jobid=ID              run as a step of an existing plugstack job
      --export=ALL|NONE|VARS  environment passed to the tasks
`,
  sbatch: `Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]
(run through plugstack: the SPANK allocator context, then the batch job)

${COMMON}
      --wrap=COMMAND          wrap a command in a sh script
  -o, --output=FILE           the job's output (default slurm-%j.out)
  -e, --error=FILE            the job's error output
  -W, --wait                  wait for the job and exit with its exit code
      --export=ALL|NONE|VARS  environment passed to the job
`,
  salloc: `Usage: salloc [OPTIONS(0)...] [ : [OPTIONS(N)...]] [command(0) [args(0)...]]
(run through plugstack: the SPANK allocator context, then the command)

${COMMON}
`,
};

export function builtinUsage(command: CommandName): string {
  return TEXT[command];
}
