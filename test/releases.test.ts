/**
 * What differs between the emulated Slurm releases is declared once
 * (native/core/rules/releases.json): one table per concern, one row per
 * release, generated into the C++ core (rules/releases.h) and TypeScript
 * (lib/releases.generated.ts). These tests hold the declaration to that:
 * both sides are current, every table has a row for every release, the
 * native side knows exactly the releases TypeScript knows, and the Python
 * generators of the option and API tables read the same list.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mpiDefault } from '../lib/mpi/settings.js';
import { native } from '../lib/native/binding.js';
import { DEFAULT_RELEASE, RELEASE_RULES, RELEASE_SOURCE, SLURM_RELEASES, releaseOf, releaseRules } from '../lib/releases.generated.js';
import { repoRoot, tempDir } from './helpers/plugins.js';

const catalogueFile = path.join(repoRoot, 'native', 'core', 'rules', 'releases.json');
const catalogue = JSON.parse(fs.readFileSync(catalogueFile, 'utf8')) as {
  default: string;
  releases: Record<string, { micro: number; tag: string }>;
  tables: Record<string, { fields: Record<string, { type: string; sides?: string[] }>; rows: Record<string, Record<string, unknown>> }>;
};

describe('release tables', () => {
  it('generates both sides from releases.json, and they are current', () => {
    expect(() => execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'gen-releases.mjs'), '--check'], { stdio: 'pipe' })).not.toThrow();
  });

  it('has a row for every release in every table, and no inline release test is left in the core', () => {
    for (const [name, table] of Object.entries(catalogue.tables))
      expect(Object.keys(table.rows).sort(), name).toEqual(Object.keys(catalogue.releases).sort());
    // The C++ core compares no release numbers itself: it reads the tables.
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.(cc|h)$/.test(e.name) && /\.line\(\)|version\(\)\.minor|version\(\)\.major/.test(fs.readFileSync(p, 'utf8'))) offenders.push(path.relative(repoRoot, p));
      }
    };
    walk(path.join(repoRoot, 'native', 'core'));
    expect(offenders).toEqual([]);
  });

  it('gives TypeScript the releases, default and micro releases the native core parses', () => {
    expect([...SLURM_RELEASES]).toEqual(Object.keys(catalogue.releases));
    expect(DEFAULT_RELEASE).toBe(catalogue.default);
    for (const r of SLURM_RELEASES) {
      const parsed = native().slurmVersion(r);
      expect(parsed?.text).toBe(`${r}.${RELEASE_SOURCE[r].micro}`);
      expect(releaseOf(`${r}.${RELEASE_SOURCE[r].micro}`)).toBe(r);
    }
    expect(native().slurmVersion('23.02')).toBeNull();
    expect(() => releaseOf('23.02')).toThrow(/not a release plugstack emulates/);
  });

  it('carries only the fields each side is declared to need', () => {
    for (const [name, table] of Object.entries(catalogue.tables)) {
      const tsFields = Object.entries(table.fields)
        .filter(([, f]) => (f.sides ?? ['cc', 'ts']).includes('ts'))
        .map(([f]) => f)
        .sort();
      const row = (RELEASE_RULES[DEFAULT_RELEASE] as unknown as Record<string, Record<string, unknown>>)[name];
      if (tsFields.length) expect(Object.keys(row!).sort(), name).toEqual(tsFields);
      else expect(row, name).toBeUndefined();
    }
    const header = fs.readFileSync(path.join(repoRoot, 'native', 'core', 'rules', 'releases.h'), 'utf8');
    expect(header).toContain('bool failureMarksTask;');
    expect(header).not.toContain('userInitFailedJobState');
  });

  it('reads MpiDefault by the table of each release', () => {
    expect(mpiDefault(undefined, '22.05')).toBe('none');
    expect(mpiDefault('openmpi', '22.05.8')).toBe('none');
    expect(mpiDefault('pmi2', '22.05')).toBe('pmi2');
    expect(mpiDefault(undefined, '24.11')).toBeUndefined();
    expect(mpiDefault('OpenMPI', '24.11.5')).toBeUndefined();
    expect(mpiDefault('pmi2', '24.11')).toBe('pmi2');
    expect(releaseRules('22.05').identity.protocolVersion).toBe((38 << 8) | 0);
    expect(releaseRules('24.11').identity.protocolVersion).toBe((42 << 8) | 0);
  });

  it('gives the Python generators the same releases and bits (1 << index)', () => {
    const out = execFileSync('python3', ['-c', 'from releases import RELEASES; import json; print(json.dumps(RELEASES))'], {
      cwd: path.join(repoRoot, 'scripts'),
      encoding: 'utf8',
    });
    expect(JSON.parse(out)).toEqual(SLURM_RELEASES.map((r, i) => [r, RELEASE_SOURCE[r].tag, 1 << i]));
  });

  it('refuses a catalogue with a table missing a release row', () => {
    const dir = tempDir('plugstack-releases-');
    try {
      // A copy of the generator beside a broken catalogue, in the same layout.
      fs.mkdirSync(path.join(dir, 'scripts'));
      fs.mkdirSync(path.join(dir, 'native', 'core', 'rules'), { recursive: true });
      fs.mkdirSync(path.join(dir, 'lib'));
      fs.copyFileSync(path.join(repoRoot, 'scripts', 'gen-releases.mjs'), path.join(dir, 'scripts', 'gen-releases.mjs'));
      const broken = structuredClone(catalogue);
      broken.releases['25.05'] = { micro: 1, tag: 'slurm-25-05-1-1' };
      fs.writeFileSync(path.join(dir, 'native', 'core', 'rules', 'releases.json'), JSON.stringify(broken));
      let stderr = '';
      try {
        execFileSync(process.execPath, [path.join(dir, 'scripts', 'gen-releases.mjs')], { stdio: 'pipe' });
      } catch (e) {
        stderr = String((e as { stderr: Buffer }).stderr);
      }
      expect(stderr).toMatch(/table identity has no row for 25\.05/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
