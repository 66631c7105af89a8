/**
 * slurmd's _get_user_env: a batch job whose environment holds
 * SLURM_GET_USER_ENV=1 (sbatch --get-user-env, or any --export other than
 * ALL) starts from the user's login environment. Once the job's prolog has
 * run on the batch host, slurmd runs `su - <user>` with a command that
 * prints the login shell's limits (SLURM_RLIMIT_*) and environment
 * (native/core/lifecycle/user_env.cc, in a slurmd host, as root only), for
 * up to 120 seconds, then merges the job's environment over it: the job's
 * values win, and the login's variables come first. The login's limits
 * count only where the job sent none (--get-user-env: for any other
 * --export sbatch has put its own among the SLURM_* variables it always
 * passes). When that fails the job runs with the environment it was sent.
 */
import { EnvArray } from '../cluster/export-env.js';
import { startHost, type HostHandle } from '../host/host-process.js';
import { processRecord } from '../host/process-record.js';

/** slurmd waits this long for su before giving up (its _get_user_env). */
const SU_TIMEOUT_SEC = 120;

export interface UserEnvLoad {
  /** The login environment, in su's shell's order; undefined when none could be loaded. */
  env: string[] | undefined;
  /** slurmd's log lines about it (Slurm's own), verbose ones included, and a host that ended without an answer. */
  log: { level: string; message: string }[];
}

/** slurmd loads it as root only ("SlurmdUser must be root"): plugstack without root does not try. */
export const LOADS_USER_ENV = process.geteuid?.() === 0;

/** The variable that asks slurmd for the login environment, exactly as slurmd looks for it. */
export function asksForUserEnv(jobEnv: readonly string[]): boolean {
  return jobEnv.includes('SLURM_GET_USER_ENV=1');
}

export async function loadUserEnv(
  stack: { conf: string; slurmVersion: string; pluginDirs: readonly string[]; hostEnv?: NodeJS.ProcessEnv | undefined },
  node: string,
  user: string,
  /** What ends the command's processes (a cancelled sbatch ends su too). */
  owner?: { track(handle: HostHandle): HostHandle },
): Promise<UserEnvLoad> {
  const handle = startHost(
    'slurmd',
    { conf: stack.conf, context: 'slurmd', slurmVersion: stack.slurmVersion, pluginDirs: stack.pluginDirs, userEnvOp: { user, timeoutSec: SU_TIMEOUT_SEC } },
    // slurmd's own bound is the one that counts: the host's is a backstop.
    { label: `slurmd on ${node} (_get_user_env)`, timeoutMs: (SU_TIMEOUT_SEC + 10) * 1000, env: { ...(stack.hostEnv ?? process.env), SLURMD_NODENAME: node }, cwd: '/' },
  );
  owner?.track(handle);
  const run = await handle.finished;
  const loaded = run.events.find((e) => e.t === 'userEnv');
  const log = processRecord(run, 'slurmd').log.map((l) => ({ level: l.level, message: l.message }));
  if (!loaded) log.push({ level: 'error', message: run.fault?.message ?? `${run.label} ended without an answer` });
  return { env: loaded && loaded.t === 'userEnv' && loaded.ok ? loaded.env : undefined, log };
}

/** env_array_merge of the job's environment over the login's: values replaced in place, new names appended. */
export function overLoginEnv(login: readonly string[], job: readonly string[]): string[] {
  const merged = new EnvArray();
  for (const e of login) merged.overwrite(e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1));
  // _env_array_entry_splitter: a name that fits in 256 bytes.
  merged.merge(job, (name) => name.length < 256);
  return merged.list();
}
