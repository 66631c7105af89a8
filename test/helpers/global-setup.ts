/**
 * Runs once before the suite: the native build and the TypeScript build must
 * exist (npm test builds them), and with PREBUILDS_ONLY=1 the addon must come
 * from prebuilds/ only, so the shipped artifacts are what is tested.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { repoRoot } from './plugins.js';

export default function setup(): void {
  const require = createRequire(import.meta.url);
  const gypBuild = require('node-gyp-build') as { path(dir: string): string };
  const addon = gypBuild.path(repoRoot);
  if (process.env.PREBUILDS_ONLY && !addon.includes(`${path.sep}prebuilds${path.sep}`))
    throw new Error(`PREBUILDS_ONLY=1 but the addon resolved to ${addon}`);
  for (const f of ['plugstack-host', 'libslurmhost.so'])
    if (!fs.existsSync(path.join(path.dirname(addon), f))) throw new Error(`${f} is missing next to ${addon}`);
  if (!fs.existsSync(path.join(repoRoot, 'dist', 'cli', 'main.js')))
    throw new Error('dist/ is missing: run `npm run build:ts` (npm test does it)');
}
