/**
 * The "Testing your plugin" guide (docs/testing.md) is a complete example:
 * its plugin and its test file are taken from the page as written, put in a
 * fresh project that depends on this package (node_modules/plugstack is
 * this repository, as `npm install` would make it), and run with vitest
 * there. Every test of the guide must pass.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { repoRoot } from './helpers/plugins.js';

const guide = fs.readFileSync(path.join(repoRoot, 'docs', 'testing.md'), 'utf8');
const project = fs.mkdtempSync(path.join(os.tmpdir(), 'plugstack-guide-'));
afterAll(() => fs.rmSync(project, { recursive: true, force: true }));

it('docs/testing.md holds the plugin and the test file', () => {
  const files = [...guide.matchAll(/^```[a-z]+ file=(\S+)\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  expect(files).toEqual(['renice.c', 'renice.test.ts']);
});

it('the guide’s tests pass in a project of their own', () => {
  for (const m of guide.matchAll(/^```[a-z]+ file=(\S+)\n([\s\S]*?)^```$/gm)) fs.writeFileSync(path.join(project, m[1]!), m[2]!);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'renice', private: true, type: 'module' }));
  fs.mkdirSync(path.join(project, 'node_modules'));
  fs.symlinkSync(repoRoot, path.join(project, 'node_modules', 'plugstack'));
  fs.symlinkSync(path.join(repoRoot, 'node_modules', 'vitest'), path.join(project, 'node_modules', 'vitest'));
  const report = path.join(project, 'report.json');
  const r = spawnSync(
    process.execPath,
    [path.join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter=json', `--outputFile=${report}`],
    { cwd: project, encoding: 'utf8', timeout: 120_000, env: { ...process.env, PLUGSTACK_CACHE_DIR: path.join(project, 'cache') } },
  );
  const results = fs.existsSync(report)
    ? (JSON.parse(fs.readFileSync(report, 'utf8')) as { numPassedTests: number; numFailedTests: number; testResults: { assertionResults: { title: string; status: string; failureMessages: string[] }[] }[] })
    : undefined;
  const failures = results?.testResults.flatMap((f) => f.assertionResults.filter((a) => a.status !== 'passed').map((a) => `${a.title}: ${a.failureMessages.join('\n')}`));
  expect(failures, r.stderr).toEqual([]);
  expect(results?.numPassedTests).toBe(5);
  expect(r.status).toBe(0);
  // The plugin was built into the kit's cache, by content.
  expect(fs.readdirSync(path.join(project, 'cache', 'plugins')).length).toBe(3);
});
