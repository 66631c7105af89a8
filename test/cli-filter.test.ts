/**
 * cli_filter plugins in srun, sbatch and salloc (issue 11): a C plugin built
 * against <plugstack/cli_filter.h> (the probe fixture, which Debian's real
 * 22.05 clients load too: test/conformance/cli-filter.test.ts compares),
 * and the site's cli_filter.lua on the machine's real Lua. Where each hook
 * runs relative to SPANK, what it sees, what its changes do to the job, and
 * how failures end the command.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandName, CommandResult } from '../lib/commands/types.js';
import { Plugstack, type LoadOptions } from '../lib/plugstack.js';
import { compilePlugin, fixturesDir, readLog, repoRoot, tempDir, writeFile } from './helpers/plugins.js';

const NO_VAL = 4294967294;
const LUA_LIBS: Record<string, string> = { '5.1': 'liblua5.1.so.0', '5.3': 'liblua5.3.so.0', '5.4': 'liblua5.4.so.0' };
const LIB_DIRS = ['/usr/lib/x86_64-linux-gnu', '/usr/lib/aarch64-linux-gnu', '/usr/lib', '/lib/x86_64-linux-gnu'];

function luaInstalled(version: string): boolean {
  return LIB_DIRS.some((d) => fs.existsSync(path.join(d, LUA_LIBS[version]!)));
}
// CI installs every Lua (PLUGSTACK_REQUIRE_LUA=1): there a missing one is a failure, not a skip.
const requireLua = process.env.PLUGSTACK_REQUIRE_LUA === '1';
const withLua = (version: string) => (requireLua || luaInstalled(version) ? it : it.skip);

const RELEASE_NUMBER: Record<string, number> = { '22.05': 0x160508, '24.11': 0x180b05, '24.11.6': 0x180b06 };

function probe(version = '24.11', variant: Record<string, string | number | true> = {}): string {
  return path.dirname(
    compilePlugin('cli_filter_probe.c', { defines: { SLURM_VERSION_NUMBER: RELEASE_NUMBER[version]!, ...variant }, name: 'cli_filter_probe.so' }),
  );
}

interface Site {
  dir: string;
  slurmConf: string;
  log: string;
}

/** A site: slurm.conf naming the cli_filter plugins, an empty plugstack.conf, a cli_filter.lua if given. */
function site(plugins: string, pluginDirs: string[], lua?: string, extra = ''): Site {
  const dir = tempDir('plugstack-cf-');
  writeFile(dir, 'plugstack.conf', '');
  if (lua !== undefined) writeFile(dir, 'cli_filter.lua', lua);
  const slurmConf = writeFile(
    dir,
    'slurm.conf',
    [
      'ClusterName=Site',
      ...(pluginDirs.length ? [`PluginDir=${pluginDirs.join(':')}`] : []),
      `CliFilterPlugins=${plugins}`,
      'NodeName=n[0-3] CPUs=4',
      'PartitionName=debug Nodes=n[0-3] Default=YES',
      'PartitionName=big Nodes=n[0-3]',
      extra,
    ].join('\n') + '\n',
  );
  return { dir, slurmConf, log: path.join(dir, 'probe.log') };
}

async function run(
  s: Site,
  command: CommandName,
  args: string[],
  env: Record<string, string> = {},
  options: LoadOptions = {},
): Promise<{ result: CommandResult; log: string[] }> {
  const stack = await Plugstack.load(path.join(s.dir, 'plugstack.conf'), { slurmConf: s.slurmConf, slurmVersion: '24.11', ...options });
  const result = await stack[command]({ args, cwd: s.dir, env: { PATH: '/usr/bin:/bin', HOME: s.dir, PROBE_LOG: s.log, ...env } });
  return { result, log: fs.existsSync(s.log) ? readLog(s.log) : [] };
}

const hooks = (log: string[]) => log.filter((l) => /^(init|setup_defaults|pre_submit|post_submit)/.test(l));
const calls = (r: CommandResult) => r.client.calls.map((c) => c.hook).filter((h) => h !== 'option_cb' && h !== 'dlopen' && h !== 'dlclose');

