/**
 * Real MPI programs through plugstack's mpi/pmi2 (issue 12): Debian's
 * MPICH (PMI-1 over PMI_FD) and Slurm's own PMI-2 client library (libpmi2),
 * built at test time, on several emulated nodes: the ranks find each other
 * through the key-value space and the fences across nodes, every rank sees
 * the right rank and size, the result holds each rank's PMI dealings, and
 * the singleton trap (an MPI program started without a PMI) is named.
 *
 * Needs mpicc.mpich (Debian's mpich, libmpich-dev) and libpmi2-0-dev; CI
 * installs them and sets PLUGSTACK_REQUIRE_MPICH=1, which turns a missing
 * one into a failure instead of a skip.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { repoRoot, tempDir, writeFile } from './helpers/plugins.js';

const PROGRAMS = path.join(repoRoot, 'test', 'fixtures', 'programs');
const require = process.env.PLUGSTACK_REQUIRE_MPICH === '1';
const hasMpicc = spawnSync('mpicc.mpich', ['-show'], { stdio: 'ignore' }).status === 0;
const hasPmi2 = fs.existsSync('/usr/include/slurm/pmi2.h');
const withMpich = require || hasMpicc ? describe : describe.skip;
const withPmi2 = require || hasPmi2 ? it : it.skip;

const built = new Map<string, string>();
/** Builds a program of test/fixtures/programs once per test run. */
function program(source: string, compiler: string, libs: string[] = []): string {
  const key = `${source}:${compiler}`;
  if (built.has(key)) return built.get(key)!;
  const out = path.join(tempDir('plugstack-mpich-'), path.basename(source, '.c'));
  execFileSync(compiler, ['-O', '-o', out, path.join(PROGRAMS, source), ...libs], { stdio: 'pipe' });
  built.set(key, out);
  return out;
}

async function stack(release: string): Promise<Plugstack> {
  const dir = tempDir('plugstack-mpich-');
  return Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { slurmVersion: release, pluginDir: [] });
}

const lines = (text: string) => text.split('\n').filter(Boolean).sort();

