/**
 * The native files the tests run against: the addon node-gyp-build resolves
 * (build/Release, or prebuilds/ with PREBUILDS_ONLY=1), and the
 * libslurmhost.so and plugstack-host beside it.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { repoRoot } from './plugins.js';

export function nativeFiles(): { addon: string; library: string; host: string; dir: string } {
  const require = createRequire(import.meta.url);
  const addon = (require('node-gyp-build') as { path(dir: string): string }).path(repoRoot);
  const dir = path.dirname(addon);
  return { addon, dir, library: path.join(dir, 'libslurmhost.so'), host: path.join(dir, 'plugstack-host') };
}
