/**
 * Jobs and their steps: what slurmctld hands out. Job ids are unique on
 * the machine (each job gets a directory, created exclusively), step ids
 * unique within a job, so an srun started inside a batch script by another
 * process gets the next step of the same job.
 *
 * A job directory holds the batch script (as slurmstepd's slurm_script), the
 * `srun` that tasks find on their PATH, and the results of the steps run
 * by those inner sruns.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../native/binding.js';
import { privateDir, stateDir, verifyPrivateDir } from './state-dir.js';
import { parseResult } from '../commands/serialize.js';
import type { CommandResult } from '../commands/types.js';
import type { JobDescription } from './job-info.js';
import type { ArrayTask } from './job-array.js';

/** The batch step's id (SLURM_BATCH_SCRIPT). */
export const BATCH_STEP = 0xfffffffb;

function stateRoot(): string {
  return stateDir('jobs');
}

export interface Job {
  id: number;
  dir: string;
  /** The command that created the job (pid and start time): it removes the job when it ends. */
  owner?: { pid: number; start: string };
  nodes: string[];
  /** Each node's index in the cluster's node table (node_inx); absent in jobs from before it was kept. */
  nodeIndex?: number[];
  /** Tasks of the allocation (-n), when given. */
  ntasks?: number;
  /** The CPUs the job has on each of its nodes, where the cluster gives whole nodes (shape.ts); otherwise they follow its tasks. */
  cpusPerNode?: number[];
  /** Its memory (--mem, --mem-per-cpu) and account (-A), as slurmctld keeps them and hands them to the job's environments. */
  memory?: { mb: number; perCpu: boolean };
  account?: string;
  /** When the job's time limit (-t) runs out, in ms since the epoch. */
  endTime?: number;
  /** The job's partition and cluster, as its environment names them. */
  partition: string;
  clusterName: string;
  /** What slurmctld stores about the job: its record for slurm_load_job (job-info.ts). */
  description?: JobDescription;
  /** The environment of the job's slurmds, which its steps' slurmstepds inherit (command-env.ts): the same for the sruns inside. */
  slurmdEnv?: Record<string, string>;
  /** A task of a job array: the array's id and the task's index. */
  array?: ArrayTask;
}

export interface JobRequest {
  nodes: string[];
  nodeIndex?: number[];
  cpusPerNode?: number[];
  memory?: { mb: number; perCpu: boolean };
  account?: string;
  partition: string;
  clusterName: string;
  ntasks?: number;
  timeLimitMs?: number;
  description?: JobDescription;
  slurmdEnv?: Record<string, string>;
  array?: ArrayTask;
}

/** A process's start time (/proc/<pid>/stat field 22): with the pid, it names one process for good. */
function processStart(pid: number): string | undefined {
  if (pid === process.pid) return (ownStart ??= readProcessStart(pid));
  return readProcessStart(pid);
}
/** This process's, read once (it never changes). */
let ownStart: string | undefined;

function readProcessStart(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/**
 * Jobs whose creating command is gone without removing them (killed with
 * SIGKILL, say): nobody can use them any more.
 */
function sweepAbandoned(root: string, names: string[]): void {
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const dir = path.join(root, name);
    try {
      const job = JSON.parse(fs.readFileSync(path.join(dir, 'job.json'), 'utf8')) as Job;
      if (job.owner && processStart(job.owner.pid) !== job.owner.start) fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // being created right now, or not ours to judge
    }
  }
}

/** A new job: the next id whose directory could be created. */
export function createJob(request: JobRequest): Job {
  const { nodes, ntasks, timeLimitMs } = request;
  const root = stateRoot();
  const names = fs.readdirSync(root);
  sweepAbandoned(root, names);
  // Ids only grow, as slurmctld's do: the last one handed out is kept, since
  // finished jobs' directories are removed (a swept one's id stays taken).
  const lastFile = path.join(root, 'last-id');
  const taken = names.map(Number).filter(Number.isInteger);
  const lastId = (): number => {
    try {
      return Number(fs.readFileSync(lastFile, 'utf8')) || 0;
    } catch {
      return 0; // first job on this machine
    }
  };
  let id = Math.max(lastId(), ...taken) + 1;
  for (;;) {
    const dir = path.join(root, String(id));
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
      // Another command may have handed this id out, ended and removed its
      // directory since last-id was read: an id is never handed out twice.
      const handedOut = lastId();
      if (handedOut >= id) {
        fs.rmdirSync(dir);
        id = handedOut + 1;
        continue;
      }
      fs.writeFileSync(lastFile, String(id));
      const job: Job = {
        id,
        dir,
        owner: { pid: process.pid, start: processStart(process.pid) ?? '' },
        nodes,
        ...(request.nodeIndex ? { nodeIndex: request.nodeIndex } : {}),
        ...(request.cpusPerNode ? { cpusPerNode: request.cpusPerNode } : {}),
        ...(request.memory ? { memory: request.memory } : {}),
        ...(request.account !== undefined ? { account: request.account } : {}),
        partition: request.partition,
        clusterName: request.clusterName,
        ...(request.description ? { description: request.description } : {}),
        ...(request.slurmdEnv ? { slurmdEnv: request.slurmdEnv } : {}),
        ...(request.array ? { array: request.array } : {}),
        ...(ntasks !== undefined ? { ntasks } : {}),
        ...(timeLimitMs !== undefined ? { endTime: Date.now() + timeLimitMs } : {}),
      };
      fs.writeFileSync(path.join(dir, 'job.json'), JSON.stringify(job));
      return job;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      id++;
    }
  }
}

