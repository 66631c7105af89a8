/**
 * The option checks srun, sbatch and salloc share (Slurm's
 * validate_options_salloc_sbatch_srun, at the start of _opt_verify): after
 * cli_filter's pre_submit, before init_post_opt. The lines and statuses are
 * those the real 22.05 and 24.11 commands gave for the same options
 * (compared by hand; test/conformance/scenarios.ts holds a few).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CommandName, CommandResult } from '../lib/commands/types.js';
import { Plugstack } from '../lib/plugstack.js';
import { compilePlugin, tempDir, writeFile } from './helpers/plugins.js';

type Release = '22.05' | '24.11';
const RELEASES: Release[] = ['22.05', '24.11'];
const COMMANDS: CommandName[] = ['srun', 'sbatch', 'salloc'];
/** The prefix of each command's own option variables. */
const ENV_PREFIX: Record<CommandName, string> = { srun: 'SLURM_', sbatch: 'SBATCH_', salloc: 'SALLOC_' };
const SPEC_NO = "since it's not allowed by configuration (AllowSpecResourcesUsage = No)";

interface Site {
  dir: string;
  slurmConf: string;
  spankLog: string;
}

const PLUGIN_VERSION: Record<Release, number> = { '22.05': 0x160508, '24.11': 0x180b05 };

/** slurm.conf (with extra lines), a plugstack.conf per release with the recorder plugin built for it. */
function site(extra = ''): Site {
  const dir = tempDir('plugstack-checks-');
  const spankLog = path.join(dir, 'spank.log');
  for (const release of RELEASES) {
    const so = compilePlugin('recorder.c', { defines: { PLUGIN_VERSION: PLUGIN_VERSION[release] } });
    writeFile(dir, `plugstack-${release}.conf`, `required ${so} log=${spankLog}\n`);
  }
  const slurmConf = writeFile(dir, 'slurm.conf', ['ClusterName=site', 'NodeName=n[0-1] CPUs=4', 'PartitionName=debug Nodes=n[0-1] Default=YES', extra].join('\n') + '\n');
  return { dir, slurmConf, spankLog };
}

async function run(s: Site, release: Release, command: CommandName, args: string[], env: Record<string, string> = {}): Promise<CommandResult> {
  const stack = await Plugstack.load(path.join(s.dir, `plugstack-${release}.conf`), { slurmConf: s.slurmConf, slurmVersion: release });
  const words = command === 'sbatch' ? [...args, '--wrap', 'true'] : [...args, 'true'];
  const prefixed = Object.fromEntries(Object.entries(env).map(([k, v]) => [ENV_PREFIX[command] + k, v]));
  return stack[command]({ args: words, cwd: s.dir, env: { PATH: '/usr/bin:/bin', HOME: s.dir, ...prefixed } });
}

/** The command's lines from these checks (salloc's allocation lines and the like left out). */
const checkLines = (r: CommandResult) => r.stderr.split('\n').filter((l) => /: (fatal|error): /.test(l));
const spankCalls = (r: CommandResult) => r.client.calls.map((c) => c.hook).filter((h) => h.startsWith('slurm_spank_'));

