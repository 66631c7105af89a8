/**
 * The fault matrix (test/fault-matrix*.test.ts): every callback × every way plugin code can misbehave: a segfault, abort(),
 * exit(), a hang, a descriptor left open, a daemon. Each cell runs the
 * command that reaches the callback (srun: its own local callbacks, the
 * step's remote ones, the job prolog and epilog; slurmd for slurmd_exit)
 * and requires the fault to be contained and attributed: the right code
 * with the plugin and the hook, a "plugstack:" line on the command's
 * stderr, and nothing left behind — no process, no job directory, no
 * descriptor in this process.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Problem } from '../../lib/check/types.js';
import { stateDir } from '../../lib/cluster/state-dir.js';
import { Plugstack } from '../../lib/plugstack.js';
import type { SpankContext } from '../../lib/spank.js';
import { tempDir, writeFile } from './plugins.js';
import { leftBehind, openDescriptors, uniqueTag } from './processes.js';
import { recorder } from './step.js';

export type Fault = 'crash' | 'abort' | 'exit' | 'hang' | 'leakfd' | 'daemon';

const EXPECTED: Record<Fault, { code: string; signal?: string; severity: 'error' | 'warning' }> = {
  crash: { code: 'PLUGIN_CRASHED', signal: 'SIGSEGV', severity: 'error' },
  abort: { code: 'PLUGIN_CRASHED', signal: 'SIGABRT', severity: 'error' },
  exit: { code: 'PLUGIN_EXITED', severity: 'error' },
  hang: { code: 'PLUGIN_TIMEOUT', severity: 'error' },
  leakfd: { code: 'PLUGIN_LEFT_DESCRIPTOR', severity: 'warning' },
  daemon: { code: 'PLUGIN_LEFT_PROCESS', severity: 'warning' },
};

/** Each callback in the context that runs it (init and exit in two). */
const CELLS: { callback: string; context: SpankContext }[] = [
  { callback: 'init', context: 'local' },
  { callback: 'init', context: 'remote' },
  { callback: 'init_post_opt', context: 'local' },
  { callback: 'init_post_opt', context: 'remote' },
  { callback: 'local_user_init', context: 'local' },
  { callback: 'user_init', context: 'remote' },
  { callback: 'task_init_privileged', context: 'remote' },
  { callback: 'task_post_fork', context: 'remote' },
  { callback: 'task_init', context: 'remote' },
  { callback: 'task_exit', context: 'remote' },
  { callback: 'exit', context: 'remote' },
  { callback: 'exit', context: 'local' },
  { callback: 'job_prolog', context: 'job_script' },
  { callback: 'job_epilog', context: 'job_script' },
  { callback: 'init', context: 'slurmd' },
  { callback: 'slurmd_exit', context: 'slurmd' },
];


async function runCell(callback: string, context: SpankContext, fault: Fault, tag: string) {
  const dir = tempDir();
  const misbehave = `${fault}=${callback}${fault === 'daemon' ? `:${tag}` : ''}`;
  const conf = writeFile(dir, 'plugstack.conf', `required ${recorder()} ${misbehave} context=${context}\n`);
  const stack = await Plugstack.load(conf, { pluginDir: [], timeoutMs: 1000 });
  const problems: (Problem & { node?: number; task?: number })[] = [];
  let stderr = '';
  let jobId: number | undefined;
  if (context === 'slurmd') {
    const slurmd = await stack.slurmd({ timeoutMs: 700 });
    const stop = await slurmd.stop();
    problems.push(...slurmd.record.problems, ...stop.problems);
  } else {
    // A hang is ended at the command's bound; the other faults need none,
    // and a tight one on a loaded machine (a sanitized build beside other
    // suites) ends the command before the callback, the job epilog's
    // above all, and leaves nothing to attribute. The job prolog's and
    // epilog's hangs get a bound the whole step fits in.
    const timeoutMs = fault !== 'hang' ? 20_000 : callback === 'job_prolog' || callback === 'job_epilog' ? 2500 : 900;
    const r = await stack.srun({ args: ['-N', '2', '-n', '3', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' }, timeoutMs });
    problems.push(...r.client.problems, ...r.steps.flatMap((s) => s.problems), ...r.jobScripts.flatMap((s) => s.problems));
    stderr = r.stderr;
    jobId = r.job?.jobId;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return { problems, stderr, jobId, plugin: recorder() };
}

/** The matrix for these faults: one test per callback and fault. */
export function faultMatrix(faults: Fault[]): void {
  const fdsBefore = openDescriptors();
  const jobsDir = stateDir('jobs');
  describe.each(CELLS)('$callback in $context context', ({ callback, context }) => {
    it.each(faults)('%s is contained and attributed', async (fault) => {
      const tag = uniqueTag('plugstack-daemon');
      const { problems, stderr, jobId, plugin } = await runCell(callback, context, fault, tag);
      const expected = EXPECTED[fault];
      const hook = `slurm_spank_${callback}`;
      const found = problems.filter((p) => p.code === expected.code && p.hook === hook);
      expect(found.length, `${fault} in ${hook}: ${JSON.stringify(problems, null, 1)}`).toBeGreaterThan(0);
      for (const p of found) {
        expect(p.plugin).toBe(plugin);
        expect(p.severity).toBe(expected.severity);
        if (expected.signal) expect(p.signal).toBe(expected.signal);
      }
      if (context !== 'slurmd') expect(stderr).toContain(`plugstack: ${expected.severity}: ${expected.code} (`);
      // Nothing of the run is left: processes, the job's directory.
      expect(await leftBehind([tag])).toEqual([]);
      if (jobId !== undefined) expect(fs.existsSync(path.join(jobsDir, String(jobId)))).toBe(false);
    });
  });

  afterAll(async () => {
    // Every descriptor the runs opened in this process is closed again.
    expect(await leftBehind()).toEqual([]);
    expect(openDescriptors()).toBe(fdsBefore);
  });
}
