/** The help texts of plugstack and of each of its commands. */

const STACK = `stack:
  --conf FILE           the plugstack.conf (default $PLUGSTACK_CONF, else /etc/slurm/plugstack.conf)
  --plugin-dir DIRS     Slurm's PluginDir (':'-separated), for relative plugin paths
  --slurm-version V     emulate Slurm 24.11 (default) or 22.05`;

const RESULT = `  --json                print the whole result as JSON instead of the command's output
  --timeline FILE.svg   draw the run: one lane per process, one bar per call into plugin code`;

const SLURM_COMMAND: Record<string, string> = { srun: 'run', sbatch: 'batch', salloc: 'alloc' };

/** What `plugstack run|batch|alloc --help` adds after the command's own help. */
export function clientOptionsHelp(slurm: string): string {
  return `
plugstack ${SLURM_COMMAND[slurm]}: ${slurm} through plugstack. Its own options come before ${slurm}'s:
  --conf FILE           the plugstack.conf (default $PLUGSTACK_CONF, else slurm.conf's
                        PlugStackConfig, else /etc/slurm/plugstack.conf)
  --slurm-conf FILE     the site's slurm.conf (default $SLURM_CONF): PluginDir, PlugStackConfig,
                        CliFilterPlugins (and cli_filter.lua beside it), nodes, partitions
  --plugin-dir DIRS     Slurm's PluginDir (':'-separated), for relative plugin paths
  --slurm-version V     emulate Slurm 24.11 (default) or 22.05; 24.11.6 picks a micro release
  --lua V               the Lua cli_filter/lua runs on: 5.1 (default), 5.3 or 5.4
  --strict              a Lua error, a hook declared with parameters Slurm never passes, a
                        non-numeric result or an options[...] = that sets nothing ends the command
${RESULT}${slurm === 'srun' ? '\n  --pmi-trace           keep every PMI line of every rank (--mpi=pmi2) in the result' : ''}
`;
}

export const USAGE: Record<string, string> = {
  '': `usage: plugstack <command> [options]

commands:
  run      srun: a job step through the local and remote contexts, with real tasks
  batch    sbatch: the allocator context, then the batch job
  alloc    salloc: the allocator context, then the command in the allocation
  prolog   the SPANK job prolog of one job on one node, as slurmd's helper runs it
  epilog   the SPANK job epilog, likewise
  check    load a stack in every SPANK context as Slurm would, report problems
  help     print the "Options provided by plugins:" block of srun/sbatch/salloc --help
  cc       compile a SPANK plugin against plugstack's headers

"plugstack <command> --help" says more about each; run, batch and alloc
print srun's, sbatch's and salloc's usage, the plugins' options and then
plugstack's own, which come first on the command line:
  plugstack run [--conf F] [--slurm-conf F] [--plugin-dir D] [--slurm-version V]
                [--lua V] [--strict] [--json] [--timeline FILE.svg] [srun options] command...

  -V, --version   print plugstack's version
  -h, --help      this text

exit status: 0 ok, 1 Slurm would fail, 2 usage error (run, batch, alloc: the command's own)`,

  prolog: jobScript('prolog'),
  epilog: jobScript('epilog'),

  check: `usage: plugstack check [options] <plugstack.conf | plugin.so>
       plugstack check --slurm-conf slurm.conf [options]

Loads the stack in every SPANK context (local, remote, allocator, slurmd,
job_script) as Slurm would and reports plugins, callbacks, options and
problems. A plugin (a shared object) is checked as the one-line stack
"required <plugin>". With a slurm.conf, also what srun, sbatch and salloc
make of it and of the cli_filter plugins it names (cli_filter.lua included,
read and run as cli_filter/lua loads it).

  --slurm-conf FILE     the site's slurm.conf (its PlugStackConfig when no plugstack.conf is given)
  --lua V               the Lua cli_filter/lua runs on: 5.1 (default), 5.3 or 5.4

  --plugin-dir DIRS     Slurm's PluginDir (':'-separated), for relative plugin paths
  --slurm-version V     emulate Slurm 24.11 (default) or 22.05
  --context C           only this context: local, remote, allocator, slurmd, job_script
  --json                print the report as JSON

exit status: 0 Slurm would load the stack, 1 it would not, 2 usage error`,

  help: `usage: plugstack help [options] <plugstack.conf | plugin.so>

Prints the "Options provided by plugins:" block of the command's --help,
byte for byte as Slurm prints it.

  --command C           srun (default), sbatch or salloc
  --plugin-dir DIRS     Slurm's PluginDir (':'-separated)
  --slurm-version V     emulate Slurm 24.11 (default) or 22.05
  --json                print {conf, command, text} as JSON

exit status: 0 ok, 1 the stack could not be loaded, 2 usage error`,

  cc: `usage: plugstack cc [--slurm-version V] <plugin.c> [cc arguments]

Compiles a SPANK plugin against plugstack's headers and prints the command:
  \${CC:-cc} -shared -fPIC -I<plugstack>/include <arguments>
  --slurm-version V     build for this release: its version goes into the
                        plugin's plugin_version (default 24.11; 22.05 also)

exit status: the compiler's`,
};

function jobScript(mode: 'prolog' | 'epilog'): string {
  return `usage: plugstack ${mode} [options]

Runs the SPANK job ${mode} of one job on one node, as slurmd's helper
(slurmstepd spank ${mode}) does, and exits with the helper's status.
The job comes from the environment as slurmd passes it (SLURM_JOBID,
SLURM_UID, SLURM_JOB_GID, SPANK_*, ...), or is built from --job-id.

${STACK}
  --job-id N            build the job: its id, with
  --uid U, --gid G      its user and group (default: this process's)
  --node NAME           the node (default node0)${mode === 'epilog' ? '\n  --exit-status RAW     the job\'s raw exit status' : ''}
  --timeout SECONDS     PrologEpilogTimeout (default 300)
${RESULT}

exit status: the helper's (0 ok, 1 a required plugin failed; 128+signal when killed)`;
}
