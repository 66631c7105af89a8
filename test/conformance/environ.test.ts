/**
 * Whole environments against the real Slurms (issue 14): the environ
 * fixture records the whole environ of its process at every callback (the
 * client's in local and allocator context, slurmstepd's and each task's in
 * remote context, with S_JOB_ENV; slurmd's prolog and epilog helper in
 * job_script context), for srun, sbatch, salloc and an srun inside each;
 * every variable of every process at every callback must be the same on
 * the real cluster and on plugstack in that release's mode,
 * once the values that must differ (job ids, pids, ports, times, the
 * working directory) are normalised, and in the same order (an environment
 * is a list: the caller's variables in the caller's order, then Slurm's in
 * the order Slurm wrote them, which a plugin walking environ or S_JOB_ENV
 * and a task running `env` see). Deliberate differences are in
 * allowlist.json, with their reasons.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/plugins.js';
import { applyAllowlist, type AllowEntry } from './allowlist.js';
import type { Observation } from './observe.js';
import { releases, runPlugstack, runReal } from './run.js';
import type { Scenario } from './scenarios.js';

const allowlist = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'allowlist.json'), 'utf8')) as AllowEntry[];

const environ = (args: string[] = []): Scenario['stack'] => [{ keyword: 'required', args }];
const CALLER = { CALLER_MARK: 'caller', SPANK_TRACE: 'leak' };

export const environScenarios: Scenario[] = [
  { name: 'environ: srun -n 2 true', fixture: 'environ.c', stack: environ(), command: 'srun', args: ['-n', '2', 'true'], env: CALLER },
  {
    name: 'environ: a variable set in local_user_init reaches the tasks',
    fixture: 'environ.c',
    stack: environ(['set=MY_TMP=/scratch/job@local_user_init']),
    command: 'srun',
    args: ['-n', '1', 'sh', '-c', 'echo MY_TMP=$MY_TMP'],
    env: CALLER,
  },
  { name: "environ: sbatch --wrap 'srun -n 1 true'", fixture: 'environ.c', stack: environ(), command: 'sbatch', args: ['--wrap', 'srun -n 1 true'], env: CALLER },
  { name: 'environ: salloc -n 1 srun -n 1 true', fixture: 'environ.c', stack: environ(), command: 'salloc', args: ['-n', '1', 'srun', '-n', '1', 'true'], env: CALLER },
  // Options that change what the commands write: a name, a time limit, labels, task counts.
  { name: 'environ: srun -t 5 -l -J named true', fixture: 'environ.c', stack: environ(), command: 'srun', args: ['-t', '5', '-l', '-J', 'named', 'true'], env: CALLER },
  {
    name: "environ: sbatch -n 2 -t 5 -J named --wrap 'srun -n 2 true'",
    fixture: 'environ.c',
    stack: environ(),
    command: 'sbatch',
    args: ['-n', '2', '-t', '5', '-J', 'named', '--wrap', 'srun -n 2 true'],
    env: CALLER,
  },
  { name: 'environ: salloc -n 2 -J named srun -n 2 -l true', fixture: 'environ.c', stack: environ(), command: 'salloc', args: ['-n', '2', '-J', 'named', 'srun', '-n', '2', '-l', 'true'], env: CALLER },
  { name: 'environ: sbatch job.sh one two', fixture: 'environ.c', stack: environ(), command: 'sbatch', args: ['job.sh', 'one', 'two'], env: CALLER },
  { name: 'environ: sbatch with its script on standard input', fixture: 'environ.c', stack: environ(), command: 'sbatch', args: [], script: '#!/bin/sh\nsrun -n 1 true\n', env: CALLER },
  { name: 'environ: srun -c 2 -O -n 1 true', fixture: 'environ.c', stack: environ(), command: 'srun', args: ['-c', '2', '-O', '-n', '1', 'true'], env: CALLER },
  { name: 'environ: srun --export=NONE -n 1 /bin/true', fixture: 'environ.c', stack: environ(), command: 'srun', args: ['--export=NONE', '-n', '1', '/bin/true'], env: CALLER },
  { name: 'environ: srun --mem=0 -n 1 true', fixture: 'environ.c', stack: environ(), command: 'srun', args: ['--mem=0', '-n', '1', 'true'], env: CALLER },
  { name: "environ: sbatch -c 2 --ntasks-per-node=1 --wrap 'srun true'", fixture: 'environ.c', stack: environ(), command: 'sbatch', args: ['-c', '2', '--ntasks-per-node=1', '--wrap', 'srun true'], env: CALLER },
  // A batch job's files reach its prolog and epilog through the job's credential.
  { name: "environ: sbatch -o job.out -e job.err --wrap 'srun -n 1 true'", fixture: 'environ.c', stack: environ(), command: 'sbatch', args: ['-o', 'job.out', '-e', 'job.err', '--wrap', 'srun -n 1 true'], env: CALLER },
  { name: 'environ: salloc -c 2 srun -n 1 -c 1 true', fixture: 'environ.c', stack: environ(), command: 'salloc', args: ['-c', '2', 'srun', '-n', '1', '-c', '1', 'true'], env: CALLER },
  // sbatch --open-mode: SLURM_OPEN_MODE for the job's sruns (22.05: sbatch's own; 24.11: slurmctld's).
  { name: "environ: sbatch --open-mode=append --wrap 'srun -n 1 true'", fixture: 'environ.c', stack: environ(), command: 'sbatch', args: ['--open-mode=append', '--wrap', 'srun -n 1 true'], env: CALLER },
  // sbatch -i: the script reads the file, and the credential names it.
  { name: "environ: sbatch -i in.txt --wrap 'read line; srun -n 1 true'", fixture: 'environ.c', stack: environ(), command: 'sbatch', args: ['-i', 'in.txt', '--wrap', 'read line; srun -n 1 true'], env: CALLER },
  // An --export other than ALL, or --get-user-env: slurmd loads the user's login environment under the job's.
  { name: "environ: sbatch --export=NONE --wrap 'srun -n 1 /bin/true'", fixture: 'environ.c', stack: environ(), command: 'sbatch', args: ['--export=NONE', '--wrap', 'srun -n 1 /bin/true'], env: CALLER },
  { name: "environ: sbatch --export=ALL,FOO=bar --wrap 'srun -n 1 true'", fixture: 'environ.c', stack: environ(), command: 'sbatch', args: ['--export=ALL,FOO=bar', '--wrap', 'srun -n 1 true'], env: CALLER },
  { name: "environ: sbatch --get-user-env --wrap 'srun -n 1 true'", fixture: 'environ.c', stack: environ(), command: 'sbatch', args: ['--get-user-env', '--wrap', 'srun -n 1 true'], env: CALLER },
  // The epilog's SLURM_JOB_DERIVED_EC: the highest exit code of the job's srun steps (each its last task's, per node).
  { name: "environ: srun -n 2 sh -c 'exit $((SLURM_PROCID + 2))'", fixture: 'environ.c', stack: environ(), command: 'srun', args: ['-n', '2', 'sh', '-c', 'exit $((SLURM_PROCID + 2))'], env: CALLER },
  { name: "environ: sbatch --wrap 'srun -n 2 sh -c \"exit $SLURM_PROCID\"; srun -n 1 true'", fixture: 'environ.c', stack: environ(), command: 'sbatch', args: ['--wrap', 'srun -n 2 sh -c "exit $SLURM_PROCID"; srun -n 1 true'], env: CALLER },
  // --dependency, --profile and --acctg-freq for the job's sruns: 22.05's sbatch writes them, 24.11's slurmctld (sbatch the dependency too).
  { name: "environ: sbatch --dependency=singleton --profile=task,energy --acctg-freq=30 --wrap 'srun -n 1 true'", fixture: 'environ.c', stack: environ(), command: 'sbatch', args: ['--dependency=singleton', '--profile=task,energy', '--acctg-freq=30', '--wrap', 'srun -n 1 true'], env: CALLER },
  { name: 'environ: salloc -m arbitrary -w node0,node0 true', fixture: 'environ.c', stack: environ(), command: 'salloc', args: ['-m', 'arbitrary', '-w', 'node0,node0', 'true'], env: CALLER },
  { name: "environ: sbatch -m arbitrary -w node0,node0 --wrap 'true'", fixture: 'environ.c', stack: environ(), command: 'sbatch', args: ['-m', 'arbitrary', '-w', 'node0,node0', '--wrap', 'true'], env: CALLER },
  { name: "environ: srun --dependency=singleton -n 1 true", fixture: 'environ.c', stack: environ(), command: 'srun', args: ['--dependency=singleton', '-n', '1', 'true'], env: CALLER },
  // The job's memory and account, which slurmctld hands back to the commands (env_array_for_job, env_array_for_batch_job, srun's _set_env_vars).
  { name: 'environ: srun --mem=1G -A acct -n 1 true', fixture: 'environ.c', stack: environ(), command: 'srun', args: ['--mem=1G', '-A', 'acct', '-n', '1', 'true'], env: CALLER },
  { name: 'environ: salloc --mem-per-cpu=100 -A acct -O -n 1 srun -n 1 true', fixture: 'environ.c', stack: environ(), command: 'salloc', args: ['--mem-per-cpu=100', '-A', 'acct', '-O', '-n', '1', 'srun', '-n', '1', 'true'], env: CALLER },
  { name: "environ: sbatch --mem=1G -A acct --wrap 'srun -n 1 true'", fixture: 'environ.c', stack: environ(), command: 'sbatch', args: ['--mem=1G', '-A', 'acct', '--wrap', 'srun -n 1 true'], env: CALLER },
  // SLURM_SUBMIT_DIR: where srun was started, not its -D, and inside a job the job's.
  { name: 'environ: srun -D /tmp -n 1 true', fixture: 'environ.c', stack: environ(), command: 'srun', args: ['-D', '/tmp', '-n', '1', 'true'], env: CALLER },
  { name: "environ: salloc -n 1 sh -c 'cd /tmp && srun -n 1 true'", fixture: 'environ.c', stack: environ(), command: 'salloc', args: ['-n', '1', 'sh', '-c', 'cd /tmp && srun -n 1 true'], env: CALLER },
];

/** Files a scenario's commands expect in their working directory. */
const FILES: Record<string, Record<string, string>> = {
  'environ: sbatch job.sh one two': { 'job.sh': '#!/bin/sh\nsrun -n 1 true\n' },
  "environ: sbatch -i in.txt --wrap 'read line; srun -n 1 true'": { 'in.txt': 'a line\n' },
};

