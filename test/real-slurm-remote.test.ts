/**
 * Scenarios 01, 04 and 06 of real-slurm-22.05.md, remote side, run through
 * plugstack in 22.05 mode and compared with what the real cluster did (the
 * callback sequence per process, the items table's REMOTE rows, the option
 * callbacks, TRACE_SET in the tasks, the exit status).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import type { StepOptions } from '../lib/step/types.js';
import { compilePlugin, readLog, tempDir, writeFile } from './helpers/plugins.js';

async function traceStep(step: Partial<StepOptions>) {
  const dir = tempDir();
  const log = path.join(dir, 'spanktrace.log');
  const so = compilePlugin('trace.c', { defines: { PLUGIN_VERSION: 0x160508 } });
  const conf = writeFile(dir, 'plugstack.conf', `required ${so} log=${log}\n`);
  const stack = await Plugstack.load(conf, { slurmVersion: '22.05', pluginDir: [] });
  const result = await stack.launchStep({ argv: ['true'], env: { PATH: '/usr/bin:/bin' }, jobId: 2, cwd: dir, ...step });
  // The pid is for splitting by process; one step is one process here.
  const lines = readLog(log).map((l) => l.replace(/ pid=\d+$/, ''));
  const rows = lines
    .filter((l) => / ctx=/.test(l))
    .map((l) => {
      const [callback, ...kv] = l.split(' ');
      return { callback: callback!, ...Object.fromEntries(kv.map((x) => x.split('=') as [string, string])) } as Record<string, string>;
    });
  return { result, lines, rows };
}

const trace01 = { ntasks: 3, argv: ['env'], spankOptions: [{ plugin: 'trace', name: 'trace-opt', value: 'hello' }] };

describe('scenario 01: srun -n 3 -O --trace-opt=hello env (remote side)', () => {
  it('runs the callbacks in the order the real slurmstepd did, the option callback twice', async () => {
    const { result, lines } = await traceStep(trace01);
    expect(result.ok).toBe(true);
    const first = (name: string) => lines.findIndex((l) => l.startsWith(name));
    const options = lines.filter((l) => l.startsWith('OPTION_CB'));
    // 22.05: once from the launch message's option list, once from the env.
    expect(options).toEqual([
      'OPTION_CB(trace-opt) val=42 optarg=hello remote=1',
      'OPTION_CB(trace-opt) val=42 optarg=hello remote=1',
    ]);
    expect(first('init ')).toBeLessThan(first('OPTION_CB'));
    expect(first('OPTION_CB')).toBeLessThan(first('init_post_opt'));
    expect(first('init_post_opt')).toBeLessThan(first('user_init'));
    expect(lines).toContain('spank_setenv(TRACE_SET,yes)=0');
    expect(lines).toContain('option_register=0');
    const parentOrder = lines
      .filter((l) => /^(init|init_post_opt|user_init|task_post_fork|task_exit|exit) /.test(l))
      .map((l) => l.split(' ')[0]);
    expect(parentOrder).toEqual([
      'init', 'init_post_opt', 'user_init', 'task_post_fork', 'task_post_fork', 'task_post_fork',
      'task_exit', 'task_exit', 'task_exit', 'exit',
    ]);
  });

  it('answers items as in the REMOTE rows of the real items table', async () => {
    const { rows } = await traceStep(trace01);
    const uid = String(process.getuid!());
    const row = (cb: string) => rows.find((r) => r.callback === cb)!;
    const base = { ctx: '2', remote: '1', JOB_ID: '2', STEPID: '0', NNODES: '1', UID: uid };
    expect(row('init')).toMatchObject({ ...base, TASK_ID: 'ERR3002', GTASK: 'ERR3002', TPID: 'ERR3002', EXIT: 'ERR3002', getopt: 'ERR3009' });
    // ok*: the call is allowed, the variable not set yet.
    expect(row('init').getenv).toBe('ERR3004');
    expect(row('init_post_opt')).toMatchObject({ ...base, TASK_ID: 'ERR3002', getopt: 'ERR3009' });
    expect(row('user_init')).toMatchObject({ ...base, TASK_ID: 'ERR3002', EXIT: 'ERR3002', getenv: 'yes', getopt: 'hello' });
    expect(row('task_init_privileged')).toMatchObject({ ...base, TPID: '-1', EXIT: 'ERR3002', getopt: 'hello' });
    expect(row('task_init_privileged').TASK_ID).toMatch(/^[012]$/);
    expect(row('task_init_privileged').GTASK).toBe(row('task_init_privileged').TASK_ID);
    expect(row('task_post_fork')).toMatchObject({ ...base, TASK_ID: '0', TPID: '1', EXIT: 'ERR3002', getopt: 'ERR3009' });
    expect(row('task_init')).toMatchObject({ ...base, TPID: '-1', EXIT: 'ERR3002', getenv: 'yes', getopt: 'hello' });
    expect(row('task_exit')).toMatchObject({ ...base, TPID: '1', EXIT: '0', getopt: 'hello' });
    expect(row('exit')).toMatchObject({ ...base, TASK_ID: 'ERR3002', EXIT: 'ERR3002', getopt: 'ERR3009' });
  });

  it('gives the tasks TRACE_SET=yes and no option variable; TMPDIR to task 0 only', async () => {
    const { result } = await traceStep(trace01);
    for (const t of result.tasks) {
      expect(t.stdout).toContain('TRACE_SET=yes\n');
      expect(t.stdout).not.toMatch(/^_SLURM_SPANK_OPTION_/m);
      expect(t.stdout).toContain(`SLURM_PROCID=${t.task}\n`);
      expect(t.stdout.includes('\nTMPDIR=/tmp\n')).toBe(t.task === 0);
    }
  });
});

describe('scenario 04: srun -n 1 sh -c "exit 3" (remote side)', () => {
  it('task_exit sees the raw status 768 and getopt answers ESPANK_ERROR without the option', async () => {
    const { result, rows } = await traceStep({ ntasks: 1, argv: ['sh', '-c', 'exit 3'] });
    expect(result.tasks[0]!.status).toBe(768);
    expect(result.tasks[0]!.exitCode).toBe(3);
    expect(rows.find((r) => r.callback === 'task_exit')).toMatchObject({ EXIT: '768', getopt: 'ERR3000' });
  });
});

describe('scenario 06: srun -n 2 sh -c "echo task $SLURM_PROCID TRACE_SET=$TRACE_SET" (remote side)', () => {
  it('prints what the real tasks printed, with no option callback', async () => {
    const { result, lines } = await traceStep({ ntasks: 2, argv: ['sh', '-c', 'echo task $SLURM_PROCID TRACE_SET=$TRACE_SET'] });
    expect(result.tasks.map((t) => t.stdout)).toEqual(['task 0 TRACE_SET=yes\n', 'task 1 TRACE_SET=yes\n']);
    expect(lines.some((l) => l.startsWith('OPTION_CB'))).toBe(false);
  });
});