/**
 * The job an array task runs as, when it starts (job-array.ts): the first
 * tasks split off the array's record with ids of their own, the last keeps
 * the array's job. Its time limit counts from now.
 */
export function arrayTaskJob(arrayJob: Job, task: ArrayTask, last: boolean, timeLimitMs: number | undefined): Job {
  if (!last)
    return createJob({
      nodes: arrayJob.nodes,
      partition: arrayJob.partition,
      clusterName: arrayJob.clusterName,
      array: task,
      ...(arrayJob.ntasks !== undefined ? { ntasks: arrayJob.ntasks } : {}),
      ...(timeLimitMs !== undefined ? { timeLimitMs } : {}),
      ...(arrayJob.description ? { description: { ...arrayJob.description, submitTime: Math.floor(Date.now() / 1000) } } : {}),
      ...(arrayJob.slurmdEnv ? { slurmdEnv: arrayJob.slurmdEnv } : {}),
    });
  const job: Job = { ...arrayJob, array: task, ...(timeLimitMs !== undefined ? { endTime: Date.now() + timeLimitMs } : {}) };
  fs.writeFileSync(path.join(job.dir, 'job.json'), JSON.stringify(job));
  return job;
}

/** The job a process runs in (SLURM_JOB_ID of its environment), if plugstack created it. */
export function findJob(id: number): Job | undefined {
  const dir = path.join(stateRoot(), String(id));
  try {
    verifyPrivateDir(dir);
    return JSON.parse(fs.readFileSync(path.join(dir, 'job.json'), 'utf8')) as Job;
  } catch {
    return undefined;
  }
}

/** The next step id of a job: 0, 1, 2... */
export function nextStepId(job: Job): number {
  const steps = privateDir(path.join(job.dir, 'steps'));
  for (let id = 0; ; id++) {
    try {
      fs.mkdirSync(path.join(steps, String(id)));
      return id;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** Where an inner srun leaves its result for the command that owns the job. */
export function stepResultFile(job: Job, stepId: number): string {
  return path.join(job.dir, 'steps', String(stepId), 'result.json');
}

/** The results inner sruns left in the job directory, by step id. */
export function innerResults(job: Job): CommandResult[] {
  const steps = path.join(job.dir, 'steps');
  if (!fs.existsSync(steps)) return [];
  return fs
    .readdirSync(steps)
    .map(Number)
    .sort((a, b) => a - b)
    .flatMap((id) => {
      const file = stepResultFile(job, id);
      return fs.existsSync(file) ? [parseResult(fs.readFileSync(file, 'utf8'))] : [];
    });
}

/**
 * A directory with an `srun` that runs `plugstack run` on the same stack:
 * put on the PATH of batch scripts and salloc commands.
 */
export function srunShim(job: Job): string {
  const bin = path.join(job.dir, 'bin');
  const srun = path.join(bin, 'srun');
  privateDir(bin);
  const cli = path.join(packageRoot, 'bin', 'plugstack.cjs');
  // Node runs it directly, with no shell in between: a shell would put PWD
  // into the environment of the srun (and of its step), which a real srun
  // started by salloc or a program does not have.
  const direct = /^[^\s]+$/.test(process.execPath) && process.execPath.length < 120;
  // Inside a job whose container hides plugstack's own files (a private
  // /tmp over a package installed below /tmp), the srun cannot start: it
  // says so in one line instead of Node's module-loader trace.
  const hidden = `plugstack: error: srun inside job ${job.id} cannot reach plugstack at ${path.dirname(cli)}: is it hidden by the job's container (a private /tmp or /dev/shm)?`;
  const text = direct
    ? [
        `#!${process.execPath}`,
        "process.argv.splice(2, 0, 'run');",
        `const hidden = (e) => { if (!e || (e.code !== 'MODULE_NOT_FOUND' && e.code !== 'ERR_MODULE_NOT_FOUND')) throw e; process.stderr.write(${JSON.stringify(hidden + '\n')}); process.exit(1); };`,
        // CommonJS when Node loads this file as such (no package.json of
        // type module above the state directory): the bin is required, and
        // the ES module loader is never started; imported otherwise.
        `if (typeof require === 'function') { try { require(${JSON.stringify(cli)}); } catch (e) { hidden(e); } }`,
        `else import(${JSON.stringify(pathToFileURL(cli).href)}).catch(hidden);`,
        '',
      ].join('\n')
    : `#!/bin/sh\n[ -e '${cli}' ] || { echo ${JSON.stringify(hidden)} >&2; exit 1; }\nexec '${process.execPath}' '${cli}' run "$@"\n`;
  try {
    // Only its owner may change it: the directory is first on the job's PATH.
    fs.writeFileSync(srun, text, { mode: 0o700, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return bin;
}

/**
 * A directory and what is in it, removed entry by entry as readdir's types
 * say (fs.rmSync's recursive walk tries rmdir and lstat on every entry
 * first: about twice the system calls for a job's few files). Throws on
 * anything unexpected (an entry of unknown type, one added meanwhile).
 */
function removeTree(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) removeTree(p);
    else if (entry.isFile() || entry.isSymbolicLink()) fs.unlinkSync(p);
    else throw new Error(`${p}: not a file, link or directory`);
  }
  fs.rmdirSync(dir);
}

/** Removes a job's directory once nothing needs it any more. */
export function removeJob(job: Job): void {
  try {
    removeTree(job.dir);
  } catch {
    // Whatever the quick way left (it raced with another process, or met
    // something else than files): the thorough one.
    fs.rmSync(job.dir, { recursive: true, force: true });
  }
}