/** Values that differ from run to run, or between the two sides' directories. */
const ANY_VALUE = new Set(['SLURM_TASK_PID', 'SLURM_SRUN_COMM_PORT', 'SLURM_STEP_LAUNCHER_PORT', 'SLURM_PRIO_PROCESS', 'SLURM_JOB_START_TIME', 'SLURM_JOB_END_TIME']);

function normalise(name: string, value: string, cwd: string): string {
  if (ANY_VALUE.has(name)) return '*';
  if (name === 'SLURM_JOB_ID' || name === 'SLURM_JOBID') return 'JOB';
  let v = value.split(cwd).join('CWD');
  // cluster:controller host:controller port:protocol version:flags
  if (name === 'SLURM_WORKING_CLUSTER') v = v.replace(/^([^:]*:[^:]*:)\d+:/, '$1PORT:');
  // The batch script's srun: plugstack's directory first on the job's PATH (README).
  if (name === 'PATH') v = v.replace(/^[^:]*\/jobs\/\d+\/bin:/, '');
  return v;
}

/**
 * One line per variable: "<context>:<first callback of the process>:<step>
 * <callback> env|job NAME=value", processes of the same kind (the tasks of
 * a step) pooled, pids left out, sorted.
 */
export function environLines(log: string[], cwd: string): string[] {
  const kinds = new Map<string, string>();
  const records: { pid: string; cb: string; kind: string; entry: string }[] = [];
  const stepOf = new Map<string, string>();
  for (const line of log) {
    const m = /^(\S+) pid=(\d+) (env|job) (.*)$/.exec(line);
    if (!m) continue;
    const [, cb, pid, kind, entry] = m as unknown as [string, string, string, string, string];
    if (!kinds.has(pid)) kinds.set(pid, cb);
    if (kind === 'job' && entry.startsWith('SLURM_STEP_ID=')) stepOf.set(pid, entry.slice('SLURM_STEP_ID='.length));
    records.push({ pid, cb, kind, entry });
  }
  const out: string[] = [];
  for (const r of records) {
    const eq = r.entry.indexOf('=');
    const name = r.entry.slice(0, eq);
    const ctx = r.cb.slice(r.cb.indexOf('@') + 1);
    // Tasks have no step id in the job environment until task_init: their parent's.
    const step = stepOf.get(r.pid) ?? (ctx === '2' ? 'batch' : '-');
    out.push(`${ctx}:${kinds.get(r.pid)}:${step} ${r.cb} ${r.kind} ${name}=${normalise(name, r.entry.slice(eq + 1), cwd)}`);
  }
  return out.sort();
}

