/** Where plugstack's files are: the host executable and the plugin headers. */
import fs from 'node:fs';
import path from 'node:path';
import { PlugstackError } from '../errors.js';
import { nativeDir, packageRoot } from './binding.js';

/**
 * The plugstack-host executable that belongs to the loaded addon.
 *
 * Testing hook: PLUGSTACK_HOST_DIR names another directory to take
 * plugstack-host from (and, through its rpaths $ORIGIN and $ORIGIN/.., the
 * libslurmhost.so it binds to). scripts/sanitize.mjs points it at the
 * sanitized build; nothing else should set it.
 */
export function hostExecutable(): string {
  const dir = process.env.PLUGSTACK_HOST_DIR || nativeDir();
  const file = path.join(dir, 'plugstack-host');
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch (cause) {
    throw new PlugstackError(
      'NATIVE_NOT_FOUND',
      process.env.PLUGSTACK_HOST_DIR
        ? `plugstack-host is missing or not executable at ${file} (PLUGSTACK_HOST_DIR)`
        : `plugstack-host is missing or not executable at ${file}; run \`npm rebuild plugstack\``,
      { cause },
    );
  }
  return file;
}

/** The directory to pass as `-I` when compiling a plugin against plugstack's headers. */
export const includeDir = path.join(packageRoot, 'include');
