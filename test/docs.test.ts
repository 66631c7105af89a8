/**
 * The README keeps its promises about deliberate differences: every entry
 * of the conformance allowlist is listed there with its reason.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/plugins.js';

describe('README', () => {
  it('lists every allowed difference of the conformance suite with its reason', () => {
    const readme = fs.readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const allowlist = JSON.parse(fs.readFileSync(path.join(repoRoot, 'test', 'conformance', 'allowlist.json'), 'utf8')) as { reason: string }[];
    expect(allowlist.length).toBeGreaterThan(0);
    for (const entry of allowlist) expect(readme).toContain(entry.reason);
  });
});