/**
 * The order of the variables: per kind of process (as environLines names
 * it), callback and list (env: its environ; job: S_JOB_ENV), the names in
 * the order the first such process had them at its first such call (the
 * tasks of a step, or a stepd's calls for each of its tasks, have theirs in
 * the same order).
 */
export function environOrders(log: string[]): Map<string, string[]> {
  const kinds = new Map<string, string>();
  const stepOf = new Map<string, string>();
  const ended = new Set<string>();
  const byCall = new Map<string, { pid: string; cb: string; kind: string; names: string[] }>();
  for (const line of log) {
    const m = /^(\S+) pid=(\d+) (env|job|end) ?(.*)$/.exec(line);
    if (!m) continue;
    const [, cb, pid, kind, entry] = m as unknown as [string, string, string, string, string];
    if (kind === 'end') {
      ended.add(`${pid} ${cb}`);
      continue;
    }
    if (ended.has(`${pid} ${cb}`)) continue;
    if (!kinds.has(pid)) kinds.set(pid, cb);
    if (kind === 'job' && entry.startsWith('SLURM_STEP_ID=')) stepOf.set(pid, entry.slice('SLURM_STEP_ID='.length));
    const key = `${pid} ${cb} ${kind}`;
    if (!byCall.has(key)) byCall.set(key, { pid, cb, kind, names: [] });
    byCall.get(key)!.names.push(entry.slice(0, entry.indexOf('=')));
  }
  const out = new Map<string, string[]>();
  for (const { pid, cb, kind, names } of byCall.values()) {
    const ctx = cb.slice(cb.indexOf('@') + 1);
    const step = stepOf.get(pid) ?? (ctx === '2' ? 'batch' : '-');
    const key = `${ctx}:${kinds.get(pid)}:${step} ${cb} ${kind}`;
    if (!out.has(key)) out.set(key, names);
  }
  return out;
}

