/**
 * cli_filter against Debian's real Slurm 22.05 clients (issue 11): a
 * client-side copy of the cluster's slurm.conf names two cli_filter
 * plugins, the probe (a C plugin built against plugstack's own header for
 * 22.05.8; the real srun, sbatch and salloc load it as they load any
 * plugin) and Slurm's cli_filter/lua with a cli_filter.lua beside the copy.
 * The same commands run on the real cluster and on plugstack; the probe's
 * record (hook order, what slurm_option_get/isset answer, what set and
 * reset return), the script's log lines, what pre_submit's changes did to
 * the job, and the exit status must be the same.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../../lib/plugstack.js';
import { compilePlugin, readLog, repoRoot, tempDir } from '../helpers/plugins.js';
import { cluster, releases, SLURM_CONF } from './run.js';

const DEBIAN_PLUGINS = '/usr/lib/x86_64-linux-gnu/slurm-wlm';

const SCRIPT = `
function slurm_cli_setup_defaults(options)
  slurm.log_info("setup_defaults early=%s type=%s", tostring(getmetatable(options)._early), options.type)
  options["job-name"] = "site-default"
  return slurm.SUCCESS
end
function slurm_cli_pre_submit(options, offset)
  slurm.log_info("pre_submit %d ntasks=%s nodes=%s time=%s name=%s", offset, options.ntasks, options.nodes, options.time, options["job-name"])
  if os.getenv("LUA_REFUSE") then
    slurm.log_error("refused by policy")
    return slurm.ERROR
  end
  if os.getenv("LUA_BAD") then options.partition = true end
  return slurm.SUCCESS
end
function slurm_cli_post_submit(offset, jobid, stepid)
  slurm.log_info("post_submit %d stepid=%d", offset, stepid)
  return slurm.SUCCESS
end
`;

interface Observed {
  exitCode: number;
  probe: string[];
  lua: string[];
  output: string;
}

/** A client-side slurm.conf with the two cli_filter plugins, and cli_filter.lua beside it. */
function clientSite(): { dir: string; conf: string; plugstackConf: string } {
  const probe = path.dirname(compilePlugin('cli_filter_probe.c', { defines: { SLURM_VERSION_NUMBER: 0x160508 }, name: 'cli_filter_probe.so' }));
  const dir = tempDir('conformance-cf-');
  fs.chmodSync(dir, 0o777);
  const cluster = fs
    .readFileSync(SLURM_CONF, 'utf8')
    .split('\n')
    .filter((l) => !/^(PluginDir|CliFilterPlugins)=/i.test(l));
  const conf = path.join(dir, 'slurm.conf');
  fs.writeFileSync(conf, [...cluster, `PluginDir=${DEBIAN_PLUGINS}:${probe}`, 'CliFilterPlugins=cli_filter/probe,cli_filter/lua', ''].join('\n'));
  fs.writeFileSync(path.join(dir, 'cli_filter.lua'), SCRIPT);
  const plugstackConf = path.join(dir, 'plugstack.conf');
  fs.writeFileSync(plugstackConf, '');
  return { dir, conf, plugstackConf };
}

function observe(exitCode: number, stdout: string, stderr: string, log: string): Observed {
  return {
    exitCode,
    probe: fs.existsSync(log) ? readLog(log) : [],
    // The script's lines and cli_filter's own; job ids differ.
    lua: stderr
      .split('\n')
      .filter((l) => /lua|cli_filter/.test(l))
      .map((l) => l.replace(/\d{3,}/g, 'N')),
    output: stdout.replace(/job \d+/g, 'job N').replace(/\d{3,}/g, 'N'),
  };
}

/**
 * Runs the command on the real cluster and on plugstack. With spank, the
 * clients also load the SPANK trace plugin (built against Debian's header
 * for the real ones, ours for plugstack), logging into the probe's file:
 * the client's SPANK callbacks and cli_filter hooks in one sequence.
 */