withMpich('MPICH through --mpi=pmi2', () => {
  describe.each(['24.11', '22.05'])('Slurm %s', (release) => {
    it('runs MPI_Init, an Allreduce and MPI_Finalize on 4 ranks over 2 nodes, each rank with its own rank and the size', async () => {
      const hello = program('mpi_hello.c', 'mpicc.mpich');
      const s = await stack(release);
      const r = await s.srun({ args: ['--mpi=pmi2', '-N', '2', '-n', '4', hello], env: { PATH: '/usr/bin:/bin' } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(lines(r.stdout)).toEqual([0, 1, 2, 3].map((k) => `rank ${k} of 4 sum 10`));
      expect(r.stderr).toBe('');
      const mpi = r.mpi!;
      expect(mpi.type).toBe('pmi2');
      expect(mpi.pluginId).toBe(102);
      expect(mpi.ranks!.map((k) => [k.rank, k.node, k.version, k.connected, k.finalized, k.size])).toEqual([
        [0, 0, '1.1', true, true, 4],
        [1, 0, '1.1', true, true, 4],
        [2, 1, '1.1', true, true, 4],
        [3, 1, '1.1', true, true, 4],
      ]);
      // Each task was handed its PMI socket and identity.
      const task = mpi.calls.find((c) => c.hook === 'slurmstepd_task' && c.task === 3)!;
      expect(task.changes.map((c) => `${c.name}=${c.name === 'PMI_FD' ? 'fd' : c.value}`)).toEqual([
        'PMI_FD=fd',
        `PMI_JOBID=${r.job!.jobId}.0`,
        'PMI_RANK=3',
        'PMI_SIZE=4',
      ]);
      // srun's variables for the nodes' servers never reach the tasks.
      expect(mpi.calls.find((c) => c.hook === 'slurmstepd_prefork')!.changes.map((c) => `${c.op}:${c.name}`)).toEqual([
        'unset:SLURM_PMI2_PROC_MAPPING',
        'unset:SLURM_PMI2_SRUN_PORT',
        'unset:SLURM_PMI2_STEP_NODES',
      ]);
      expect(r.steps[0]!.problems).toEqual([]);
    });
  });

  it('keeps each rank\'s PMI conversation on request: MPICH\'s PMI-1, with the mapping of an uneven layout', async () => {
    const hello = program('mpi_hello.c', 'mpicc.mpich');
    const s = await stack('24.11');
    const r = await s.srun({ args: ['--mpi=pmi2', '-N', '2', '-n', '5', hello], env: { PATH: '/usr/bin:/bin' }, pmiTrace: true });
    expect(r.exitCode, r.stderr).toBe(0);
    const talk = r.mpi!.ranks![4]!.lines!.map((l) => `${l.from === 'rank' ? '->' : '<-'} ${l.text}`);
    const jobStep = `${r.job!.jobId}.0`;
    expect(talk.slice(0, 10)).toEqual([
      '-> cmd=init pmi_version=1 pmi_subversion=1',
      '<- cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1',
      '-> cmd=get_maxes',
      '<- cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024',
      '-> cmd=get_appnum',
      '<- cmd=appnum rc=0 appnum=-1',
      '-> cmd=get_my_kvsname',
      `<- cmd=my_kvsname rc=0 kvsname=${jobStep}`,
      `-> cmd=get kvsname=${jobStep} key=PMI_process_mapping`,
      '<- cmd=get_result rc=0 value=(vector,(0,1,3),(1,1,2))',
    ]);
    expect(talk.slice(-2)).toEqual(['-> cmd=finalize', '<- cmd=finalize_ack rc=0']);
    expect(talk.filter((l) => l === '-> cmd=barrier_in')).toHaveLength(talk.filter((l) => l === '<- cmd=barrier_out rc=0').length);
  });

  withPmi2("serves PMI-2 to Slurm's own libpmi2: fullinit, kvs-put, kvs-fence across nodes, kvs-get, job attributes", async () => {
    const kvs = program('pmi2_kvs.c', 'cc', ['-lpmi2']);
    const s = await stack('24.11');
    const r = await s.srun({ args: ['--mpi=pmi2', '-N', '2', '-n', '3', kvs], env: { PATH: '/usr/bin:/bin' } });
    expect(r.exitCode, r.stderr).toBe(0);
    const jobStep = `${r.job!.jobId}.0`;
    expect(lines(r.stdout)).toEqual(
      [0, 1, 2].map((k) => `rank ${k} of 3 jobid ${jobStep} mapping (vector,(0,1,2),(1,1,1)) appnum -1: value-of-0 value-of-1 value-of-2`),
    );
    expect(r.mpi!.ranks!.map((k) => [k.version, k.finalized])).toEqual([
      ['2.0', true],
      ['2.0', true],
      ['2.0', true],
    ]);
  });

  it('ends every task of every node when a rank calls MPI_Abort', async () => {
    const hello = program('mpi_hello.c', 'mpicc.mpich');
    const s = await stack('24.11');
    const r = await s.srun({ args: ['--mpi=pmi2', '-N', '2', '-n', '3', hello, 'abort'], env: { PATH: '/usr/bin:/bin' }, timeoutMs: 30_000 });
    expect(r.exitCode).toBe(137);
    expect(r.steps[0]!.tasks.map((t) => t.signal)).toEqual(['SIGKILL', 'SIGKILL', 'SIGKILL']);
    expect(r.mpi!.ranks!.find((k) => k.aborted)).toMatchObject({ rank: 1, exitCode: 3 });
  });

  describe('the singleton trap', () => {
    it('names N ranks that each start as rank 0 of 1 (no PMI: --mpi=none)', async () => {
      const hello = program('mpi_hello.c', 'mpicc.mpich');
      for (const release of ['24.11', '22.05']) {
        const s = await stack(release);
        const r = await s.srun({ args: ['-n', '2', hello], env: { PATH: '/usr/bin:/bin' } });
        // Slurm sees nothing wrong.
        expect(r.exitCode).toBe(0);
        expect(lines(r.stdout)).toEqual(['rank 0 of 1 sum 1', 'rank 0 of 1 sum 1']);
        const p = r.steps[0]!.problems.find((x) => x.code === 'MPI_SINGLETONS')!;
        expect(p.severity).toBe('error');
        expect(p.message).toContain('links libmpich.so.12 (MPICH)');
        expect(p.message).toContain('each of the 2 tasks started as a singleton, rank 0 of 1');
      }
    });

    it('names the ranks that never spoke to the PMI server while others did', async () => {
      const s = await stack('24.11');
      // Rank 0 speaks PMI-1 on its PMI_FD (init, finalize); rank 1 never does.
      const speak =
        'if [ "$SLURM_PROCID" = 0 ]; then printf "cmd=init pmi_version=1 pmi_subversion=1\\n" >&$PMI_FD; read -r a <&$PMI_FD; ' +
        'printf "cmd=finalize\\n" >&$PMI_FD; read -r b <&$PMI_FD; echo "$a|$b"; fi';
      const r = await s.srun({ args: ['--mpi=pmi2', '-n', '3', 'bash', '-c', speak], env: { PATH: '/usr/bin:/bin' } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe('cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1|cmd=finalize_ack rc=0\n');
      const p = r.steps[0]!.problems.find((x) => x.code === 'MPI_SINGLETONS')!;
      expect(p.message).toMatch(/^ranks 1-2 of 3 never spoke to the PMI server while ranks 0 did/);
      expect(r.mpi!.ranks!.map((k) => k.connected)).toEqual([true, false, false]);
    });
  });
});