// [what, options, environment (without the command's prefix), the line, the status] in both releases.
const BOTH: [string, string[], Record<string, string>, string | null, number][] = [
  ['-S on the command line', ['-S', '1'], {}, `error: Ignoring -S ${SPEC_NO}`, 0],
  ['--core-spec=0', ['--core-spec=0'], {}, `error: Ignoring -S ${SPEC_NO}`, 0],
  ['--thread-spec', ['--thread-spec=1'], {}, `error: Ignoring --thread-spec ${SPEC_NO}`, 0],
  ['CORE_SPEC in the environment', [], { CORE_SPEC: '1' }, `error: Ignoring -S ${SPEC_NO}`, 0],
  ['CORE_SPEC, then --thread-spec: the later is named', ['--thread-spec=2'], { CORE_SPEC: '1' }, `error: Ignoring --thread-spec ${SPEC_NO}`, 0],
  ['THREAD_SPEC, then -S', ['-S', '2'], { THREAD_SPEC: '1' }, `error: Ignoring -S ${SPEC_NO}`, 0],
  ['-S and --thread-spec', ['-S', '1', '--thread-spec=1'], {}, 'fatal: -S/--core-spec and --thred-spec options are mutually exclusive', 1],
  [
    'CORE_SPEC and THREAD_SPEC',
    [],
    { CORE_SPEC: '1', THREAD_SPEC: '1' },
    'fatal: Both --core-spec and --thread-spec set using environment variables. Those options are mutually exclusive.',
    1,
  ],
  ['--mem and --mem-per-cpu', ['--mem=100', '--mem-per-cpu=10'], {}, 'fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.', 1],
  ['--mem and --mem-per-gpu', ['--mem=100', '--mem-per-gpu=10'], {}, 'fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.', 1],
  [
    'MEM_PER_CPU and MEM_PER_NODE',
    [],
    { MEM_PER_CPU: '10', MEM_PER_NODE: '100' },
    'fatal: SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU, and SLURM_MEM_PER_NODE are mutually exclusive.',
    1,
  ],
  ['--mem drops MEM_PER_CPU', ['--mem=100'], { MEM_PER_CPU: '10' }, null, 0],
  ['--ntasks-per-gpu=1 and --ntasks-per-tres=2', ['--ntasks-per-gpu=1', '--ntasks-per-tres=2'], {}, 'fatal: Inconsistent values set to --ntasks-per-gpu=1 and --ntasks-per-tres=2 ', 1],
  ['--ntasks-per-gpu and --gpus-per-task', ['--ntasks-per-gpu=1', '--gpus-per-task=1'], {}, 'fatal: --gpus-per-task is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU', 1],
  ['--ntasks-per-gpu and --gpus-per-socket', ['--ntasks-per-gpu=1', '--gpus-per-socket=1'], {}, 'fatal: --gpus-per-socket is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU', 1],
  ['--ntasks-per-tres and --ntasks-per-node', ['--ntasks-per-tres=1', '--ntasks-per-node=1'], {}, 'fatal: --ntasks-per-node is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU', 1],
  ['--ntasks-per-gpu and GPUS_PER_TASK', ['--ntasks-per-gpu=1'], { GPUS_PER_TASK: '1' }, 'fatal: SLURM_GPUS_PER_TASK is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU', 1],
];

// 24.11's further checks; under 22.05 the same options go on (or are not srun's).
const ONLY_2411: [string, string[], string, number][] = [
  ['--exclusive and -s', ['--exclusive', '-s'], 'fatal: --exclusive and --oversubscribe options are mutually exclusive', 1],
  ['--ntasks-per-gpu and --tres-per-task', ['--ntasks-per-gpu=1', '--tres-per-task=gres/gpu:1'], 'fatal: --tres-per-task is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU', 1],
  ['--tres-per-task=mem=1', ['--tres-per-task=mem=1'], 'fatal: Invalid TRES for --tres-per-task: mem', 1],
  ['--tres-per-task=cpu=1,bb=1', ['--tres-per-task=cpu=1,bb=1'], 'fatal: Invalid TRES for --tres-per-task: bb', 1],
  ['--tres-per-task=cpu=2 and -c 2', ['--tres-per-task=cpu=2', '-c', '2'], 'fatal: You can not have --tres-per-task=cpu= and --cpus-per-task please use one or the other', 1],
  ['-c and --cpus-per-gpu', ['-c', '1', '--cpus-per-gpu=1'], 'fatal: --cpus-per-task, --tres-per-task=cpu:#, and --cpus-per-gpu are mutually exclusive', 1],
  ['-m arbitrary with -N', ['-m', 'arbitrary', '-N', '1'], 'error: --nodes is incompatible with --distribution=arbitrary', 1],
];

