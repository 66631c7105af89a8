/**
 * salloc (spank-facts §2d): the allocator context in a client process, the
 * allocation, the user's command run on this machine with the job's
 * variables (an srun in it joins the job), then the allocation is
 * relinquished and salloc's exit callbacks run.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { readBuiltins } from './builtins.js';
import { beginCommand } from './command-run.js';
import { CommandConsole } from './console.js';
import { allocationEnv, envRecord, overlayEnv, plugstackEnv } from './job-env.js';
import { drainedBy, runEpilogs } from './job-scripts.js';
import { createJob, innerResults, removeJob, srunShim } from './jobs.js';
import type { CommandStack } from './srun.js';
import type { CommandResult, WordCommandOptions } from './types.js';

/** salloc's exit status for its command (salloc.c): a user's kill signal counts as success. */
export function sallocExitCode(status: number): number {
  const sig = status & 0x7f;
  if (sig === 0) return (status >> 8) & 0xff;
  const { SIGHUP, SIGINT, SIGQUIT, SIGKILL } = os.constants.signals;
  return [SIGHUP, SIGINT, SIGQUIT, SIGKILL].includes(sig) ? 0 : 1;
}

function runCommand(
  argv: string[],
  env: string[],
  cwd: string,
  console: CommandConsole,
  timeoutMs: number,
): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env: envRecord(env), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child.stdout!.on('data', (c: Buffer) => console.stdout(c));
    child.stderr!.on('data', (c: Buffer) => console.stderr(c));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone already
      }
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      console.log('error', `${argv[0]}: ${error.message}`);
      resolve(127 << 8);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group is gone
      }
      resolve(signal ? os.constants.signals[signal] : (code ?? 0) << 8);
    });
  });
}

export async function runSalloc(stack: CommandStack, options: WordCommandOptions): Promise<CommandResult> {
  const { env, cwd, console, client, result, finish } = beginCommand(stack, 'salloc', options);

  const ready = await client.ready;
  if (ready.t === 'commandExit') return finish(ready.status);

  const b = readBuiltins(ready.builtins);
  console.setVerbosity(b.verbose, b.quiet);
  const nodes = b.nodes ?? 1;
  const names = Array.from({ length: nodes }, (_, i) => `node${i}`);
  const job = createJob(names, b.ntasks);
  console.log('info', `Granted job allocation ${job.id}`);

  const command = ready.positional.length ? ready.positional : [env.SHELL || '/bin/sh'];
  const ntasks = b.ntasks;
  const perNode = names.map((_, i) => (ntasks === undefined ? 1 : Math.floor(ntasks / nodes) + (i < ntasks % nodes ? 1 : 0)));
  let jobEnv = overlayEnv(
    ready.environ,
    allocationEnv({ job, jobName: b.jobName ?? command[0]!.split('/').pop()!, submitDir: cwd, tasksPerNode: perNode }),
  );
  if (ntasks !== undefined) jobEnv = overlayEnv(jobEnv, { SLURM_NTASKS: String(ntasks), SLURM_NPROCS: String(ntasks) });
  jobEnv = overlayEnv(jobEnv, plugstackEnv(stack, srunShim(job), envRecord(jobEnv).PATH));

  const status = await runCommand(command, jobEnv, b.chdir ?? cwd, console, options.timeoutMs ?? 5 * 60_000);
  console.log('info', `Relinquishing job allocation ${job.id}`);
  const exitCode = sallocExitCode(status);
  client.exit(exitCode);
  await finish(exitCode);

  // The job ends with salloc: the prologs the sruns inside ran, then the
  // epilog on every node, after salloc's exit callbacks.
  for (const inner of innerResults(job)) {
    result.steps.push(...inner.steps);
    result.jobScripts.push(...(inner.jobScripts ?? []));
  }
  const context = { uid: process.getuid!(), gid: process.getgid!(), workDir: b.chdir ?? cwd, jobControlEnv: client.record.jobControlEnv };
  result.jobScripts.push(...(await runEpilogs(stack, job, status, context)));
  const prologFailed = result.jobScripts.some((r) => r.mode === 'prolog' && !r.ok);
  result.job = {
    jobId: job.id,
    state: status === 0 && !prologFailed ? 'COMPLETED' : 'FAILED',
    exitCode: status,
    nodes: names,
    drained: drainedBy(result.jobScripts),
    ...(prologFailed ? { reason: 'Prolog failure' } : {}),
  };
  removeJob(job);
  return result;
}
