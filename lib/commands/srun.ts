/**
 * srun (spank-facts §2d; real-slurm-22.05.md §2): the local context in a
 * client process, then the step on the remote side, then srun's exit
 * callbacks. An srun run inside a job (SLURM_JOB_ID of a plugstack job in
 * its environment, as in a batch script or under salloc) joins that job as
 * its next step.
 */
import fs from 'node:fs';
import { hostStringToBytes } from '../host/bytes.js';
import { launchStep } from '../step/launch.js';
import type { StepResult } from '../step/types.js';
import { readBuiltins } from './builtins.js';
import type { StackRef } from './client.js';
import { beginCommand } from './command-run.js';
import { signalText, taskRanges } from './console.js';
import { allocationEnv, commandProcessEnv, envRecord, exportedEnv, overlayEnv } from './job-env.js';
import { drainedBy, runEpilogs, runPrologs, type JobScriptContext } from './job-scripts.js';
import { createJob, findJob, nextStepId, removeJob, stepResultFile, type Job } from './jobs.js';
import { serializeResult } from './serialize.js';
import type { CommandResult, JobRecord, WordCommandOptions } from './types.js';

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

/** The errno srun is left with when a node's prolog failed the launch. */
const EAGAIN = 11;

/** Slurm's texts for the launch errors a node's slurmstepd can answer here. */
const LAUNCH_ERRORS: Record<number, string> = {
  1011: 'Plugin initialization failed', // SLURM_PLUGIN_NAME_INVALID: init or init_post_opt failed
  4020: 'Slurmd could not execve job', // ESLURMD_EXECVE_FAILED: user_init, a fork or task_post_fork failed
};

export interface CommandStack extends StackRef {
  hostEnv?: NodeJS.ProcessEnv;
}

/** The job an srun joins: --jobid, or SLURM_JOB_ID of its environment. */
function joinedJob(jobIdOption: number | undefined, env: Record<string, string>): Job | undefined {
  const id = jobIdOption ?? (env.SLURM_JOB_ID ? Number(env.SLURM_JOB_ID) : undefined);
  return id === undefined || !Number.isInteger(id) ? undefined : findJob(id);
}

/**
 * srun's exit status from the task statuses: the highest exit code, unless
 * a task was killed, then the highest signal (launch.c); WEXITSTATUS or
 * 128 + signal of that (fini_srun).
 */
export function srunExitCode(step: StepResult): { raw: number; exitCode: number } {
  let raw = 0;
  for (const t of step.tasks) {
    if (t.status === null) continue;
    const sig = t.status & 0x7f;
    const rawSig = raw & 0x7f;
    if (sig === 0) {
      if (rawSig === 0 && ((t.status >> 8) & 0xff) > ((raw >> 8) & 0xff)) raw = t.status;
    } else if (rawSig === 0 || sig > rawSig) {
      raw = t.status;
    }
  }
  // A launch that failed on a node does not change it (seen on a real 22.05).
  const exitCode = (raw & 0x7f) === 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f);
  return { raw, exitCode };
}

