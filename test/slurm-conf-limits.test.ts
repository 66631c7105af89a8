/**
 * slurm.conf inputs that must not hurt the process reading it (the parser
 * runs inside Node through the addon): include loops, includes that fan
 * out, and files full of problems. Found by a coverage-guided fuzzer: three
 * lines "Include slurm.conf" kept the parser from returning (3^16 reads)
 * while its diagnostics filled Node's memory. Each parse now returns at
 * once, with a stable code at the include's line. No timing assertions: a
 * hang shows as the test timeout.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSlurmConf } from '../lib/config/slurm-conf.js';
import { tempDir, writeFile } from './helpers/plugins.js';

const codes = (conf: ReturnType<typeof readSlurmConf>) => conf.problems.map((p) => p.code);

describe('slurm.conf includes', () => {
  for (const slurmVersion of ['22.05', '24.11']) {
    it(`a file that includes itself (three times over) is read once, the loop named at each include line (${slurmVersion})`, () => {
      const dir = tempDir();
      const file = writeFile(dir, 'slurm.conf', 'ClusterName=loop\nInclude slurm.conf\nInclude slurm.conf\nInclude slurm.conf\n');
      const conf = readSlurmConf(file, slurmVersion);
      expect(conf.ok).toBe(false);
      expect(conf.clusterName).toBe('loop');
      expect(codes(conf)).toEqual(['SLURM_CONF_INCLUDE_LOOP', 'SLURM_CONF_INCLUDE_LOOP', 'SLURM_CONF_INCLUDE_LOOP']);
      expect(conf.problems.map((p) => [path.basename(p.file!), p.line])).toEqual([
        ['slurm.conf', 2],
        ['slurm.conf', 3],
        ['slurm.conf', 4],
      ]);
      expect(conf.problems[0]!.message).toContain('an include loop');
      expect(conf.problems[0]!.slurmLog).toEqual([{ level: 'error', text: `"Include" failed in file ${file} line 2` }]);
    });
  }

  it('a loop through another file is caught where it closes', () => {
    const dir = tempDir();
    writeFile(dir, 'a.conf', 'ClusterName=a\nInclude b.conf\n');
    writeFile(dir, 'b.conf', 'SlurmdSpoolDir=/var/spool/b\nInclude a.conf\n');
    const conf = readSlurmConf(writeFile(dir, 'slurm.conf', 'Include a.conf\n'), '24.11');
    expect(codes(conf)).toEqual(['SLURM_CONF_INCLUDE_LOOP']);
    expect([path.basename(conf.problems[0]!.file!), conf.problems[0]!.line]).toEqual(['b.conf', 2]);
    expect(conf.clusterName).toBe('a');
    expect(conf.slurmdSpoolDir).toBe('/var/spool/b');
  });

  it('the same file included twice, one after the other, is no loop', () => {
    const dir = tempDir();
    writeFile(dir, 'nodes.conf', 'NodeName=n1 CPUs=2\n');
    const conf = readSlurmConf(writeFile(dir, 'slurm.conf', 'Include nodes.conf\nInclude nodes.conf\n'), '24.11');
    expect(conf.ok).toBe(true);
    // Both lines are read; slurmctld then stops on the node named twice.
    expect(conf.nodes.map((n) => n.name)).toEqual(['n1']);
    expect(conf.controllerProblems.map((p) => [p.code, p.slurmLog.at(-1)!.text])).toEqual([['SLURM_CONF_DUPLICATE_NODE', 'Duplicated NodeHostName n1 in config file']]);
  });

  it('sixteen distinct files each including the next twice (65,536 reads) stop at 1024 files read', () => {
    const dir = tempDir();
    for (let i = 0; i < 16; i++) writeFile(dir, `f${i}.conf`, i < 15 ? `Include f${i + 1}.conf\n`.repeat(2) : 'ClusterName=fan\n');
    const conf = readSlurmConf(writeFile(dir, 'slurm.conf', 'Include f0.conf\n'), '24.11');
    expect(conf.ok).toBe(false);
    expect(conf.clusterName).toBe('fan');
    expect(codes(conf)).toContain('SLURM_CONF_INCLUDE_TOO_MANY');
    expect(conf.problems.length).toBeLessThanOrEqual(1001);
  });

  it('a file of 300,000 unknown keys gives 1000 problems and one that says the rest are not listed', () => {
    const dir = tempDir();
    const conf = readSlurmConf(writeFile(dir, 'slurm.conf', 'Zzzzzzzz=1\n'.repeat(300_000)), '24.11');
    expect(conf.ok).toBe(false);
    expect(conf.problems).toHaveLength(1001);
    expect(conf.problems[0]!.code).toBe('SLURM_CONF_UNKNOWN_KEY');
    expect(conf.problems.at(-1)!.code).toBe('SLURM_CONF_TOO_MANY_PROBLEMS');
  });
});
