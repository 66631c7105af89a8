/**
 * The task prolog and epilog a step runs (native/core/step/task_scripts.h):
 * slurm.conf's TaskProlog and TaskEpilog, and srun's --task-prolog and
 * --task-epilog, as slurmd hands them to each slurmstepd (paths as written:
 * the prolog must be absolute, as Slurm's run_command wants it).
 */
import type { SlurmConf } from '../config/slurm-conf.js';

export interface TaskScripts {
  /** slurm.conf TaskProlog. */
  prolog?: string;
  /** slurm.conf TaskEpilog. */
  epilog?: string;
}

/** What a slurm.conf names; undefined when it names neither. */
export function taskScripts(conf: SlurmConf | undefined): TaskScripts | undefined {
  const prolog = conf?.keys.TaskProlog;
  const epilog = conf?.keys.TaskEpilog;
  if (!prolog && !epilog) return undefined;
  return { ...(prolog ? { prolog } : {}), ...(epilog ? { epilog } : {}) };
}

/** The launch request's fields for them. */
export function taskScriptFields(
  site: TaskScripts | undefined,
  user: { taskProlog?: string | undefined; taskEpilog?: string | undefined },
): Record<string, string> {
  const out: Record<string, string> = {};
  if (site?.prolog) out.taskProlog = site.prolog;
  if (site?.epilog) out.taskEpilog = site.epilog;
  if (user.taskProlog) out.userTaskProlog = user.taskProlog;
  if (user.taskEpilog) out.userTaskEpilog = user.taskEpilog;
  return out;
}
