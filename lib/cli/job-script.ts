/**
 * plugstack prolog / epilog: slurmd's SPANK helper for one job on one node.
 * Like `slurmstepd spank prolog`, it reads the job from its environment
 * (SLURM_JOBID, SLURM_UID, SLURM_JOB_GID, and whatever else slurmd put
 * there), unless --job-id is given, in which case it builds slurmd's
 * environment from the options. It prints what the helper logs and exits
 * with the helper's status (128 + signal when a plugin killed it).
 */
import { constants } from 'node:os';
import type { JobScriptMode, JobScriptOptions } from '../daemon/types.js';
import { Plugstack } from '../plugstack.js';
import { parseArgs, UsageError } from './args.js';
import { toJson, writeTimeline, type Out } from './output.js';

const DEFAULT_CONF = '/etc/slurm/plugstack.conf';

const SPEC = {
  conf: { value: true },
  'plugin-dir': { value: true },
  'slurm-version': { value: true },
  'job-id': { value: true },
  uid: { value: true },
  gid: { value: true },
  node: { value: true },
  'exit-status': { value: true },
  timeout: { value: true },
  json: {},
  timeline: { value: true },
} as const;

function integer(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} needs a non-negative integer, not "${value}"`);
  return Number(value);
}

export async function runJobScriptCommand(mode: JobScriptMode, argv: string[], out: Out): Promise<number> {
  const args = parseArgs(argv, SPEC);
  if (args.positionals.length) throw new UsageError(`${mode} takes no arguments (the job comes from the environment or --job-id)`);
  const v = (k: Exclude<keyof typeof SPEC, 'json'>) => args.values.get(k);
  const env = process.env;
  const pluginDir = v('plugin-dir') ?? env.PLUGSTACK_PLUGIN_DIR;
  const slurmVersion = v('slurm-version') ?? env.PLUGSTACK_SLURM_VERSION;
  const stack = await Plugstack.load(v('conf') ?? env.PLUGSTACK_CONF ?? DEFAULT_CONF, {
    ...(pluginDir !== undefined ? { pluginDir } : {}),
    ...(slurmVersion !== undefined ? { slurmVersion } : {}),
  });

  const jobId = integer('job-id', v('job-id'));
  const timeout = integer('timeout', v('timeout'));
  const options: JobScriptOptions = { jobId: jobId ?? 0 };
  if (timeout !== undefined) options.timeoutMs = timeout * 1000;
  if (jobId === undefined) {
    // As slurmd passes it: this process's environment, whole.
    options.environment = Object.fromEntries(Object.entries(env).filter((kv): kv is [string, string] => kv[1] !== undefined));
  } else {
    const uid = integer('uid', v('uid'));
    const gid = integer('gid', v('gid'));
    const exitStatus = integer('exit-status', v('exit-status'));
    if (uid !== undefined) options.uid = uid;
    if (gid !== undefined) options.gid = gid;
    if (exitStatus !== undefined) options.exitStatus = exitStatus;
    const node = v('node');
    if (node !== undefined) options.node = node;
    // SPANK_* of our environment: the job-control variables of the job.
    options.jobControlEnv = Object.fromEntries(
      Object.entries(env).filter((kv): kv is [string, string] => kv[0].startsWith('SPANK_') && kv[1] !== undefined),
    );
  }

  const result = mode === 'prolog' ? await stack.prolog(options) : await stack.epilog(options);
  writeTimeline(v('timeline'), result, out);
  const status = result.signal ? 128 + ((constants.signals as Record<string, number>)[result.signal] ?? 0) : (result.status ?? 1);
  if (args.flags.has('json')) {
    out.stdout.write(toJson(result));
    return status;
  }
  // The helper logs with the prefix "spank-prolog" / "spank-epilog".
  for (const line of result.log) {
    if (line.level !== 'error' && line.level !== 'info') continue;
    out.stderr.write(`spank-${mode}: ${line.level === 'error' ? 'error: ' : ''}${line.message}\n`);
  }
  for (const p of result.problems) out.stderr.write(`plugstack: ${p.severity} ${p.code}: ${p.message}\n`);
  return status;
}
