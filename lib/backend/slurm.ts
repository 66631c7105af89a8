/**
 * The real-Slurm backend: srun, sbatch and salloc run as the installed
 * commands against a real cluster (SLURM_CONF), and the result has the
 * shape of plugstack's own, filled as far as the real system shows it:
 * exit status, output, the job's state and exit code (scontrol), the
 * batch output file, and the nodes left drained. What happens inside
 * plugins (calls, items, environments) is not visible from outside; put
 * a tracing plugin in the stack to see it.
 */
import { childProcess } from '../lazy-modules.js';
import fs from 'node:fs';
import path from 'node:path';
import type { ArrayTaskRecord, CommandName, CommandResult, JobRecord, WordCommandOptions } from '../commands/types.js';
import { arrayJobRecord } from '../cluster/job-array.js';

export interface SlurmInstallation {
  /** slurm.conf of the cluster (SLURM_CONF). Default: the commands' own default. */
  conf?: string;
  /** Where srun, sbatch, salloc, squeue, scontrol and sinfo are. Default: PATH. */
  binDir?: string;
  /** How long to wait for a batch job and for its nodes to finish the epilog. Default: 10 minutes. */
  jobTimeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;
const DEFAULT_JOB_TIMEOUT_MS = 10 * 60_000;
const POLL_MS = 100;

function tool(slurm: SlurmInstallation, name: string): string {
  return slurm.binDir ? path.join(slurm.binDir, name) : name;
}

function envOf(options: WordCommandOptions, slurm: SlurmInstallation): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env) };
  if (slurm.conf) env.SLURM_CONF = slurm.conf;
  return env;
}

function query(slurm: SlurmInstallation, env: NodeJS.ProcessEnv, name: string, args: string[]): string {
  const r = childProcess().spawnSync(tool(slurm, name), args, { encoding: 'utf8', env });
  return r.status === 0 ? r.stdout : '';
}

async function until(test: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return true;
}

/** scontrol show job -o, as NAME=value pairs: one record per line (a job array's: one per task). */
function jobRecords(slurm: SlurmInstallation, env: NodeJS.ProcessEnv, id: number): Record<string, string>[] {
  const text = query(slurm, env, 'scontrol', ['show', 'job', '-o', String(id)]);
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) =>
      Object.fromEntries(
        line
          .trim()
          .split(/\s+/)
          .filter((kv) => kv.includes('='))
          .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
      ),
    );
}

function jobFields(slurm: SlurmInstallation, env: NodeJS.ProcessEnv, id: number): Record<string, string> {
  return jobRecords(slurm, env, id)[0] ?? {};
}

/** The job's nodes once they are done with it (epilog included), and those left drained. */
async function drainedNodes(slurm: SlurmInstallation, env: NodeJS.ProcessEnv, nodeList: string, ms: number) {
  const nodes = () =>
    query(slurm, env, 'sinfo', ['-h', '-N', '-n', nodeList, '-o', '%N|%T|%E'])
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [node = '', state = '', reason = ''] = l.split('|');
        return { node, state, reason };
      });
  await until(() => nodes().every((n) => !/comp|alloc|mix/.test(n.state)), ms);
  return nodes()
    .filter((n) => /drain/.test(n.state))
    .map((n) => ({ node: n.node, reason: n.reason }));
}

