/**
 * The shipped binaries (plugstack's own mpi plugins among them) load where
 * Slurm runs: no glibc symbol version newer
 * than GLIBC_2.28 (RHEL 8), and nothing from the C++ runtime (libstdc++,
 * libgcc_s) needed at run time. Read from the built files with objdump, as
 * the dynamic loader reads them. test/old-glibc.test.ts runs them on an
 * older glibc.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nativeFiles } from './helpers/native-files.js';

const FLOOR = [2, 28];

function versionsOf(file: string): { symbol: string; version: string }[] {
  const out = execFileSync('objdump', ['-T', file], { encoding: 'utf8' });
  const found: { symbol: string; version: string }[] = [];
  for (const line of out.split('\n')) {
    const m = /\s\(?([A-Z]+_[0-9.]+)\)?\s+(\S+)\s*$/.exec(line);
    if (m) found.push({ version: m[1]!, symbol: m[2]! });
  }
  return found;
}

function needed(file: string): string[] {
  const out = execFileSync('objdump', ['-p', file], { encoding: 'utf8' });
  return [...out.matchAll(/^\s*NEEDED\s+(\S+)/gm)].map((m) => m[1]!);
}

function newerThanFloor(version: string): boolean {
  const m = /^GLIBC_(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > FLOOR[0]! || (major === FLOOR[0] && minor > FLOOR[1]!);
}

const files = nativeFiles();
// plugstack's own mpi plugins, shipped beside plugstack-host.
const mpiDir = [path.join(files.dir, 'mpi'), path.join(files.dir, 'bin', 'mpi')].find((d) => fs.existsSync(d)) ?? path.join(files.dir, 'mpi');

describe.each([
  ['the addon', files.addon],
  ['libslurmhost.so', files.library],
  ['plugstack-host', files.host],
  // (mpi_none.so, stubs, needs nothing of glibc at all.)
  ['mpi/mpi_pmi2.so', path.join(mpiDir, 'mpi_pmi2.so')],
  ['job_container/job_container_tmpfs.so', path.join(path.dirname(mpiDir), 'job_container', 'job_container_tmpfs.so')],
])('%s', (_name, file) => {
  it(`needs no glibc symbol newer than GLIBC_${FLOOR.join('.')}`, () => {
    const versions = versionsOf(file);
    // The file was read: every one of them needs something of glibc.
    expect(versions.some((v) => v.version.startsWith('GLIBC_'))).toBe(true);
    const newer = versions.filter((v) => newerThanFloor(v.version)).map((v) => `${v.symbol}@${v.version}`);
    expect(newer, `${path.basename(file)} needs a newer glibc`).toEqual([]);
  });

  it('needs nothing of the C++ runtime', () => {
    const cxx = versionsOf(file).filter((v) => /^(GLIBCXX|CXXABI|GCC)_/.test(v.version)).map((v) => `${v.symbol}@${v.version}`);
    expect(cxx).toEqual([]);
    expect(needed(file).filter((n) => /^lib(stdc\+\+|gcc_s)\./.test(n))).toEqual([]);
  });
});

it('names the libc in the prebuilt addon (prebuildify --tag-libc)', () => {
  if (!files.addon.includes(`${path.sep}prebuilds${path.sep}`)) return expect(path.basename(files.addon)).toBe('plugstack.node');
  expect(path.basename(files.addon)).toBe('plugstack.glibc.node');
});
