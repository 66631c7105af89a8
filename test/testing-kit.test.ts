/**
 * plugstack/testing itself: compilePlugin (files and strings, releases,
 * the content cache, compiler errors), pluginStack, and the matchers'
 * verdicts and failure messages; `plugstack cc --slurm-version 22.05`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandResult } from '../lib/commands/types.js';
import { PlugstackError } from '../lib/errors.js';
import { Plugstack } from '../lib/plugstack.js';
import { compilePlugin, matchers, pluginStack, stackConf } from '../lib/testing/index.js';
import '../lib/testing/vitest.js';
import { repoRoot, tempDir } from './helpers/plugins.js';

const cache = tempDir('plugstack-kit-');
const saved = process.env.PLUGSTACK_CACHE_DIR;
process.env.PLUGSTACK_CACHE_DIR = cache;
afterAll(() => {
  if (saved === undefined) delete process.env.PLUGSTACK_CACHE_DIR;
  else process.env.PLUGSTACK_CACHE_DIR = saved;
  fs.rmSync(cache, { recursive: true, force: true });
});

const hello = path.join(repoRoot, 'examples', 'hello', 'hello.c');
const failing = `
  #include <slurm/spank.h>
  SPANK_PLUGIN(failing, 1);
  int slurm_spank_task_init(spank_t sp, int ac, char **av) { slurm_info("failing: no"); return -1; }
`;

describe('compilePlugin', () => {
  it('builds a file once: the same content is the same object, other content another', () => {
    const a = compilePlugin(hello);
    expect(path.basename(a)).toBe('hello.so');
    const mtime = fs.statSync(a).mtimeMs;
    expect(compilePlugin(hello)).toBe(a);
    expect(fs.statSync(a).mtimeMs).toBe(mtime);
    expect(compilePlugin(hello, { defines: { UNUSED: 1 } })).not.toBe(a);
    expect(compilePlugin({ code: failing, name: 'failing' })).toMatch(/failing\.so$/);
    expect(compilePlugin({ code: failing + '\n' })).not.toBe(compilePlugin({ code: failing }));
  });

  it('builds for 22.05 when asked: the plugin claims 22.05 and loads only there', async () => {
    const so = compilePlugin(hello, { slurmVersion: '22.05' });
    const conf = path.join(tempDir(), 'plugstack.conf');
    fs.writeFileSync(conf, `required ${so}\n`);
    const old = await (await Plugstack.load(conf, { pluginDir: [], slurmVersion: '22.05' })).check({ context: 'remote' });
    expect(old.ok).toBe(true);
    expect(old.contexts[0]!.plugins[0]!.versionText).toBe('22.05.8');
    const now = await (await Plugstack.load(conf, { pluginDir: [] })).check({ context: 'remote' });
    expect(now.ok).toBe(false);
    expect(now.contexts[0]!.problems.map((p) => p.code)).toContain('PLUGIN_VERSION_MISMATCH');
    fs.rmSync(path.dirname(conf), { recursive: true });
  });

  it('throws the compiler’s messages for a source that does not compile, and refuses bad input', () => {
    const bad = () => compilePlugin({ code: 'int broken( {' });
    expect(bad).toThrow(PlugstackError);
    expect(bad).toThrow(/error:/);
    expect(() => compilePlugin(42 as never)).toThrow(/Expected a path to a C file/);
    expect(() => compilePlugin('/nonexistent/x.c')).toThrow(/cannot read the plugin source/);
    expect(() => compilePlugin(hello, { slurmVersion: '23.02' })).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_SLURM_VERSION' }));
  });
});

describe('pluginStack', () => {
  it('writes the plugstack.conf lines: required or optional, path, arguments', () => {
    expect(stackConf(['/p/a.so', { plugin: '/p/b.so', args: ['x=1', 'y'], optional: true }])).toBe('required /p/a.so\noptional /p/b.so x=1 y\n');
    expect(() => stackConf([{ plugin: '/p/a.so', args: ['two words'] }])).toThrow(/without whitespace/);
    expect(() => stackConf([''])).toThrow(PlugstackError);
  });
});

describe('the matchers', () => {
  let run: CommandResult;
  beforeAll(async () => {
    const stack = await pluginStack([compilePlugin(hello), { plugin: compilePlugin({ code: failing, name: 'failing' }) }]);
    run = await stack.srun({ args: ['-n', '2', '--greeting=hej', 'env'], env: { PATH: '/usr/bin:/bin' } });
  });

  it('answer what happened', () => {
    expect(run).toHaveExitCode(1);
    expect(run).toHaveCalled('hello', 'user_init', { node: 0 });
    expect(run).toHaveCalled('hello.so', 'slurm_spank_local_user_init', { context: 'local' });
    expect(run).toHaveCalled('failing', 'task_init', { task: 1, rc: -1 });
    expect(run).not.toHaveCalled('hello', 'task_init');
    expect(run).toHaveFailedWith('HOOK_FAILED', { plugin: 'failing', hook: 'task_init' });
    expect(run).toHaveTaskExit(0, 1);
    expect(run).toHaveLogged('failing: no', { plugin: 'failing' });
    expect(run.steps[0]).toHaveCalled('failing', 'task_init', { task: 0 });
  });

  it('fail with the calls, problems and tasks that are there instead', () => {
    const called = matchers.toHaveCalled.call({}, run, 'hello', 'task_init', { task: 1 });
    expect(called.pass).toBe(false);
    const text = called.message();
    expect(text).toMatch(/^expected hello's task_init \(task 1\) to be called; the calls of hello were:\n/);
    expect(text).toMatch(/srun +local +hello\.so slurm_spank_init \(rc 0\)/);
    expect(text).toMatch(/node0 stepd +remote +hello\.so slurm_spank_user_init/);
    expect(text).not.toContain('failing.so');

    const nobody = matchers.toHaveCalled.call({}, run, 'absent', 'init').message();
    expect(nobody).toMatch(/absent made no call; all calls were:\n.*failing\.so/s);

    const failed = matchers.toHaveFailedWith.call({}, run, 'PLUGIN_CRASHED').message();
    expect(failed).toContain('HOOK_FAILED (remote, node 0)');
    expect(failed).toMatch(/calls that returned < 0:\n(.*\n)? {2}task 0 +remote +failing\.so slurm_spank_task_init \(rc -1, task 0\)/);

    const exit = matchers.toHaveExitCode.call({}, run, 0);
    expect(exit.pass).toBe(false);
    expect(exit.message()).toMatch(/got 1; tasks:\n {2}task 0: exit 1\n {2}task 1: exit 1/);

    const env = matchers.toHaveTaskEnv.call({}, run, 0, 'HELLO_GREETING', 'hej');
    expect(env.pass).toBe(false);
    expect(env.message()).toContain('HELLO_GREETING is not set');
    expect(matchers.toHaveTaskEnv.call({}, run, 9, 'X').message()).toContain('the tasks are 0, 1');
    expect(matchers.toHaveExitCode.call({}, { not: 'a run' }, 0).message()).toMatch(/expected the result of srun/);
  });
});

it('plugstack cc --slurm-version 22.05 builds a plugin that claims 22.05', () => {
  const dir = tempDir();
  const out = path.join(dir, 'hello.so');
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'plugstack.cjs'), 'cc', '--slurm-version', '22.05', hello, '-o', out], { encoding: 'utf8' });
  expect(r.status).toBe(0);
  expect(r.stdout).toContain('-DSLURM_VERSION_NUMBER=0x160508');
  const check = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'plugstack.cjs'), 'check', out, '--slurm-version', '22.05', '--context', 'remote'], { encoding: 'utf8' });
  expect(check.stdout).toContain('version 22.05.8');
  expect(check.status).toBe(0);
  fs.rmSync(dir, { recursive: true });
});
