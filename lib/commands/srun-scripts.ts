/**
 * srun's own prolog and epilog (--prolog, --epilog, else slurm.conf's
 * SrunProlog and SrunEpilog; "none" runs none), which srun runs itself on
 * the submitting host (srun_job.c _run_srun_script): the prolog once the
 * step exists, before local_user_init, the epilog once the step has ended.
 * srun first writes SLURM_SCRIPT_CONTEXT (prolog_srun, epilog_srun) into
 * its own environment, so the tasks see the prolog's; the script gets the
 * step's program and arguments as its own, and its output is srun's.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CommandControl } from '../cluster/control.js';
import { childProcess } from '../lazy-modules.js';
import type { CommandConsole } from './console.js';

export type SrunScriptKind = 'prolog' | 'epilog';

/** The script srun runs, or undefined: the option, else slurm.conf's key; "none" is none. */
export function srunScript(option: string | undefined, configured: string | undefined): string | undefined {
  const script = option ?? configured;
  return script === undefined || script === '' || script.toLowerCase() === 'none' ? undefined : script;
}

/** What srun writes into its own environment before running it. */
export function srunScriptContext(kind: SrunScriptKind): Record<string, string> {
  return { SLURM_SCRIPT_CONTEXT: `${kind}_srun` };
}

/**
 * Runs the script as srun does and says what srun says: a script it may
 * not read and run is passed over ("Access denied for S: ..."); one that
 * exits non-zero is srun's error. srun waits for the script alone (what it
 * leaves running keeps writing to srun's output); a timeout or a cancel of
 * the command kills its process group. Its exit status (0 when passed over).
 */
export async function runSrunScript(
  kind: SrunScriptKind,
  script: string,
  argv: readonly string[],
  env: Record<string, string>,
  cwd: string,
  console: CommandConsole,
  control: CommandControl,
): Promise<number> {
  // execv: a relative path is srun's working directory's, never the PATH's.
  const file = path.resolve(cwd, script);
  try {
    fs.accessSync(file, fs.constants.R_OK | fs.constants.X_OK);
  } catch (error) {
    console.log('info', `Access denied for ${script}: ${describe(error)}`);
    return 0;
  }
  const status = await new Promise<number>((resolve) => {
    // A process group of its own, so that a timeout or a cancel ends what it started too.
    const child = childProcess().spawn(file, [...argv], { cwd, env, argv0: script, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const forget = control.trackProcess(() => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    });
    child.stdout.on('data', (d: Buffer) => console.stdout(d));
    child.stderr.on('data', (d: Buffer) => console.stderr(d));
    child.on('error', (error) => {
      forget();
      console.log('error', `Failed to execute srun prolog/epilog script: ${describe(error)}`);
      resolve(127);
    });
    child.on('exit', (code, signal) => {
      forget();
      // What the script left running may still write; it no longer holds the command up.
      for (const stream of [child.stdout, child.stderr]) (stream as unknown as { unref?: () => void }).unref?.();
      if (signal) console.log('error', 'script did not exit normally');
      resolve(code ?? 1);
    });
  });
  if (status !== 0) console.log('error', kind === 'prolog' ? `srun prolog failed rc = ${status}. Aborting step.` : `srun epilog failed status=${status}`);
  return status;
}

/** strerror's words for a Node error (No such file or directory, Permission denied, ...). */
function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const words: Record<string, string> = { ENOENT: 'No such file or directory', EACCES: 'Permission denied', ENOTDIR: 'Not a directory', ELOOP: 'Too many levels of symbolic links' };
  return (code && words[code]) ?? (error as Error).message;
}