describe('the option checks srun, sbatch and salloc share', () => {
  for (const release of RELEASES) {
    it.each(BOTH)(`${release}: %s`, async (_what, args, env, line, status) => {
      const s = site();
      for (const command of COMMANDS) {
        const r = await run(s, release, command, args, env);
        expect(checkLines(r), command).toEqual(line ? [`${command}: ${line}`] : []);
        expect(r.exitCode, command).toBe(status);
      }
    });
  }

  it.each(ONLY_2411)('24.11: %s', async (_what, args, line, status) => {
    const s = site();
    for (const command of COMMANDS) {
      const r = await run(s, '24.11', command, args);
      expect(checkLines(r), command).toEqual([`${command}: ${line}`]);
      expect(r.exitCode, command).toBe(status);
    }
  });

  it('--nodefile is read first: a file that is missing, has a line not starting with a letter or digit, or names no host is exit 255', async () => {
    const s = site();
    writeFile(s.dir, 'bad.hosts', 'n0\n-n1\n');
    writeFile(s.dir, 'empty.hosts', '# n0\n\n');
    writeFile(s.dir, 'good.hosts', 'n0 # the first\n');
    const cases: [string, string][] = [
      ['no-such.hosts', 'slurm_allocate_resources error opening file no-such.hosts, No such file or directory'],
      ['bad.hosts', 'Invalid hostfile bad.hosts contents on line 2'],
      ['empty.hosts', 'Hostlist is empty!'],
    ];
    for (const release of RELEASES) {
      for (const command of COMMANDS) {
        for (const [file, why] of cases) {
          const r = await run(s, release, command, [`--nodefile=${file}`]);
          expect(checkLines(r)).toEqual([`${command}: error: ${why}`, `${command}: error: Invalid --nodefile node file`]);
          expect(r.exitCode).toBe(255);
        }
        const good = await run(s, release, command, ['-F', 'good.hosts']);
        expect(checkLines(good)).toEqual([]);
        expect(good.exitCode).toBe(0);
      }
    }
  });

  it("a command's option variable with a value its setter refuses ends the command as on the command line", async () => {
    const s = site();
    const cases: [CommandName, Record<string, string>, string, number][] = [
      ['srun', { TIMELIMIT: 'abc' }, 'srun: error: Invalid --time specification', 255],
      ['srun', { NTASKS: 'abc' }, 'srun: error: Invalid numeric value "abc" for --ntasks.', 1],
      ['srun', { JOB_NUM_NODES: 'abc' }, 'srun: error: "abc" is not a valid node count', 255],
      ['salloc', { MEM_PER_CPU: 'xyz' }, 'salloc: error: Invalid --mem-per-cpu specification', 255],
    ];
    for (const release of RELEASES) {
      for (const [command, env, line, status] of cases) {
        const r = await run(s, release, command, [], env);
        expect(checkLines(r)).toEqual([line]);
        expect(r.exitCode).toBe(status);
        expect(spankCalls(r)).not.toContain('slurm_spank_init_post_opt');
      }
    }
  });

  it("a value an option's setter refuses on the command line ends the command (255), as its variable does; what Slurm takes goes on", async () => {
    const s = site();
    const refused: [CommandName, string[], Record<string, string>, string][] = [
      ['srun', ['--mem=xyz'], {}, 'srun: error: Invalid --mem specification'],
      ['srun', ['--exclusive=bogus'], {}, 'srun: error: Invalid --exclusive specification'],
      ['sbatch', ['--priority=-5'], {}, 'sbatch: error: Priority must be >= 0'],
      ['srun', [], { EXCLUSIVE: 'bogus' }, 'srun: error: Invalid --exclusive specification'],
    ];
    const taken: [CommandName, string[], Record<string, string>][] = [
      ['sbatch', ['--priority=TOP'], {}],
      ['salloc', ['--immediate'], {}],
      ['srun', [], { EXCLUSIVE: '' }],
      ['srun', ['--exclusive=user'], {}],
    ];
    for (const release of RELEASES) {
      for (const [command, args, env, line] of refused) {
        const r = await run(s, release, command, args, env);
        expect(checkLines(r)).toEqual([line]);
        expect(r.exitCode).toBe(255);
      }
      for (const [command, args, env] of taken) {
        const r = await run(s, release, command, args, env);
        expect(checkLines(r), `${command} ${args.join(' ')}`).toEqual([]);
        expect(r.exitCode).toBe(0);
      }
    }
  });

  it('--gres-flags: 22.05 takes one of two words; 24.11 a list, and one-task-per-sharing needs MULTIPLE_SHARING_GRES_PJ and a shared GRES per task', async () => {
    const s = site();
    const cases: [Release, CommandName, string, string | null][] = [
      ['22.05', 'srun', 'enforce-binding', null],
      ['22.05', 'srun', 'disable-binding,enforce-binding', 'srun: error: Invalid --gres-flags specification'],
      ['22.05', 'sbatch', 'one-task-per-sharing', 'sbatch: error: Invalid --gres-flags specification'],
      ['24.11', 'srun', 'Enforce-Binding,,multiple-tasks-per-sharing', null],
      ['24.11', 'salloc', 'bogus,x', 'salloc: error: Invalid --gres-flags specification: bogus'],
      ['24.11', 'srun', 'disable-binding,enforce-binding', 'srun: error: Invalid --gres-flags combo: disable-binding and enforce-binding are mutually exclusive.'],
      ['24.11', 'sbatch', 'allow-task-sharing', 'sbatch: error: --gres-flags=allow-task-sharing is only used with srun.'],
      [
        '24.11',
        'srun',
        'one-task-per-sharing',
        'srun: error: In order to use --gres-flags=one-task-per-sharing you must also have SelectTypeParameters=MULTIPLE_SHARING_GRES_PJ in your slurm.conf',
      ],
    ];
    for (const [release, command, flags, line] of cases) {
      const r = await run(s, release, command, [`--gres-flags=${flags}`]);
      expect(checkLines(r), `${release} ${command} ${flags}`).toEqual(line ? [line] : []);
      expect(r.exitCode).toBe(line ? 255 : 0);
    }
    const sharing = site('SelectTypeParameters=CR_Core,MULTIPLE_SHARING_GRES_PJ');
    const none = await run(sharing, '24.11', 'srun', ['--gres-flags=one-task-per-sharing', '--tres-per-task=gres/gpu:1']);
    expect(checkLines(none)).toEqual(['srun: fatal: --gres-flags=one-task-per-sharing requested, but that shared gres needs to appear in --tres-per-task as well.']);
    expect(none.exitCode).toBe(1);
    const shard = await run(sharing, '24.11', 'srun', ['--gres-flags=one-task-per-sharing', '--tres-per-task=gres/gpu:1,gres/shard:1']);
    expect(checkLines(shard)).toEqual([]);
  });

  it('with -v, the options set once they are checked, as slurm_print_set_options lists them', async () => {
    const s = site();
    for (const release of RELEASES) {
      const r = await run(s, release, 'srun', ['-v', '-n', '2', '-J', 'x', '--mem=100', '-t', '10', '-N', '1']);
      const lines = r.stderr.split('\n');
      const from = lines.indexOf('srun: defined options');
      expect(lines.slice(from, lines.indexOf('srun: end of defined options') + 1)).toEqual([
        'srun: defined options',
        'srun: -------------------- --------------------',
        'srun: job-name            : x',
        'srun: mem                 : 100',
        'srun: nodes               : 1',
        'srun: ntasks              : 2',
        'srun: time                : 00:10:00',
        'srun: verbose             : 1',
        'srun: -------------------- --------------------',
        'srun: end of defined options',
      ]);
      // sbatch's -v counts in its first pass only.
      const b = await run(s, release, 'sbatch', ['-v', '--threads-per-core=1']);
      expect(b.stderr).toContain('sbatch: verbose             : 1\n');
      expect(b.stderr).toContain('sbatch: Setting --cpu-bind=threads as a default of --threads-per-core use\n');
    }
  });

  it('22.05 lets --exclusive go with -s', async () => {
    const r = await run(site(), '22.05', 'srun', ['--exclusive', '-s']);
    expect(checkLines(r)).toEqual([]);
    expect(r.exitCode).toBe(0);
  });

  it('AllowSpecResourcesUsage=YES in slurm.conf lets -S and --thread-spec through; NO is the default', async () => {
    for (const value of ['YES', 'true', '1']) {
      const s = site(`AllowSpecResourcesUsage=${value}`);
      for (const release of RELEASES) {
        const r = await run(s, release, 'srun', ['-S', '1']);
        expect(checkLines(r)).toEqual([]);
        expect(r.exitCode).toBe(0);
      }
    }
    const no = await run(site('AllowSpecResourcesUsage=NO'), '24.11', 'sbatch', ['--thread-spec=1']);
    expect(checkLines(no)).toEqual([`sbatch: error: Ignoring --thread-spec ${SPEC_NO}`]);
  });

  it("24.11's -v line for --mem-per-cpu and --mem-per-gpu when SelectTypeParameters does not make memory consumable", async () => {
    const line = (r: CommandResult) => r.stderr.split('\n').filter((l) => l.includes('Configured SelectTypeParameters'));
    const CPU = "srun: Configured SelectTypeParameters doesn't treat memory as a consumable resource. In this case value of --mem-per-cpu is only used to eliminate nodes with lower configured RealMemory value.";
    const GPU = "sbatch: Configured SelectTypeParameters doesn't treat memory as a consumable resource. In this case value of --mem-per-gpu is ignored.";
    const linear = site('SelectType=select/linear');
    expect(line(await run(linear, '24.11', 'srun', ['-v', '--mem-per-cpu=10']))).toEqual([CPU]);
    expect(line(await run(linear, '24.11', 'sbatch', ['-v', '--mem-per-gpu=10']))).toEqual([GPU]);
    // Without -v, and in 22.05, nothing.
    expect(line(await run(linear, '24.11', 'srun', ['--mem-per-cpu=10']))).toEqual([]);
    expect(line(await run(linear, '22.05', 'srun', ['-v', '--mem-per-cpu=10']))).toEqual([]);
    // cons_tres (Slurm's default SelectType) makes memory consumable unless its parameters say otherwise.
    expect(line(await run(site('SelectType=select/cons_tres'), '24.11', 'srun', ['-v', '--mem-per-cpu=10']))).toEqual([]);
    expect(line(await run(site(''), '24.11', 'srun', ['-v', '--mem-per-cpu=10']))).toEqual([]);
    expect(line(await run(site('SelectTypeParameters=CR_Core'), '24.11', 'srun', ['-v', '--mem-per-cpu=10']))).toEqual([CPU]);
    expect(line(await run(site('SelectType=select/linear\nSelectTypeParameters=CR_cpu_memory'), '24.11', 'srun', ['-v', '--mem-per-cpu=10']))).toEqual([]);
  });

  it('a fatal check ends the command before init_post_opt; exit callbacks run in sbatch and salloc, not srun', async () => {
    for (const release of RELEASES) {
      for (const command of COMMANDS) {
        const s = site();
        const r = await run(s, release, command, ['--mem=1', '--mem-per-cpu=1']);
        expect(r.exitCode).toBe(1);
        const calls = spankCalls(r);
        expect(calls, `${release} ${command}`).not.toContain('slurm_spank_init_post_opt');
        if (command === 'srun') expect(calls).not.toContain('slurm_spank_exit');
        else expect(calls.at(-1)).toBe('slurm_spank_exit');
      }
    }
  });
});