async function both(
  command: 'srun' | 'sbatch' | 'salloc',
  args: string[],
  env: Record<string, string> = {},
  spank = false,
): Promise<{ real: Observed; ours: Observed }> {
  const site = clientSite();
  const base = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', HOME: site.dir, SLURM_CONF: site.conf, ...env };
  cluster('22.05').verb('resume');
  const realLog = path.join(site.dir, 'real.log');
  const oursLog = path.join(site.dir, 'ours.log');
  let oursConf = site.plugstackConf;
  if (spank) {
    const realConf = path.join(site.dir, 'real-plugstack.conf');
    fs.writeFileSync(realConf, `required ${compilePlugin('trace.c', { include: '/usr/include' })} log=${realLog}\n`);
    fs.appendFileSync(site.conf, `PlugStackConfig=${realConf}\n`);
    oursConf = path.join(site.dir, 'ours-plugstack.conf');
    fs.writeFileSync(oursConf, `required ${compilePlugin('trace.c', { defines: { PLUGIN_VERSION: 0x160508 } })} log=${oursLog}\n`);
  }
  const r = spawnSync(command, args, { cwd: site.dir, env: { ...base, PROBE_LOG: realLog }, encoding: 'utf8', timeout: 60_000 });
  const real = observe(r.status ?? 128, r.stdout, r.stderr, realLog);
  const stack = await Plugstack.load(oursConf, { slurmConf: site.conf, slurmVersion: '22.05' });
  const result = await stack[command]({ args, cwd: site.dir, env: { ...base, PROBE_LOG: oursLog } });
  const ours = observe(result.exitCode, result.stdout, result.stderr, oursLog);
  return { real, ours };
}

/** The client process's sequence: cli_filter hooks (the probe) and SPANK callbacks in local or allocator context. */
function clientSequence(o: Observed): string[] {
  const probe = /^(init|setup_defaults|pre_submit|post_submit)( |$)/;
  return o.probe
    .filter((l) => (/ pid=/.test(l) ? / ctx=(1|3) /.test(l) : probe.test(l)))
    .map((l) => (/ pid=/.test(l) ? `spank ${l.split(' ')[0]}` : l));
}

