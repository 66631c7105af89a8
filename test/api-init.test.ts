/**
 * What a plugin sees through the API from slurm_spank_init in each context
 * that runs it (spank-facts §2e, §2g, §2h, §2j; real-slurm-22.05.md §2
 * "Items"): items and their error codes, context queries, strerror texts,
 * the job environment calls and the job-control environment.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SpankContext } from '../lib/spank.js';
import { compilePlugin, readLog, tempDir } from './helpers/plugins.js';
import { checkContext } from './helpers/stack.js';

async function probeInit(context: SpankContext, slurmVersion = '24.11'): Promise<Map<string, string>> {
  const dir = tempDir();
  const log = path.join(dir, 'probe.log');
  const so = compilePlugin('init_probe.c', slurmVersion === '22.05' ? { defines: { PROBE_VERSION: 0x160508 } } : {});
  const r = await checkContext([`required ${so}`], context, { env: { PROBE_LOG: log }, slurmVersion });
  expect(r.ok, JSON.stringify(r.problems)).toBe(true);
  const lines = readLog(log);
  expect(lines.at(-1)).toBe('end');
  const map = new Map<string, string>();
  for (const l of lines) {
    const parts = l.split(' ');
    const key = parts[0] === 'item' || parts[0] === 'jc' ? `${parts[0]} ${parts[1]}` : parts[0]!;
    const value = parts.slice(parts[0] === 'item' || parts[0] === 'jc' ? 2 : 1).join(' ');
    map.set(key, value);
  }
  return map;
}

const rc = (m: Map<string, string>, item: string) => m.get(`item ${item}`)!.split(' ')[0];
const LOCAL_SET = ['S_JOB_UID', 'S_JOB_GID', 'S_JOB_ID', 'S_JOB_STEPID', 'S_JOB_NNODES', 'S_JOB_TOTAL_TASK_COUNT', 'S_JOB_ARGV', 'S_JOB_ENV'];
const REMOTE_ONLY = [
  'S_JOB_NODEID', 'S_JOB_LOCAL_TASK_COUNT', 'S_JOB_NCPUS', 'S_TASK_ID', 'S_TASK_GLOBAL_ID', 'S_TASK_EXIT_STATUS',
  'S_TASK_PID', 'S_JOB_PID_TO_GLOBAL_ID', 'S_JOB_PID_TO_LOCAL_ID', 'S_JOB_LOCAL_TO_GLOBAL_ID', 'S_JOB_GLOBAL_TO_LOCAL_ID',
  'S_JOB_SUPPLEMENTARY_GIDS', 'S_STEP_CPUS_PER_TASK', 'S_JOB_ALLOC_CORES', 'S_JOB_ALLOC_MEM', 'S_STEP_ALLOC_CORES',
  'S_STEP_ALLOC_MEM', 'S_SLURM_RESTART_COUNT', 'S_JOB_ARRAY_ID', 'S_JOB_ARRAY_TASK_ID',
];
const VERSIONS = ['S_SLURM_VERSION', 'S_SLURM_VERSION_MAJOR', 'S_SLURM_VERSION_MINOR', 'S_SLURM_VERSION_MICRO'];

describe('slurm_spank_init in local context (srun)', () => {
  it('answers NOT_AVAIL for the local items (no job yet) and NOT_REMOTE for the rest', async () => {
    const m = await probeInit('local');
    expect(m.get('context')).toBe('1');
    expect(m.get('remote')).toBe('0 -1');
    for (const item of LOCAL_SET) expect(rc(m, item), item).toBe('3009');
    for (const item of REMOTE_ONLY) expect(rc(m, item), item).toBe('3006');
    expect(VERSIONS.map((v) => m.get(`item ${v}`))).toEqual(['0 24.11.5', '0 24', '0 11', '0 5']);
    expect(rc(m, '99')).toBe('3006');
    expect(m.get('item null-handle')).toBe('3001');
    expect(m.get('getenv')).toBe('3006');
    expect(m.get('setenv')).toBe('3006');
    expect(m.get('getopt')).toBe('3009');
  });

  it('keeps the job-control environment with Slurm’s overwrite and NOSPACE rules', async () => {
    const m = await probeInit('local');
    expect([...m].filter(([k]) => k.startsWith('jc ')).map(([k, v]) => `${k.slice(3)} ${v}`)).toEqual([
      'set 0',
      'set-keep 0',
      'get 0 first',
      'get-short 3005 fi',
      'get-zero 3001',
      'set-eq 3001',
      'set-empty 3001',
      'unset 0',
      'unset-missing 0',
      'get-missing 3004',
    ]);
  });

  it('knows the twelve callback names and Slurm’s error texts', async () => {
    const m = await probeInit('local');
    expect(m.get('supported')).toBe('1 0 0 -1');
    expect(m.get('strerror')).toBe(
      'Valid only in remote context|No error|Unspecified error|Unknown error 3011|Unknown negative error number',
    );
  });
});

describe('slurm_spank_init in allocator context (sbatch, salloc)', () => {
  it('answers NOT_AVAIL for UID/GID, BAD_ARG for the rest of the local set, NOT_REMOTE otherwise', async () => {
    const m = await probeInit('allocator');
    expect(m.get('context')).toBe('3');
    expect(rc(m, 'S_JOB_UID')).toBe('3009');
    expect(rc(m, 'S_JOB_GID')).toBe('3009');
    for (const item of LOCAL_SET.slice(2)) expect(rc(m, item), item).toBe('3001');
    for (const item of REMOTE_ONLY) expect(rc(m, item), item).toBe('3006');
    expect(m.get('jc get')).toBe('0 first');
  });
});

describe('slurm_spank_init in remote context (slurmstepd)', () => {
  it('reads the step record; task items are NOT_TASK outside a task', async () => {
    const m = await probeInit('remote');
    expect(m.get('context')).toBe('2');
    expect(m.get('remote')).toBe('1 -1');
    expect(m.get('item S_JOB_UID')).toBe(`0 ${process.getuid!()}`);
    expect(m.get('item S_JOB_ID')).toBe('0 1');
    expect(m.get('item S_JOB_STEPID')).toBe('0 0');
    expect(m.get('item S_JOB_NNODES')).toBe('0 1');
    expect(m.get('item S_JOB_LOCAL_TASK_COUNT')).toBe('0 1');
    expect(m.get('item S_JOB_ARGV')).toBe('0 1 /bin/true');
    expect(m.get('item S_JOB_ENV')).toBe('0 array');
    expect(m.get('item S_TASK_ID')).toBe('3002 -1');
    expect(m.get('item S_TASK_GLOBAL_ID')).toBe('3002 7');
    expect(m.get('item S_TASK_PID')).toBe('3002 0');
    expect(m.get('item S_JOB_PID_TO_GLOBAL_ID')).toBe('3008 4294967295');
    expect(m.get('item S_JOB_LOCAL_TO_GLOBAL_ID')).toBe('0 0');
    expect(m.get('item S_SLURM_RESTART_COUNT')).toBe('0 0');
    expect(m.get('item S_JOB_ARRAY_TASK_ID')).toBe('0 4294967294');
    expect(rc(m, '99')).toBe('3001');
    expect(m.get('getenv')).toBe('3004');
    expect(m.get('setenv')).toBe('0');
    expect(m.get('getopt')).toBe('3009');
    expect([...m].filter(([k]) => k.startsWith('jc ')).every(([, v]) => v.startsWith('3010'))).toBe(true);
  });
});

describe('slurm_spank_init in slurmd context', () => {
  it('answers NOT_AVAIL for every item but the versions', async () => {
    const m = await probeInit('slurmd');
    expect(m.get('context')).toBe('4');
    for (const item of [...LOCAL_SET, ...REMOTE_ONLY, '99']) expect(rc(m, item), item).toBe('3009');
    expect(rc(m, 'S_SLURM_VERSION')).toBe('0');
    expect(m.get('getenv')).toBe('3006');
    expect(m.get('jc set')).toBe('3009');
  });
});

describe('emulating Slurm 22.05', () => {
  it('reports 22.05.8, with the minor version keeping its leading zero', async () => {
    const m = await probeInit('remote', '22.05');
    expect(VERSIONS.map((v) => m.get(`item ${v}`))).toEqual(['0 22.05.8', '0 22', '0 05', '0 8']);
  });
});