/**
 * Where two runs' orders differ: for each list both have, the variables
 * both have (what one side alone has is the sorted comparison's, with its
 * allowlist), in each side's order. The caller's variables and Slurm's
 * are all compared: an environment is the caller's in its order, then
 * Slurm's in the order Slurm wrote them.
 */
export function orderDifferences(ours: Map<string, string[]>, real: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const [key, theirs] of real) {
    const mine = ours.get(key);
    if (!mine) continue;
    const inMine = new Set(mine);
    const inTheirs = new Set(theirs);
    const a = mine.filter((n) => inTheirs.has(n));
    const b = theirs.filter((n) => inMine.has(n));
    if (a.join(' ') !== b.join(' ')) out.push(`${key}\n  plugstack: ${a.join(' ')}\n  real:      ${b.join(' ')}`);
  }
  return out;
}

function observation(raw: Awaited<ReturnType<typeof runReal>>, cwd: string): Observation {
  const lines = (s: string) => s.split('\n').filter(Boolean).map((l) => l.split(cwd).join('CWD').replace(/\b(job |allocation )\d+/, '$1J1')).sort();
  return { exitCode: raw.exitCode, processes: [], callbacks: environLines(raw.log, cwd), stdout: lines(raw.stdout), stderr: lines(raw.stderr), drained: raw.drained };
}

for (const release of releases()) {
  describe(`whole environments: plugstack and a real Slurm ${release} agree`, () => {
    for (const scenario of environScenarios) {
      it(scenario.name, async () => {
        const realDir = tempDir('conformance-real-');
        fs.chmodSync(realDir, 0o777);
        const oursDir = tempDir('conformance-ours-');
        for (const dir of [realDir, oursDir])
          for (const [name, text] of Object.entries(FILES[scenario.name] ?? {})) fs.writeFileSync(path.join(dir, name), text, { mode: 0o755 });
        const rawReal = await runReal(release, scenario, realDir);
        const rawOurs = await runPlugstack(release, scenario, oursDir);
        const real = observation(rawReal, realDir);
        const ours = observation(rawOurs, oursDir);
        expect(real.callbacks.length).toBeGreaterThan(0);
        expect(applyAllowlist(ours, scenario.name, allowlist, release)).toEqual(applyAllowlist(real, scenario.name, allowlist, release));
        // The same variables, and in the same order.
        expect(orderDifferences(environOrders(rawOurs.log), environOrders(rawReal.log))).toEqual([]);
      });
    }
  });
}
