/**
 * Conformance against a real Slurm 22.05 (issue 6): every scenario of
 * scenarios.ts runs on the real cluster the global setup started and on
 * plugstack, and the normalised observations must be equal, except for the
 * differences listed, with their reasons, in allowlist.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/plugins.js';
import { applyAllowlist, type AllowEntry } from './allowlist.js';
import { observe } from './observe.js';
import { runPlugstack, runReal } from './run.js';
import { scenarios } from './scenarios.js';

const allowlist = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'allowlist.json'), 'utf8')) as AllowEntry[];

describe('plugstack and a real Slurm 22.05 agree', () => {
  for (const scenario of scenarios) {
    it(scenario.name, async () => {
      const realDir = tempDir('conformance-real-');
      fs.chmodSync(realDir, 0o777);
      const oursDir = tempDir('conformance-ours-');
      for (const [name, text] of Object.entries(scenario.files ?? {}))
        for (const dir of [realDir, oursDir]) fs.writeFileSync(path.join(dir, name), text, { mode: 0o755 });
      const real = observe(await runReal(scenario, realDir), scenario, realDir);
      const ours = observe(await runPlugstack(scenario, oursDir), scenario, oursDir);
      expect(applyAllowlist(ours, scenario.name, allowlist)).toEqual(applyAllowlist(real, scenario.name, allowlist));
    });
  }
});