describe('a C cli_filter plugin', () => {
  it('runs where each command runs it, around SPANK as the real commands do', async () => {
    const s = site('cli_filter/probe', [probe()]);
    const srun = await run(s, 'srun', ['true']);
    expect(srun.result.exitCode).toBe(0);
    expect(hooks(srun.log)).toEqual(['init', 'setup_defaults early=1', 'pre_submit offset=0', 'post_submit J stepid=0 offset=0']);
    // 24.11 loads cli_filter first, then SPANK; post_submit before local_user_init.
    expect(calls(srun.result)).toEqual(['init()', 'cli_filter_p_setup_defaults', 'cli_filter_p_pre_submit', 'cli_filter_p_post_submit']);

    fs.rmSync(s.log);
    const sbatch = await run(s, 'sbatch', ['--wrap', 'true']);
    expect(sbatch.result.exitCode).toBe(0);
    expect(hooks(sbatch.log)).toEqual(['init', 'setup_defaults early=1', 'setup_defaults early=0', 'pre_submit offset=0', `post_submit J stepid=${NO_VAL} offset=0`]);
    const sbatchFilter = sbatch.result.client.cliFilter;
    expect(sbatchFilter.map((c) => [c.hook, c.early ?? c.offset, c.stepId])).toEqual([
      ['setup_defaults', true, undefined],
      ['setup_defaults', false, undefined],
      ['pre_submit', 0, undefined],
      ['post_submit', 0, NO_VAL],
    ]);
    expect(sbatchFilter[3]!.jobId).toBe(sbatch.result.job!.jobId);

    fs.rmSync(s.log);
    // salloc: one setup_defaults (not early); the srun inside the allocation none.
    const salloc = await run(s, 'salloc', ['-n', '1', 'srun', '-n', '1', 'true']);
    expect(salloc.result.exitCode).toBe(0);
    expect(hooks(salloc.log)).toEqual([
      'init',
      'setup_defaults early=0',
      'pre_submit offset=0',
      `post_submit J stepid=${NO_VAL} offset=0`,
      'init',
      'pre_submit offset=0',
      'post_submit J stepid=0 offset=0',
    ]);
  });

  it('loads in the first hook under 22.05, after SPANK init, and sees the values 22.05 prints', async () => {
    const s = site('probe', [probe('22.05')]);
    const spank = compilePlugin('recorder.c', { defines: { PLUGIN_VERSION: 0x160508 } });
    writeFile(s.dir, 'plugstack.conf', `required ${spank} log=${path.join(s.dir, 'spank.log')}\n`);
    const { result, log } = await run(s, 'srun', ['-t', '90', '--mem=2048', 'true'], { PROBE_NAMES: 'time,mem,nodes,wait,pty,partition' }, { slurmVersion: '22.05' });
    expect(result.exitCode).toBe(0);
    expect(calls(result).slice(0, 4)).toEqual(['slurm_spank_init', 'init()', 'cli_filter_p_setup_defaults', 'cli_filter_p_pre_submit']);
    expect(calls(result)).toContain('slurm_spank_init_post_opt');
    expect(calls(result).indexOf('cli_filter_p_post_submit')).toBeLessThan(calls(result).indexOf('slurm_spank_local_user_init'));
    const pre = log.slice(log.indexOf('pre_submit offset=0'));
    expect(pre.filter((l) => l.startsWith('get '))).toEqual([
      'get time=01:30:00 isset=1',
      'get mem=2G isset=1',
      'get nodes=1-0 isset=0',
      // First match by name: sbatch's --wait, another command's option here.
      'get wait=invalid-context isset=0',
      'get pty=unset isset=0',
      'get partition=(null) isset=0',
    ]);
  });

  it('changes the job with what pre_submit sets', async () => {
    const s = site('probe', [probe()]);
    const { result } = await run(s, 'srun', ['-n', '1', 'sh', '-c', 'echo $SLURM_NTASKS $SLURM_JOB_PARTITION $SLURM_JOB_NAME'], {
      PROBE_SET_SETUP: 'job-name=from-defaults;partition=debug',
      PROBE_SET_PRE: 'ntasks=2;partition=big',
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual(['2 big from-defaults', '2 big from-defaults']);
    const pre = result.client.cliFilter.find((c) => c.hook === 'pre_submit')!;
    expect(pre.before).toMatchObject({ ntasks: '1', partition: 'debug', 'job-name': 'from-defaults' });
    expect(pre.after).toMatchObject({ ntasks: '2', partition: 'big' });
    expect(result.client.builtins.filter((b) => b.source === 'cli_filter').map((b) => b.name)).toEqual(['job-name', 'partition', 'ntasks', 'partition']);
  });

  it('what the user gives overrides setup_defaults, and sbatch starts its second pass afresh', async () => {
    const s = site('probe', [probe()]);
    const { result } = await run(s, 'sbatch', ['-p', 'debug', '--wrap', 'true'], { PROBE_SET_SETUP: 'partition=big;nodes=2;time=30' });
    expect(result.exitCode).toBe(0);
    const [early, second, pre] = result.client.cliFilter;
    expect(early!.after).toEqual({ nodes: '2', partition: 'big', time: '00:30:00' });
    // partition and nodes are reset every pass (time is not): the second
    // setup_defaults starts without them, and sets them again.
    expect(second!.before).toEqual({ time: '00:30:00', wrap: 'true' });
    expect(second!.after).toEqual({ nodes: '2', partition: 'big', time: '00:30:00', wrap: 'true' });
    // -p on the command line comes after the defaults.
    expect(pre!.before).toMatchObject({ partition: 'debug', nodes: '2' });
  });

  it("sbatch's first pass sets what it finds, as from the environment: what is not reset each pass is there in the second setup_defaults", async () => {
    const s = site('probe', [probe()]);
    const { result } = await run(s, 'sbatch', ['--mem=100', '-p', 'debug', '--wrap', 'true']);
    expect(result.exitCode).toBe(0);
    expect(result.client.cliFilter[1]!.before).toEqual({ mem: '100', wrap: 'true' });
  });

  it("srun's --mem clears --mem-per-cpu's value (set by the environment), which stays set; then the shared checks reset it", async () => {
    const s = site('probe', [probe()]);
    const names = { PROBE_NAMES: 'mem,mem-per-cpu' };
    const srun = await run(s, 'srun', ['--mem=100', 'true'], { ...names, SLURM_MEM_PER_CPU: '10' });
    expect(srun.result.exitCode).toBe(0);
    expect(srun.log.slice(srun.log.indexOf('pre_submit offset=0') + 1, -1)).toEqual(['get mem=100 isset=1', 'get mem-per-cpu=(null) isset=1']);
    fs.rmSync(s.log);
    const sbatch = await run(s, 'sbatch', ['--mem=100', '--wrap', 'true'], { ...names, SBATCH_MEM_PER_CPU: '10' });
    expect(sbatch.log.slice(sbatch.log.indexOf('pre_submit offset=0') + 1, -1)).toEqual(['get mem=100 isset=1', 'get mem-per-cpu=10 isset=1']);
  });

  it('ends the command before any job when setup_defaults or pre_submit fails', async () => {
    const s = site('probe', [probe()]);
    for (const [env, stoppedAfter] of [
      [{ PROBE_RC_SETUP: '3' }, 'setup_defaults early=1'],
      [{ PROBE_RC_PRE: '-1' }, 'pre_submit offset=0'],
    ] as const) {
      if (fs.existsSync(s.log)) fs.rmSync(s.log);
      const { result, log } = await run(s, 'srun', ['true'], env);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toBe('srun: error: cli_filter plugin terminated with error\n');
      expect(result.job).toBeUndefined();
      expect(hooks(log).at(-1)).toBe(stoppedAfter);
    }
    // SLURM_EXIT_ERROR is the status of the command's own errors.
    const { result } = await run(s, 'sbatch', ['--wrap', 'true'], { PROBE_RC_PRE: '1', SLURM_EXIT_ERROR: '7' });
    expect(result.exitCode).toBe(7);
    expect(result.stdout).toBe('');
  });

  it('ends the command where a setter does (a number that is not one)', async () => {
    const s = site('probe', [probe()]);
    const { result, log } = await run(s, 'srun', ['true'], { PROBE_SET_PRE: 'ntasks=abc' });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe('srun: error: Invalid numeric value "abc" for --ntasks.\n');
    expect(log.some((l) => l.startsWith('set ntasks'))).toBe(false);
    expect(result.job).toBeUndefined();
  });

  it('set, reset and get_next_set as Slurm has them', async () => {
    const s = site('probe', [probe()]);
    const { result, log } = await run(s, 'sbatch', ['-J', 'given', '--wrap', 'true'], {
      PROBE_SET_PRE: 'bogus=1;pty=1;wrap=echo changed;exclusive=user;mem=1024',
      PROBE_RESET_PRE: 'job-name',
      PROBE_NAMES: 'job-name,exclusive,oversubscribe,mem,wrap',
      PROBE_NEXT: '1',
    });
    expect(result.exitCode).toBe(0);
    const pre = log.slice(log.indexOf('pre_submit offset=0'));
    expect(pre).toEqual([
      'pre_submit offset=0',
      'set bogus=1 rc=-1', // no such option
      'set pty=1 rc=-1', // srun's option: no setter in sbatch
      'set wrap=echo changed rc=0', // early-pass option outside the early pass: ignored, success
      'set exclusive=user rc=0',
      'set mem=1024 rc=0',
      'reset job-name= 1',
      'get job-name=(null) isset=0',
      'get exclusive=user isset=1',
      'get oversubscribe=user isset=0', // the same field
      'get mem=1G isset=1',
      'get wrap=true isset=1',
      'next exclusive=user 0',
      'next mem=1G 0',
      'next wrap=true 0',
      `post_submit J stepid=${NO_VAL} offset=0`,
    ]);
  });

  it('reads --begin and --deadline as parse_time does and prints them as Slurm does', async () => {
    const s = site('probe', [probe()]);
    const { result, log } = await run(s, 'srun', ['true'], {
      PROBE_SET_PRE: 'begin=2031-12-01T10:00;deadline=12/02/31;begin=4:30pm tomorrow;deadline=soon',
      PROBE_NAMES: 'begin,deadline',
    });
    expect(result.exitCode).toBe(0);
    const pre = log.slice(log.indexOf('pre_submit offset=0'));
    const tomorrow = new Date(Date.now() + 86_400_000);
    const day = `${tomorrow.getFullYear()}-${String(tomorrow.getMonth() + 1).padStart(2, '0')}-${String(tomorrow.getDate()).padStart(2, '0')}`;
    expect(pre).toEqual([
      'pre_submit offset=0',
      'set begin=2031-12-01T10:00 rc=0',
      'set deadline=12/02/31 rc=0',
      'set begin=4:30pm tomorrow rc=0',
      'set deadline=soon rc=-1',
      `get begin=${day}T16:30:00 isset=1`,
      'get deadline=2031-12-02T00:00:00 isset=1',
      expect.stringMatching(/^post_submit/),
    ]);
    expect(result.stderr).toBe('srun: error: Invalid --deadline specification\n');
  });

  it('is refused with the names of Slurm 20.02 and older, and check says why', async () => {
    const old = path.dirname(
      compilePlugin('cli_filter_probe.c', {
        defines: { SLURM_VERSION_NUMBER: RELEASE_NUMBER['24.11']!, 'cli_filter_p_setup_defaults': 'setup_defaults', 'cli_filter_p_pre_submit': 'pre_submit', 'cli_filter_p_post_submit': 'post_submit' },
        name: 'cli_filter_probe.so',
      }),
    );
    const s = site('probe', [old]);
    const { result, log } = await run(s, 'srun', ['true']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe('srun: fatal: plugin_load_and_link: Plugin loading failed due to missing symbols. Plugin is corrupted.\n');
    // init() has run: Slurm looks for the hooks after it.
    expect(hooks(log)).toEqual(['init']);
    const problem = result.client.problems.find((p) => p.code === 'CLI_FILTER_MISSING_HOOKS')!;
    expect(problem.message).toMatch(/setup_defaults, pre_submit, post_submit, the names of Slurm 20.02 and older/);
    expect(problem.file).toBe(s.slurmConf);
    expect(problem.line).toBe(3);
  });

  it('must match the release to the micro version', async () => {
    const s = site('probe', [probe('24.11.6')]);
    const refused = await run(s, 'srun', ['true']);
    expect(refused.result.exitCode).toBe(1);
    expect(refused.result.stderr).toBe(
      [
        `srun: plugin_load_from_file: Incompatible Slurm plugin ${path.join(probe('24.11.6'), 'cli_filter_probe.so')} version (24.11.6)`,
        'srun: error: Couldn\'t load specified plugin name for cli_filter/probe: Incompatible plugin version',
        'srun: error: cannot create cli_filter context for cli_filter/probe',
        'srun: fatal: failed to initialize cli_filter plugin',
        '',
      ].join('\n'),
    );
    expect(refused.result.client.problems.map((p) => p.code)).toContain('PLUGIN_VERSION_MISMATCH');
    const loaded = await run(s, 'srun', ['true'], {}, { slurmVersion: '24.11.6' });
    expect(loaded.result.exitCode).toBe(0);
  });

  it('a plugin that is not there: 24.11 stops in main, 22.05 in the first hook', async () => {
    const s = site('nothere', [probe()]);
    const r2411 = await run(s, 'sbatch', ['--wrap', 'true']);
    expect(r2411.result.exitCode).toBe(1);
    expect(r2411.result.stderr).toMatch(/sbatch: error: cannot find cli_filter plugin for cli_filter\/nothere\n.*\nsbatch: fatal: failed to initialize cli_filter plugin\n$/s);
    const r2205 = await run(s, 'sbatch', ['--wrap', 'true'], { SLURM_EXIT_ERROR: '9' }, { slurmVersion: '22.05' });
    expect(r2205.result.exitCode).toBe(9);
    expect(r2205.result.stderr).toMatch(/cannot create cli_filter context for cli_filter\/nothere\nsbatch: error: cli_filter plugin terminated with error\n$/);
  });
});

const LUA_HOOKS = `
function slurm_cli_setup_defaults(options)
  slurm.log_info("setup_defaults early=%s type=%s", tostring(getmetatable(options)._early), options.type)
  return slurm.SUCCESS
end
function slurm_cli_pre_submit(options, offset)
  slurm.log_info("pre_submit %d ntasks=%s time=%s argv=%d", offset, options.ntasks, options.time, #options.argv)
  local n = 0
  for _ in pairs(options) do n = n + 1 end
  slurm.log_info("pairs=%d", n)
  slurm.cli_store(offset, slurm.json_cli_options(options))
  return slurm.SUCCESS
end
function slurm_cli_post_submit(offset, jobid, stepid)
  slurm.log_info("post_submit stepid=%d stored=%s", stepid, slurm.cli_retrieve(offset))
  return slurm.SUCCESS
end
`;

describe("the site's cli_filter.lua", () => {
  withLua('5.1')('runs with the options proxy, the slurm table and cli_store', async () => {
    const s = site('cli_filter/lua', [], LUA_HOOKS);
    const { result } = await run(s, 'sbatch', ['-t', '10', '--wrap', 'true']);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe(
      [
        'sbatch: lua: setup_defaults early=true type=sbatch',
        'sbatch: lua: setup_defaults early=false type=sbatch',
        'sbatch: lua: pre_submit 0 ntasks=1 time=00:10:00 argv=0',
        'sbatch: lua: pairs=0',
        `sbatch: lua: post_submit stepid=${NO_VAL} stored={"time":"00:10:00","wrap":"true","argv":[]}`,
        '',
      ].join('\n'),
    );
    expect(result.client.cliFilter.map((c) => c.hook)).toEqual(['setup_defaults', 'setup_defaults', 'pre_submit', 'post_submit']);
    expect(result.client.cliFilter[2]!.log.map((l) => l.message)).toEqual(['lua: pre_submit 0 ntasks=1 time=00:10:00 argv=0', 'lua: pairs=0']);
  });

  withLua('5.1')('a Lua error is logged and passed over: the job goes without the policy', async () => {
    const s = site(
      'lua',
      [],
      LUA_HOOKS.replace(
        'local n = 0',
        'slurm.log_debug(string.format("account=%s", options.account))\n  options.partition = "big"\n  local n = 0',
      ),
    );
    for (const lua of ['5.1', '5.4'] as const) {
      if (!requireLua && !luaInstalled(lua)) continue;
      const { result } = await run(s, 'srun', ['printenv', 'SLURM_JOB_PARTITION'], {}, { cliFilter: { lua } });
      expect(result.exitCode).toBe(0);
      if (lua === '5.1') {
        // string.format("%s", nil) raises in Lua 5.1: the policy never applies.
        expect(result.stdout).toBe('debug\n');
        expect(result.stderr).toContain(
          `srun: error: cli_filter_p_pre_submit/lua: ${s.dir}/cli_filter.lua: ${s.dir}/cli_filter.lua:8: bad argument #2 to 'format' (string expected, got nil)\n`,
        );
        expect(result.client.problems.map((p) => p.code)).toContain('LUA_ERROR');
      } else {
        expect(result.stdout).toBe('big\n');
        expect(result.client.problems.map((p) => p.code)).not.toContain('LUA_ERROR');
      }
    }
  });

  withLua('5.1')('strict mode fails what Slurm passes over', async () => {
    const s = site('lua', [], LUA_HOOKS.replace('local n = 0', 'options.partition = true\n  local n = 0'));
    const lax = await run(s, 'srun', ['true']);
    expect(lax.result.exitCode).toBe(0);
    expect(lax.result.stderr).toMatch(/bad argument #2 to '\?' \(string expected, got boolean\)|string expected, got boolean/);
    const strict = await run(s, 'srun', ['true'], {}, { cliFilter: { strict: true } });
    expect(strict.result.exitCode).toBe(1);
    expect(strict.result.stderr).toMatch(/srun: error: cli_filter plugin terminated with error\n$/);
    expect(strict.result.client.problems.map((p) => p.code)).toEqual(expect.arrayContaining(['LUA_ERROR', 'CLI_FILTER_STRICT']));
    expect(strict.result.job).toBeUndefined();
  });

  withLua('5.1')('reports hooks declared with parameters Slurm does not pass, and non-numeric results', async () => {
    const s = site(
      'lua',
      [],
      `function slurm_cli_setup_defaults(options, early)
  if early then options.partition = "big" end
end
function slurm_cli_pre_submit(options, offset) return slurm.SUCCESS end
function slurm_cli_post_submit(offset, jobid, stepid) return slurm.SUCCESS end
`,
    );
    const { result } = await run(s, 'srun', ['printenv', 'SLURM_JOB_PARTITION']);
    // early is always nil: the partition stays the default.
    expect(result.stdout).toBe('debug\n');
    expect(result.stderr).toBe(`srun: cli_filter_p_setup_defaults/lua: ${s.dir}/cli_filter.lua: non-numeric return code\n`);
    const arity = result.client.problems.find((p) => p.code === 'LUA_ARITY')!;
    expect(arity).toMatchObject({ file: path.join(s.dir, 'cli_filter.lua'), line: 1 });
    expect(arity.message).toMatch(/getmetatable\(options\)\._early/);
    expect(result.client.problems.map((p) => p.code)).toContain('LUA_NON_NUMERIC_RETURN');
  });

  withLua('5.1')('slurm.ERROR ends the command; a script that does not load stops it', async () => {
    const failing = site('lua', [], LUA_HOOKS.replace('slurm.cli_store(offset, slurm.json_cli_options(options))\n  return slurm.SUCCESS', 'return slurm.ERROR'));
    const refused = await run(failing, 'salloc', ['true']);
    expect(refused.result.exitCode).toBe(1);
    expect(refused.result.stderr).toMatch(/salloc: error: cli_filter plugin terminated with error\n$/);
    expect(refused.result.job).toBeUndefined();

    const incomplete = site('lua', [], 'function slurm_cli_setup_defaults(o) return 0 end\n');
    const r = await run(incomplete, 'srun', ['true']);
    expect(r.result.exitCode).toBe(1);
    const script = path.join(incomplete.dir, 'cli_filter.lua');
    expect(r.result.stderr).toBe(
      [
        `srun: error: cli_filter/lua: ${script}: missing required function slurm_cli_pre_submit`,
        `srun: error: cli_filter/lua: ${script}: missing required function slurm_cli_post_submit`,
        "srun: error: Couldn't load specified plugin name for cli_filter/lua: Plugin init() callback failed",
        'srun: error: cannot create cli_filter context for cli_filter/lua',
        'srun: fatal: failed to initialize cli_filter plugin',
        '',
      ].join('\n'),
    );
    // A top-level return is read with lua_tonumber: a table is 0, 1 fails.
    const returnsTable = site('lua', [], `${LUA_HOOKS}\nreturn { unit = true }\n`);
    expect((await run(returnsTable, 'srun', ['true'])).result.exitCode).toBe(0);
    const returnsOne = site('lua', [], `${LUA_HOOKS}\nreturn 1\n`);
    const one = await run(returnsOne, 'srun', ['true']);
    expect(one.result.exitCode).toBe(1);
    expect(one.result.stderr).toContain(`returned 1 on load`);
  });

  withLua('5.1')('has the slurm table of the emulated release', async () => {
    const s = site(
      'lua',
      [],
      LUA_HOOKS.replace(
        'local n = 0',
        'slurm.log_info("eslurm=%s qos=%s nodes=%s cluster=%s mins=%d,%d", tostring(slurm.ESLURM_INVALID_PARTITION_NAME), tostring(slurm.get_qos_priority), tostring(slurm.ESLURM_INVALID_NODE_COUNT), slurm.CLUSTER_NAME, slurm.time_str2mins("1-00:00:01"), slurm.time_str2mins("bad"))\n  local n = 0',
      ),
    );
    const r2411 = await run(s, 'srun', ['true']);
    expect(r2411.result.stderr).toMatch(/srun: lua: eslurm=2000 qos=function: 0x[0-9a-f]+ nodes=2006 cluster=site mins=1441,-2\n/);
    const r2205 = await run(s, 'srun', ['true'], {}, { slurmVersion: '22.05' });
    // 22.05 sets eight ESLURM_* names, and has no get_qos_priority.
    expect(r2205.result.stderr).toContain('srun: lua: eslurm=nil qos=nil nodes=2006 cluster=site mins=1441,-2\n');
  });

  withLua('5.1')('runs the commands a script calls through io.popen from the PATH it is given', async () => {
    const s = site(
      'lua',
      [],
      LUA_HOOKS.replace(
        'local n = 0',
        'local p = io.popen("sinfo -h -o %P")\n  local parts = p:read("*a")\n  p:close()\n  if parts:find("gpu") then options.partition = "big" end\n  local n = 0',
      ),
    );
    const bin = path.join(s.dir, 'stand-ins');
    fs.mkdirSync(bin);
    writeFile(bin, 'sinfo', '#!/bin/sh\necho debug\necho gpu\n');
    fs.chmodSync(path.join(bin, 'sinfo'), 0o755);
    const { result } = await run(s, 'srun', ['printenv', 'SLURM_JOB_PARTITION'], { PATH: `${bin}:/usr/bin:/bin` });
    expect(result.stdout).toBe('big\n');
  });

  withLua('5.1')('loads the script again when it changes', async () => {
    const s = site(
      'lua',
      [],
      `function slurm_cli_setup_defaults(options)
  slurm.log_info("first version")
  local f = io.open(debug.getinfo(1, "S").source:sub(2), "r")
  local text = f:read("*a")
  f:close()
  f = io.open(debug.getinfo(1, "S").source:sub(2), "w")
  f:write((text:gsub("first version", "second version")))
  f:close()
  os.execute("touch -d '+2 seconds' " .. debug.getinfo(1, "S").source:sub(2))
  return 0
end
function slurm_cli_pre_submit(options, offset) slurm.log_info("pre_submit") return 0 end
function slurm_cli_post_submit(offset, jobid, stepid) return 0 end
`,
    );
    const { result } = await run(s, 'sbatch', ['--wrap', 'true']);
    expect(result.stderr.split('\n').filter((l) => l.includes('version'))).toEqual(['sbatch: lua: first version', 'sbatch: lua: second version']);
  });
});

describe("Slurm's syslog and user_defaults plugins", () => {
  it('syslog: the JSON line post_submit logs', async () => {
    const s = site('syslog', []);
    const { result } = await run(s, 'sbatch', ['-J', 'named', '--wrap', 'true'], { SITE_VAR: 'x', SLURM_HIDDEN: 'y' });
    expect(result.exitCode).toBe(0);
    expect(result.client.syslog).toHaveLength(1);
    const line = result.client.syslog[0]!;
    expect(line).toMatchObject({ plugin: 'cli_filter/syslog', ident: 'slurm/cli_filter/syslog', priority: 'notice' });
    const json = JSON.parse(line.message.slice('post_submit: '.length)) as { jobid: number; stepid: number; options: Record<string, unknown>; env: Record<string, string> };
    expect(json.jobid).toBe(result.job!.jobId);
    expect(json.stepid).toBe(NO_VAL);
    expect(json.options).toEqual({ 'job-name': 'named', wrap: 'true', argv: [] });
    expect(json.env.SITE_VAR).toBe('x');
    expect(json.env.SLURM_HIDDEN).toBeUndefined();
  });

  it('user_defaults: the user file, per command and cluster', async () => {
    const s = site('user_defaults', []);
    const defaults = writeFile(
      s.dir,
      'defaults',
      [
        '# site defaults',
        'partition = big',
        'srun:*:job-name = for-srun',
        'sbatch:site:job-name = for-sbatch',
        // Two parts are cluster:option: "srun" here is a cluster's name.
        'srun:time = 5',
        'sbatch:elsewhere:comment = never',
        '',
      ].join('\n'),
    );
    const opts = { cliFilter: { userDefaults: defaults } };
    const srun = await run(s, 'srun', ['sh', '-c', 'echo $SLURM_JOB_PARTITION $SLURM_JOB_NAME'], {}, opts);
    expect(srun.result.stdout).toBe('big for-srun\n');
    const sbatch = await run(s, 'sbatch', ['-p', 'debug', '--wrap', 'true'], {}, opts);
    expect(sbatch.result.exitCode).toBe(0);
    expect(sbatch.result.client.cliFilter[1]!.after).toEqual({ partition: 'big', 'job-name': 'for-sbatch', wrap: 'true' });
    // What the user typed wins over the defaults.
    expect(sbatch.result.client.cliFilter.find((c) => c.hook === 'pre_submit')!.before).toMatchObject({ partition: 'debug' });
  });
});

describe('check with a slurm.conf', () => {
  it('loads the cli_filter plugins as srun, sbatch and salloc do, cli_filter.lua included', async () => {
    const s = site('cli_filter/probe,lua,nothere', [probe()], 'function slurm_cli_setup_defaults(options, early) return 0 end\n');
    const stack = await Plugstack.load(undefined, { slurmConf: s.slurmConf });
    const report = await stack.check({ context: 'local' });
    expect(report.ok).toBe(false);
    const cf = report.cliFilter!;
    expect(cf.commands).toEqual(['srun', 'sbatch', 'salloc']);
    // cli_filter_init stops at the first plugin that fails: lua's script lacks two functions.
    expect(cf.plugins.map((p) => [p.type, p.loaded, p.code])).toEqual([
      ['cli_filter/probe', true, undefined],
      ['cli_filter/lua', false, 'LUA_SCRIPT_FAILED'],
    ]);
    expect(cf.plugins[0]!.path).toBe(path.join(probe(), 'cli_filter_probe.so'));
    expect(cf.problems.map((p) => [p.severity, p.code, p.line])).toEqual([['error', 'LUA_SCRIPT_FAILED', 3]]);
    expect(cf.log.map((l) => l.message)).toContain(`cli_filter/lua: ${s.dir}/cli_filter.lua: missing required function slurm_cli_pre_submit`);
  });
});

describe('the command line', () => {
  const bin = path.join(repoRoot, 'bin', 'plugstack.cjs');
  const plugstack = (args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string) =>
    spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd, env: { PATH: '/usr/bin:/bin', ...env } });

  withLua('5.1')('cc --slurm-version 24.11.6 records that micro release; run takes --slurm-conf, SLURM_CONF and --strict', async () => {
    const dir = tempDir('plugstack-cf-cli-');
    const built = plugstack(['cc', '--slurm-version', '24.11.6', path.join(fixturesDir, 'cli_filter_probe.c'), '-o', path.join(dir, 'cli_filter_probe.so')]);
    expect(built.status).toBe(0);
    expect(built.stdout).toContain('-DSLURM_VERSION_NUMBER=0x180b06');
    const s = site('probe', [dir], LUA_HOOKS);
    const log = path.join(s.dir, 'cli.log');
    const refused = plugstack(['run', '--slurm-conf', s.slurmConf, 'true'], { PROBE_LOG: log }, s.dir);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('srun: fatal: failed to initialize cli_filter plugin');
    const ran = plugstack(['run', '--slurm-version', '24.11.6', 'sh', '-c', 'echo $SLURM_JOB_NAME'], { PROBE_LOG: log, SLURM_CONF: s.slurmConf, PROBE_SET_SETUP: 'job-name=named' }, s.dir);
    expect(ran.stderr).toBe('');
    expect(ran.stdout).toBe('named\n');
    expect(ran.status).toBe(0);
    // --strict: an options[...] = that sets nothing fails pre_submit.
    writeFile(s.dir, 'slurm.conf', fs.readFileSync(s.slurmConf, 'utf8').replace('CliFilterPlugins=probe', 'CliFilterPlugins=lua'));
    writeFile(s.dir, 'cli_filter.lua', LUA_HOOKS.replace('local n = 0', 'options.nosuchoption = "1"\n  local n = 0'));
    const lax = plugstack(['run', '--slurm-conf', s.slurmConf, 'true'], {}, s.dir);
    expect(lax.status).toBe(0);
    const strict = plugstack(['run', '--slurm-conf', s.slurmConf, '--strict', 'true'], {}, s.dir);
    expect(strict.status).toBe(1);
    expect(strict.stderr).toMatch(/srun: error: cli_filter plugin terminated with error\n$/);
  });
});
