/**
 * The task prolog and epilog a step runs (native/core/step/task_scripts.h):
 * slurm.conf's TaskProlog and TaskEpilog, and srun's --task-prolog and
 * --task-epilog, as slurmd hands them to each slurmstepd (paths as written:
 * the prolog must be absolute, as Slurm's run_command wants it).
 */
import fs from 'node:fs';
import type { Problem } from '../check/types.js';
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

/**
 * What `check` says of them: a TaskProlog that is not an absolute path, or
 * that cannot be read and executed here, fails every task before exec (an
 * error); a TaskEpilog of that kind is only logged by slurmstepd (a
 * warning). Access is checked as the user running check.
 */
export function taskScriptProblems(conf: SlurmConf): Problem[] {
  const out: Problem[] = [];
  const look = (key: 'TaskProlog' | 'TaskEpilog') => {
    const value = conf.keys[key];
    if (!value) return;
    let why: string | undefined;
    if (!value.startsWith('/')) why = 'is not a fully qualified path';
    else {
      try {
        fs.accessSync(value, fs.constants.R_OK | fs.constants.X_OK);
      } catch (e) {
        why = `can not be executed (${(e as NodeJS.ErrnoException).code ?? 'error'})`;
      }
    }
    if (!why) return;
    const prolog = key === 'TaskProlog';
    const p: Problem = {
      severity: prolog ? 'error' : 'warning',
      code: prolog ? 'TASK_PROLOG_UNUSABLE' : 'TASK_EPILOG_UNUSABLE',
      message: prolog
        ? `${key}=${value} ${why}: every task would end before exec with status 1 ('TaskProlog failed status=1')`
        : `${key}=${value} ${why}: slurmstepd would log its failure after each task ('--task-epilog failed status=...')`,
      context: 'remote',
    };
    const where = conf.keyLines[key];
    if (where) {
      p.file = where.file;
      p.line = where.line;
    }
    out.push(p);
  };
  look('TaskProlog');
  look('TaskEpilog');
  return out;
}
