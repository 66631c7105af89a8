#!/usr/bin/env node
// `npm test`: builds what the tests need, runs the suite against the local
// build, then packs the prebuilt artifacts (npm run prebuild) and runs the
// suite again with PREBUILDS_ONLY=1, so that what ships is what is tested.
// With PLUGSTACK_CONFORMANCE=1 (CI sets it; needs root) it then runs the
// conformance suite against a real Slurm 22.05 and 24.11 (npm run test:conformance).
// After the normal suites it runs the fault tests against a build of the
// host with AddressSanitizer and UndefinedBehaviorSanitizer
// (scripts/sanitize.mjs, npm run test:sanitize); a sanitizer report or a
// failed sanitized build counts as a failure.
// Ends with one plain line "N passed, N failed".
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runSanitizers } from './sanitize.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

function vitest(label, env, resultsFile, extra = []) {
  console.log(`\n=== ${label} ===`);
  fs.rmSync(resultsFile, { force: true });
  run(process.execPath, [
    path.join(root, 'node_modules', 'vitest', 'vitest.mjs'),
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${resultsFile}`,
    ...extra,
    ...process.argv.slice(2),
  ], env);
  if (!fs.existsSync(resultsFile)) return { passed: 0, failed: 1 };
  const r = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
  // A file that failed to load counts as one failure.
  const broken = r.testResults.filter((f) => f.status === 'failed' && f.assertionResults.length === 0).length;
  return { passed: r.numPassedTests, failed: r.numFailedTests + broken };
}

let failedSetup = 0;
// An incremental build when node-gyp has configured build/ already.
const configured = fs.existsSync(path.join(root, 'build', 'config.gypi'));
if (run('npx', ['node-gyp', configured ? 'build' : 'rebuild']) !== 0) failedSetup++;
if (run(npm, ['run', 'build:ts', '--silent']) !== 0) failedSetup++;

const local = vitest('tests against build/Release', {}, path.join(root, '.vitest-results.json'));

let prebuilt = { passed: 0, failed: 0 };
if (run(npm, ['run', 'prebuild', '--silent']) !== 0) failedSetup++;
else prebuilt = vitest('tests against prebuilds/ only (PREBUILDS_ONLY=1)', { PREBUILDS_ONLY: '1' }, path.join(root, '.vitest-results.json'));

// build/Release and dist/ are built above.
const sanitizers = runSanitizers({ mainBuild: false });

let conformance = { passed: 0, failed: 0 };
if (process.env.PLUGSTACK_CONFORMANCE === '1')
  conformance = vitest('conformance against a real Slurm 22.05 and 24.11', {}, path.join(root, '.vitest-conformance.json'), [
    '--config',
    'vitest.conformance.config.ts',
  ]);
else console.log('\n(conformance against a real Slurm skipped: PLUGSTACK_CONFORMANCE=1 runs it, as root)');

const passed = local.passed + prebuilt.passed + sanitizers.passed + conformance.passed;
const failed = local.failed + prebuilt.failed + sanitizers.failed + conformance.failed + failedSetup;
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