describe.skipIf(!releases().includes('22.05'))('cli_filter plugins: plugstack and the real Slurm 22.05 clients agree', () => {
  for (const [command, args] of [
    ['srun', ['-n', '1', 'true']],
    ['sbatch', ['-W', '--wrap', 'true']],
    ['salloc', ['-n', '1', 'true']],
  ] as const) {
    it(`${command}: the hooks in order with SPANK's callbacks`, async () => {
      const { real, ours } = await both(command, [...args], {}, true);
      expect(clientSequence(real).length).toBeGreaterThan(4);
      expect(clientSequence(ours)).toEqual(clientSequence(real));
    });
  }

  it('srun: the hooks, what they see, and pre_submit changing the step', async () => {
    const { real, ours } = await both('srun', ['-t', '10', 'sh', '-c', 'echo $SLURM_NTASKS $SLURM_JOB_NAME'], {
      PROBE_NAMES: 'ntasks,nodes,time,job-name,partition,wait,pty,exclusive',
      PROBE_SET_PRE: 'ntasks=2;exclusive=user;bogus=1',
      PROBE_NEXT: '1',
    });
    expect(real.output).toBe('2 site-default\n2 site-default\n');
    expect(ours).toEqual(real);
  });

  it('sbatch: two setup_defaults, pre_submit, post_submit with NO_VAL', async () => {
    const { real, ours } = await both('sbatch', ['-W', '--wrap', 'true'], { PROBE_NAMES: 'wrap,nodes,partition,job-name', PROBE_SET_SETUP: 'nodes=1' });
    expect(real.probe.filter((l) => !l.startsWith('get ') && !l.startsWith('set '))).toEqual([
      'init',
      'setup_defaults early=1',
      'setup_defaults early=0',
      'pre_submit offset=0',
      'post_submit J stepid=4294967294 offset=0',
    ]);
    expect(ours).toEqual(real);
  });

  it('salloc, and the srun inside the allocation without setup_defaults', async () => {
    const { real, ours } = await both('salloc', ['-n', '1', 'srun', '-n', '1', 'true'], { PROBE_NAMES: 'ntasks,job-name' });
    expect(ours).toEqual(real);
  });

  it('pre_submit refusing the job', async () => {
    const { real, ours } = await both('sbatch', ['--wrap', 'true'], { LUA_REFUSE: '1' });
    expect(real.exitCode).toBe(1);
    expect(ours).toEqual(real);
  });

  it('a Lua error in pre_submit: logged, and the job goes on', async () => {
    const { real, ours } = await both('srun', ['true'], { LUA_BAD: '1' });
    expect(real.exitCode).toBe(0);
    expect(ours).toEqual(real);
  });

  // The checks the commands share (validate_options_salloc_sbatch_srun) run after pre_submit and
  // read its options: what setup_defaults set counts as given on the command line.
  it('a --mem-per-cpu set in setup_defaults, then --mem: fatal after pre_submit', async () => {
    const { real, ours } = await both('srun', ['--mem=100', 'true'], { PROBE_SET_SETUP: 'mem-per-cpu=10', PROBE_NAMES: 'mem,mem-per-cpu' });
    expect(real.exitCode).toBe(1);
    expect(ours).toEqual(real);
  });

  it('pre_submit resetting --mem-per-cpu lets --mem through', async () => {
    const { real, ours } = await both('srun', ['--mem=100', '--mem-per-cpu=10', 'true'], { PROBE_RESET_PRE: 'mem-per-cpu', PROBE_NAMES: 'mem,mem-per-cpu' });
    expect(real.exitCode).toBe(0);
    expect(ours).toEqual(real);
  });

  it('SLURM_MEM_PER_CPU with --mem: pre_submit still sees both', async () => {
    const { real, ours } = await both('sbatch', ['-W', '--mem=100', '--wrap', 'true'], { SBATCH_MEM_PER_CPU: '10', PROBE_NAMES: 'mem,mem-per-cpu' });
    expect(real.probe).toContain('get mem-per-cpu=10 isset=1');
    expect(ours).toEqual(real);
  });

  it('-m as its getter prints it: set_distribution\'s text, plane=N for a plane', async () => {
    for (const [args, env] of [
      [['-m', '*:fcyclic,nopack', 'true'], {}],
      [['-m', 'plane', 'true'], { SLURM_DIST_PLANESIZE: '3' }],
    ] as [string[], Record<string, string>][]) {
      const { real, ours } = await both('srun', args, { PROBE_NAMES: 'distribution', ...env });
      const seen = (o: Observed) => o.probe.filter((l) => / distribution/.test(l));
      expect(seen(real).length, args.join(' ')).toBeGreaterThan(0);
      expect(seen(ours)).toEqual(seen(real));
    }
  });

  it('every option as srun sees it, unset and after the command line', async () => {
    const names = path.join(tempDir('conformance-cf-names-'), 'names.txt');
    // Every option name of 22.05's table (releases bit 2), from the generated table.
    const table = fs.readFileSync(path.join(repoRoot, 'native', 'core', 'rules', 'builtin_options_table.inc'), 'utf8');
    const list = [...table.matchAll(/^\{"([^"]+)", \d, (?:'.'|0), \d, (\d),/gm)].filter((m) => Number(m[2]) & 2).map((m) => m[1]!);
    // argv's getter crashes the real srun (plugstack answers NULL, with a warning).
    fs.writeFileSync(names, [...new Set(list)].filter((n) => n !== 'argv').join('\n'));
    const { real, ours } = await both('srun', ['-N', '1', '-t', '1-2', '--mem=1024', '-c', '1', '--gres=gpu:0', '-v', 'true'], {
      PROBE_NAMES_FILE: names,
    });
    // The job itself may differ (gres on a cluster without GresTypes): only the hooks are compared.
    const upToSubmit = (o: Observed) => o.probe.filter((l) => !l.startsWith('post_submit'));
    expect(upToSubmit(ours)).toEqual(upToSubmit(real));
  });
});
