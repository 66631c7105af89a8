/**
 * Conformance against two real Slurms (issues 6 and 14): every scenario of
 * scenarios.ts runs on each real cluster the global setup started and on
 * plugstack in that release's mode (22.05 against Debian's 22.05, 24.11
 * against Debian trixie's 24.11), and the normalised observations must be
 * equal, except for the differences listed, with their reasons, in
 * allowlist.json (per release where only one release shows them).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/plugins.js';
import { applyAllowlist, type AllowEntry } from './allowlist.js';
import { observe } from './observe.js';
import { releases, runPlugstack, runReal } from './run.js';
import { scenarios } from './scenarios.js';

const allowlist = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'allowlist.json'), 'utf8')) as AllowEntry[];

for (const release of releases()) {
  describe(`plugstack and a real Slurm ${release} agree`, () => {
    for (const scenario of scenarios.filter((s) => !s.releases || s.releases.includes(release))) {
      it(scenario.name, async () => {
        const realDir = tempDir('conformance-real-');
        fs.chmodSync(realDir, 0o777);
        const oursDir = tempDir('conformance-ours-');
        for (const [name, text] of Object.entries(scenario.files ?? {}))
          for (const dir of [realDir, oursDir]) fs.writeFileSync(path.join(dir, name), text, { mode: 0o755 });
        const real = observe(await runReal(release, scenario, realDir), scenario, realDir);
        const ours = observe(await runPlugstack(release, scenario, oursDir), scenario, oursDir);
        expect(applyAllowlist(ours, scenario.name, allowlist, release)).toEqual(applyAllowlist(real, scenario.name, allowlist, release));
      });
    }
  });
}