export async function runOnSlurm(command: CommandName, options: WordCommandOptions, slurm: SlurmInstallation = {}): Promise<CommandResult> {
  const env = envOf(options, slurm);
  const cwd = options.cwd ?? process.cwd();
  const jobTimeout = slurm.jobTimeoutMs ?? DEFAULT_JOB_TIMEOUT_MS;
  // The command's standard input (sbatch's script when none is named).
  const input = options.script ?? options.stdin;
  const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    const child = childProcess().spawn(tool(slurm, command), options.args, {
      env,
      cwd,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      detached: true,
    });
    if (input !== undefined && child.stdin) {
      child.stdin.on('error', () => {});
      if (typeof input === 'string' || Buffer.isBuffer(input)) child.stdin.end(input);
      else input.pipe(child.stdin);
    }
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString();
      options.onStdout?.(c);
    });
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
      options.onStderr?.(c);
    });
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone already
      }
    }, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // As a shell reports it.
      const signals: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
      resolve({ code: code ?? 128 + (signal ? (signals[signal] ?? 0) : 0), stdout, stderr });
    });
  });

  const context = command === 'srun' ? 'local' : 'allocator';
  const result: CommandResult = {
    command,
    args: options.args,
    exitCode: run.code,
    stdout: run.stdout,
    stderr: run.stderr,
    client: { command, context, calls: [], optionCallbacks: [], items: [], env: [], log: [], problems: [], builtins: [], options: [], jobControlEnv: {}, cliFilter: [], syslog: [] },
    steps: [],
    jobScripts: [],
  };

  // sbatch says "Submitted batch job N", or with --parsable "N" (";cluster" after it with -M).
  const submitted = command === 'sbatch' ? /^(?:Submitted batch job (\d+)|(\d+)(?:;\S*)?)$/m.exec(run.stdout) : /(?:Granted job allocation|jobid) (\d+)/.exec(run.stderr);
  const id = Number(submitted?.[1] ?? submitted?.[2]);
  if (!Number.isInteger(id) || id <= 0) return result;
  let fields = jobFields(slurm, env, id);
  const stdoutFile = fields.StdOut;
  // A batch job whose launch failed is requeued (24.11: pending again, with
  // a begin time, on a drained node): it has ended as far as this run goes.
  const requeued = (f: Record<string, string>) => f.JobState === 'PENDING' && Number(f.Restarts ?? 0) > 0;
  if (command === 'sbatch') {
    await until(() => query(slurm, env, 'squeue', ['-h', '-j', String(id)]).trim() === '' || requeued(jobFields(slurm, env, id)), jobTimeout);
    fields = jobFields(slurm, env, id);
  }
  const record = async (f: Record<string, string>, jobId: number): Promise<JobRecord> => {
    const [code = '0', signal = '0'] = (f.ExitCode ?? '0:0').split(':');
    const nodeList = f.NodeList && f.NodeList !== '(null)' ? f.NodeList : '';
    const nodes = nodeList ? query(slurm, env, 'scontrol', ['show', 'hostnames', nodeList]).trim().split('\n').filter(Boolean) : [];
    const job: JobRecord = {
      jobId,
      state: f.JobState === 'COMPLETED' ? 'COMPLETED' : 'FAILED',
      exitCode: (Number(code) << 8) | Number(signal),
      nodes,
      drained: nodeList ? await drainedNodes(slurm, env, nodeList, jobTimeout) : [],
    };
    if (requeued(f)) {
      job.state = 'FAILED';
      job.reason = 'launch failed requeued';
    } else if (f.JobState && f.JobState !== 'COMPLETED' && f.JobState !== 'FAILED') job.reason = f.JobState;
    return job;
  };
  const fileOf = (file: string | undefined) => (file && fs.existsSync(file) ? { file, text: fs.readFileSync(file, 'utf8') } : undefined);
  // A job array: a record per task, each with its own job id and output file.
  const taskOf = (f: Record<string, string>) => (f.ArrayTaskId !== undefined && /^\d+$/.test(f.ArrayTaskId) ? Number(f.ArrayTaskId) : undefined);
  if (command === 'sbatch' && taskOf(fields) !== undefined) {
    const tasks: ArrayTaskRecord[] = [];
    for (const f of jobRecords(slurm, env, id).sort((a, b) => taskOf(a)! - taskOf(b)!)) {
      const output = fileOf(f.StdOut);
      tasks.push({ ...(await record(f, Number(f.JobId))), arrayJobId: id, arrayTaskId: taskOf(f)!, ...(output ? { output } : {}) });
    }
    result.arrayTasks = tasks;
    result.job = arrayJobRecord(id, tasks);
    return result;
  }
  result.job = await record(fields, id);
  const output = command === 'sbatch' ? fileOf(stdoutFile) : undefined;
  if (output) result.output = output;
  return result;
}