export async function runSrun(stack: CommandStack, options: WordCommandOptions): Promise<CommandResult> {
  const { env, cwd, console, client, result, finish: done } = beginCommand(stack, 'srun', options);

  const ready = await client.ready;
  if (ready.t === 'commandExit') return done(ready.status);

  const b = readBuiltins(ready.builtins);
  console.setVerbosity(b.verbose, b.quiet);
  const existing = joinedJob(b.jobId, env);
  const nodes = b.nodes ?? (existing && b.ntasks === undefined ? existing.nodes.length : 1);
  const insideNtasks = existing && env.SLURM_NTASKS ? Number(env.SLURM_NTASKS) : undefined;
  const ntasks = b.ntasks ?? insideNtasks ?? nodes;
  const names = existing ? existing.nodes.slice(0, nodes) : Array.from({ length: nodes }, (_, i) => `node${i}`);
  const job = existing ?? createJob(names, b.ntasks);
  client.allocated();
  const stepId = nextStepId(job);
  const uid = process.getuid!();
  const gid = process.getgid!();

  const scriptContext: JobScriptContext = {
    uid,
    gid,
    workDir: b.chdir ?? cwd,
    jobControlEnv: client.record.jobControlEnv,
    ...(b.ntasks !== undefined ? { ntasks: b.ntasks } : {}),
  };
  // The end of the job srun made (epilogs, the job's record) or, inside
  // someone else's job, the step's result left for the job's owner.
  const endJob = async (job: Job, state: JobRecord['state'], exitCode: number, reason?: string): Promise<CommandResult> => {
    if (existing) {
      fs.writeFileSync(stepResultFile(job, stepId), serializeResult(result));
      return result;
    }
    result.jobScripts.push(...(await runEpilogs(stack, job, exitCode, scriptContext)));
    result.job = { jobId: job.id, state, exitCode, nodes: names, drained: drainedBy(result.jobScripts), ...(reason ? { reason } : {}) };
    removeJob(job);
    return result;
  };

  const lui = await client.localUserInit({ uid, gid, jobId: job.id, stepId, nodes: names.length, tasks: ntasks, argv: ready.positional });
  if (lui.failed) {
    await done(1);
    // 24.11 records the job failed; 22.05 let it complete (test7.24).
    return endJob(job, stack.slurmVersion.startsWith('22.') ? 'COMPLETED' : 'FAILED', 1);
  }

  // slurmd runs the job prolog on each node before the job's first step
  // there; where it fails, the launch fails and the node is drained.
  const prologs = await runPrologs(stack, job, names, scriptContext);
  result.jobScripts.push(...prologs);
  const failedPrologs = prologs.filter((p) => !p.ok);
  if (failedPrologs.length) {
    // What a real 22.05 srun printed: the launch error per node, then the
    // launch's errno (EAGAIN), which becomes srun's global rc; fini_srun reads
    // it as a wait status ("signal" 11): exit status 139.
    for (const p of failedPrologs)
      console.log('error', `Task launch for StepId=${job.id}.${stepId} failed on node ${p.node}: Job prolog failed`);
    console.log('error', 'Application launch failed: Resource temporarily unavailable');
    console.log('info', 'Job step aborted');
    const rc = EAGAIN;
    const code = (rc & 0x7f) === 0 ? (rc >> 8) & 0xff : 128 + (rc & 0x7f);
    client.exit(code);
    await done(code);
    return endJob(job, 'FAILED', rc, 'Prolog failure');
  }

  // srun's own environment after init_post_opt (with the option variables),
  // plus the allocation's variables when srun made it.
  let launchEnv = exportedEnv(ready.environ, b.export);
  if (!existing) {
    const perNode = names.map((_, i) => Math.floor(ntasks / names.length) + (i < ntasks % names.length ? 1 : 0));
    launchEnv = overlayEnv(launchEnv, allocationEnv({ job, jobName: b.jobName ?? ready.positional[0]!.split('/').pop()!, submitDir: cwd, tasksPerNode: perNode }));
  }
  launchEnv = overlayEnv(
    launchEnv,
    commandProcessEnv('srun', envRecord(launchEnv), { slurmVersion: stack.slurmVersion, overcommit: b.overcommit, verbose: b.verbose, quiet: b.quiet }),
  );
  if (b.label) launchEnv = overlayEnv(launchEnv, { SLURM_LABELIO: '1' });

  const io = new Set<number>();
  const step = await launchStep(
    { conf: stack.conf, slurmVersion: stack.slurmVersion, pluginDirs: stack.pluginDirs, hostEnv: stack.hostEnv },
    {
      argv: ready.positional,
      env: launchEnv,
      launcherEnv: true,
      nodes: names.length,
      ntasks,
      nodeNames: names,
      jobId: job.id,
      stepId,
      cwd: b.chdir ?? cwd,
      spankOptions: ready.options.map((o) => ({ plugin: o.plugin, name: o.name, value: o.value })),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      ...(b.cpusPerTask !== undefined ? { cpusPerTask: b.cpusPerTask } : {}),
      ...(b.jobName !== undefined ? { jobName: b.jobName } : {}),
      onEvent: (node, e) => {
        if (e.t === 'io') io.add(node.nodeId);
        else if (e.t === 'io_end') io.delete(node.nodeId);
        else if (e.t === 'output') console.taskOutput(node.gtids[e.task]!, e.stream, hostStringToBytes(e.data), b.label);
        else if (e.t === 'log' && io.has(node.nodeId)) console.stepdLog(e.level, e.msg, e.bare === true);
      },
    },
  );
  result.steps.push(step);

  // srun's lines about tasks that did not end well, per node and status.
  for (const n of step.nodes) {
    if (n.launchRc !== 0) {
      for (const t of step.tasks.filter((x) => x.node === n.node))
        console.log('error', `task ${t.task} launch failed: ${LAUNCH_ERRORS[n.launchRc] ?? `Unknown error ${n.launchRc}`}`);
    }
  }
  const groups = new Map<string, number[]>();
  for (const t of step.tasks) {
    if (t.status === null || t.status === 0) continue;
    const key = `${t.node}\u0000${t.status}`;
    groups.set(key, [...(groups.get(key) ?? []), t.task]);
  }
  for (const [key, tasks] of groups) {
    const [node, statusText] = key.split('\u0000');
    const status = Number(statusText);
    const host = step.nodes[Number(node)]!.name;
    const word = tasks.length > 1 ? 'tasks' : 'task';
    const what = (status & 0x7f) === 0 ? `Exited with exit code ${(status >> 8) & 0xff}` : signalText(step.tasks.find((t) => t.status === status)!.signal!);
    console.log('error', `${host}: ${word} ${taskRanges(tasks)}: ${what}`);
  }

  // A task ended by SIGTERM or SIGKILL makes srun say so once all are done.
  if (step.tasks.some((t) => t.signal === 'SIGTERM' || t.signal === 'SIGKILL'))
    console.log('info', `Force Terminated StepId=${job.id}.${stepId}`);

  const { raw, exitCode } = srunExitCode(step);
  client.exit(exitCode);
  await done(exitCode);
  return endJob(job, raw === 0 ? 'COMPLETED' : 'FAILED', raw);
}
