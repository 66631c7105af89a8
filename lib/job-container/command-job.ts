/**
 * The job_container life of a command's job (srun's own, sbatch's,
 * salloc's), and of the job an srun inside it joins: the command that
 * made the job owns its JobContainerJob (job.ts) from the job's start to
 * its end; an srun inside a batch script or an allocation sees the same job
 * (its namespace, its extern steps) and only launches steps in it.
 */
import type { CommandResult } from '../commands/types.js';
import type { CommandStack } from '../commands/client.js';
import type { Job } from '../cluster/jobs.js';
import type { StepResult } from '../step/types.js';
import { JobContainerJob, slurmdsStarted } from './job.js';
import { jobContainerSettings } from './settings.js';

export function commandJobContainer(
  stack: CommandStack,
  job: Job,
  who: { uid: number; gid: number; cwd: string; env: Record<string, string> },
  inside: boolean,
): JobContainerJob | undefined {
  const settings = jobContainerSettings(stack.slurmConf);
  if (!settings) return undefined;
  const jcStack = { conf: stack.conf, slurmVersion: stack.slurmVersion, pluginDirs: stack.pluginDirs, hostEnv: stack.hostEnv };
  const nodes = job.nodes.map((name, nodeId) => ({ nodeId, name }));
  const info = { jobId: job.id, uid: who.uid, gid: who.gid, cwd: who.cwd, env: Object.entries(who.env).map(([k, v]) => `${k}=${v}`), dir: job.dir };
  return inside ? JobContainerJob.inside(jcStack, settings, nodes, info) : new JobContainerJob(jcStack, settings, nodes, info, slurmdsStarted(stack.cluster));
}

/** The stack a job's prolog and epilog helpers run with: in the job's run namespace. */
export function inJobNamespace<S extends { hostEnv?: NodeJS.ProcessEnv | undefined }>(stack: S, jc: JobContainerJob | undefined): S {
  return jc && Object.keys(jc.env()).length ? { ...stack, hostEnv: { ...(stack.hostEnv ?? process.env), ...jc.env() } } : stack;
}

/**
 * The command's record: the job's start, every step's calls in order, the
 * job's end; the job's lines and problems go with its first step (its end's
 * with its last), or with the command itself when no step ran.
 */
export function foldJobContainer(result: CommandResult, jc: JobContainerJob): void {
  const steps = result.steps.filter((s) => s.jobContainer);
  result.jobContainer = {
    types: jc.out.record.types,
    calls: [...jc.start.calls, ...steps.flatMap((s) => s.jobContainer!.calls), ...jc.end.calls],
  };
  const put = (step: StepResult | undefined, part: typeof jc.start) => {
    if (step) {
      step.log.push(...(part.log as StepResult['log']));
      step.problems.push(...(part.problems as StepResult['problems']));
    } else {
      result.client.log.push(...part.log.map(({ node: _, ...l }) => l));
      result.client.problems.push(...part.problems.map(({ node: _, ...p }) => p));
    }
  };
  put(result.steps[0], jc.start);
  put(result.steps.at(-1), jc.end);
}
