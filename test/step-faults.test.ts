/**
 * Faults during a step stay contained: a plugin that crashes, aborts,
 * exits or hangs, in the stepd or in a task child, is reported with plugin,
 * hook, node and task; every process of the step is gone afterwards, and no
 * descriptor is left open in this process.
 */
import { describe, expect, it } from 'vitest';
import { leftBehind, openDescriptors, uniqueTag } from './helpers/processes.js';
import { recordStep } from './helpers/step.js';

describe('faults in the stepd', () => {
  it('a crash in user_init is reported with plugin, hook and node; the Node process carries on', async () => {
    const { result } = await recordStep(['crash=user_init'], { nodes: 2, ntasks: 2 });
    expect(result.ok).toBe(false);
    const crashes = result.problems.filter((p) => p.code === 'PLUGIN_CRASHED');
    expect(crashes.map((p) => [p.node, p.hook, p.signal]).sort()).toEqual([
      [0, 'slurm_spank_user_init', 'SIGSEGV'],
      [1, 'slurm_spank_user_init', 'SIGSEGV'],
    ]);
    expect(crashes[0]!.plugin).toMatch(/recorder.*\.so$/);
    expect(result.nodes.map((n) => n.failedAt)).toEqual(['host', 'host']);
  });

  it('exit() in task_post_fork kills the stepd: reported, and the blocked tasks go with it', async () => {
    const tag = uniqueTag();
    const { result } = await recordStep(['exit=task_post_fork'], { ntasks: 3, argv: ['perl', '-e', 'sleep 300', tag] });
    expect(result.problems).toContainEqual(
      expect.objectContaining({ code: 'PLUGIN_EXITED', hook: 'slurm_spank_task_post_fork', node: 0 }),
    );
    expect(await leftBehind([tag])).toEqual([]);
  });

  it('a hang is ended by the step timeout, tasks included', async () => {
    const started = Date.now();
    const { result } = await recordStep(['hang=task_exit', 'only=0'], { ntasks: 2, argv: ['true'], timeoutMs: 700 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result.problems).toContainEqual(expect.objectContaining({ code: 'PLUGIN_TIMEOUT', hook: 'slurm_spank_task_exit' }));
    expect(await leftBehind()).toEqual([]);
  });
});

describe('faults in a task child', () => {
  it('a crash in task_init kills only that task; the step reports plugin, hook and task', async () => {
    const { result, lines } = await recordStep(['crash=task_init', 'only=1'], { ntasks: 3, argv: ['true'] });
    expect(result.tasks.map((t) => t.signal)).toEqual([null, 'SIGSEGV', null]);
    expect(result.tasks[1]!.status).toBe(11);
    expect(result.problems).toContainEqual(
      expect.objectContaining({ code: 'PLUGIN_CRASHED', hook: 'slurm_spank_task_init', task: 1, node: 0, signal: 'SIGSEGV' }),
    );
    // slurmstepd reaps it like any task: task_exit with the raw status.
    expect(lines.find((l) => l.callback === 'task_exit' && l.fields.task === '1')!.fields.status).toBe('11');
    expect(result.ok).toBe(false);
  });

  it('what the task did in plugin code before it crashed reaches the result (the memory Node shares with the host)', async () => {
    const { result } = await recordStep(['crash=task_init', 'only=1'], { ntasks: 3, argv: ['true'] });
    // Every task child reads its global id in task_init (only=1); task 1
    // then crashes, before it would have sent anything.
    const reads = result.items.filter((i) => i.hook === 'slurm_spank_task_init' && i.item === 'S_TASK_GLOBAL_ID');
    expect([...new Set(reads.map((i) => i.value))].sort()).toEqual([0, 1, 2]);
    expect(result.problems).toContainEqual(expect.objectContaining({ code: 'PLUGIN_CRASHED', hook: 'slurm_spank_task_init', task: 1 }));
  });

  it('abort() in task_init_privileged is SIGABRT for that task', async () => {
    const { result } = await recordStep(['abort=task_init_privileged', 'only=0'], { ntasks: 2 });
    expect(result.tasks.map((t) => t.signal), JSON.stringify([result.problems, result.nodes])).toEqual(['SIGABRT', null]);
    expect(result.problems).toContainEqual(expect.objectContaining({ hook: 'slurm_spank_task_init_privileged', task: 0 }));
  });
});

describe('a slurmstepd that dies', () => {
  it('takes along the daemon its plugin started earlier', async () => {
    const tag = uniqueTag();
    const { result } = await recordStep([`daemon=init:${tag}`, 'crash=user_init'], { ntasks: 1 });
    expect(result.problems).toContainEqual(expect.objectContaining({ code: 'PLUGIN_CRASHED', hook: 'slurm_spank_user_init' }));
    expect(await leftBehind([tag])).toEqual([]);
  });

  it("takes along what its tasks left, setsid's daemons included", async () => {
    const tag = uniqueTag();
    const { result } = await recordStep(['crash=task_exit'], {
      ntasks: 2,
      argv: ['sh', '-c', `setsid perl -e 'sleep 300' ${tag} & perl -e 'sleep 300' ${tag} & echo started`],
    });
    expect(result.problems).toContainEqual(expect.objectContaining({ code: 'PLUGIN_CRASHED', hook: 'slurm_spank_task_exit' }));
    expect(await leftBehind([tag])).toEqual([]);
  });
});

describe('cleanup', () => {
  it('kills what tasks leave behind, even detached, and leaks no descriptor', async () => {
    const before = openDescriptors();
    const tag = uniqueTag();
    const { result } = await recordStep([], {
      ntasks: 2,
      argv: ['sh', '-c', `perl -e 'sleep 301' ${tag} & setsid perl -e 'sleep 302' ${tag} & echo started`],
    });
    expect(result.ok).toBe(true);
    expect(result.tasks.map((t) => t.stdout)).toEqual(['started\n', 'started\n']);
    expect(await leftBehind([tag])).toEqual([]);
    expect(openDescriptors()).toBe(before);
  });
});
