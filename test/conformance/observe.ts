/**
 * What a scenario run shows, normalised so that a real Slurm run and a
 * plugstack run can be compared: job ids become J1, J2... in order of
 * appearance, pids and ports disappear, paths to the batch script keep only
 * their name.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Scenario } from './scenarios.js';

export interface RawRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The trace plugin's log, line by line. */
  log: string[];
  /** Drained nodes after the job, "node reason". */
  drained: string[];
  /** The batch job's output file (sbatch). */
  jobOutput?: string;
}

export interface Observation {
  exitCode: number;
  /** Per process (pid), its callbacks in order, option callbacks with value and remote flag. */
  processes: string[];
  /** Every trace line with its items, pid left out, sorted. */
  callbacks: string[];
  stdout: string[];
  stderr: string[];
  /** The stderr lines matching the scenario's stderrOrder, in their order. */
  stderrOrder?: string[];
  /** Per task: the variables Slurm added to its environment, normalised. */
  taskEnv?: Record<string, Record<string, string>>;
  drained: string[];
  jobOutput?: string[];
  /** The files the scenario's madeFiles names: "name: line", sorted; "name (empty)" for an empty one. */
  madeFiles?: string[];
}

class JobIds {
  private readonly ids = new Map<string, string>();
  name(id: string): string {
    if (!this.ids.has(id)) this.ids.set(id, `J${this.ids.size + 1}`);
    return this.ids.get(id)!;
  }
  /** Replaces job ids where Slurm's output names one. */
  text(s: string): string {
    return s
      .replace(/\b(JOB_ID=)(\d+)/g, (_, k: string, id: string) => k + this.name(id))
      // S_JOB_ARRAY_ID: 0 outside an array's batch step, else a job's id.
      .replace(/\b(ARRAY_JOB=)([1-9]\d*)/g, (_, k: string, id: string) => k + this.name(id))
      .replace(/\b(StepId=)(\d+)/g, (_, k: string, id: string) => k + this.name(id))
      .replace(/\b(job |allocation |batch job )(\d+)\b/g, (_, k: string, id: string) => k + this.name(id))
      .replace(/\bslurm-(\d+)\.out\b/g, (_, id: string) => `slurm-${this.name(id)}.out`)
      .replace(/(slurmstepd: \[)(\d+)\./g, (_, k: string, id: string) => `${k}${this.name(id)}.`)
      // slurmctld's answer to --test-only: the id it took, and when the job would start.
      .replace(/\b(Job )(\d+)( to start at )\S+/g, (_, k: string, id: string, mid: string) => `${k}${this.name(id)}${mid}TIME`)
      // slurmstepd's cancellation line: the job's id, and the time it was cancelled.
      .replace(/(\*\*\* (?:STEP|JOB) )(\d+)(.* CANCELLED AT )\S+/g, (_, k: string, id: string, mid: string) => `${k}${this.name(id)}${mid}TIME`);
  }
}

const ADDED_BY_SLURM = /^(SLURM|SLURMD|SRUN|TMPDIR$|TRACE_SET$|SPANK)/;
const PER_RUN: Record<string, string> = {
  SLURM_TASK_PID: 'PID',
  SLURM_SRUN_COMM_PORT: 'PORT',
  SLURM_STEP_LAUNCHER_PORT: 'PORT',
  SLURM_PRIO_PROCESS: 'PRIO',
  SLURM_JOB_START_TIME: 'TIME',
  SLURM_JOB_END_TIME: 'TIME',
};

export function observe(run: RawRun, scenario: Scenario, cwd: string): Observation {
  const jobs = new JobIds();
  const traceLines = run.log.filter((l) => / pid=\d+$/.test(l));
  // Name the jobs in the order the trace met them.
  for (const l of traceLines) {
    const m = / JOB_ID=(\d+)/.exec(l);
    if (m) jobs.name(m[1]!);
  }
  const byPid = new Map<string, string[]>();
  const callbacks: string[] = [];
  for (const l of traceLines) {
    const pid = / pid=(\d+)$/.exec(l)![1]!;
    const [head] = l.split(' ');
    const ctx = / ctx=(\d)/.exec(l)?.[1] ?? '';
    const name = head!.startsWith('OPTION_CB')
      ? `OPTION_CB(${/optarg=(\S*)/.exec(l)![1]},remote=${/remote=(\d)/.exec(l)![1]})`
      : `${head}@${ctx}`;
    byPid.set(pid, [...(byPid.get(pid) ?? []), name]);
    callbacks.push(
      jobs
        .text(l.replace(/ pid=\d+$/, ''))
        .replace(/ARGV=(\d+):\S*\/slurm_script\b/, 'ARGV=$1:slurm_script'),
    );
  }
  // Each side compiles the trace plugin under its own hashed name.
  const plugin = (l: string) => l.replace(/\S*\/([a-z0-9_]+)-[0-9a-f]{16}\.so\b/g, '$1.so').replace(/\btrace-[0-9a-f]{16}\.so\b/g, 'trace.so');
  const lines = (s: string) =>
    s
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => plugin(jobs.text(l)).split(cwd).join('CWD'))
      .sort();

  const obs: Observation = {
    exitCode: run.exitCode,
    processes: [...byPid.values()].map((seq) => seq.join(' ')).sort(),
    callbacks: callbacks.sort(),
    stdout: scenario.taskEnv ? [] : lines(run.stdout),
    stderr: lines(run.stderr),
    drained: run.drained,
  };
  if (run.jobOutput !== undefined) obs.jobOutput = lines(run.jobOutput);
  if (scenario.madeFiles) obs.madeFiles = madeFiles(cwd, scenario.madeFiles, jobs);
  if (scenario.stderrOrder) {
    const order = new RegExp(scenario.stderrOrder);
    obs.stderrOrder = run.stderr
      .split('\n')
      .filter((l) => order.test(l))
      .map((l) => plugin(jobs.text(l)));
  }
  if (scenario.taskEnv) {
    const env: Record<string, Record<string, string>> = {};
    for (const line of run.stdout.split('\n')) {
      const m = /^(\d+): ([^=]+)=(.*)$/.exec(line);
      if (!m || !ADDED_BY_SLURM.test(m[2]!)) continue;
      const [, task, name, value] = m as unknown as [string, string, string, string];
      let v = PER_RUN[name] ?? value;
      // cluster:controller host:controller port:protocol version:flags
      if (name === 'SLURM_WORKING_CLUSTER') v = value.replace(/^([^:]*:[^:]*:)\d+:/, '$1PORT:');
      if (name === 'SLURM_JOB_ID' || name === 'SLURM_JOBID') v = jobs.name(value);
      env[task] = { ...(env[task] ?? {}), [name]: v.split(cwd).join('CWD') };
    }
    obs.taskEnv = env;
  }
  return obs;
}

/** Every file below cwd whose relative path matches, with its lines (job ids normalised, in a name after "job" or "slurm-"), sorted. */
function madeFiles(cwd: string, pattern: RegExp, jobs: JobIds): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (pattern.test(path.relative(cwd, full))) {
        // A job id in the name ("job%j", an array's "slurm-%A_%a"); other numbers (%t, %n, %a) stay.
        const name = path.relative(cwd, full).replace(/\b(job|slurm-)(\d+)/g, (_, k: string, id: string) => `${k}${jobs.name(id)}`);
        const text = fs.readFileSync(full, 'utf8');
        if (!text) out.push(`${name} (empty)`);
        for (const line of text.split('\n').filter((l) => l !== '')) out.push(`${name}: ${jobs.text(line)}`);
      }
    }
  };
  walk(cwd);
  return out.sort();
}
