/** Where plugstack's files are: the host executable and the plugin headers. */
import fs from 'node:fs';
import path from 'node:path';
import { PlugstackError } from '../errors.js';
import { nativeDir, packageRoot } from './binding.js';

/** The plugstack-host executable that belongs to the loaded addon. */
export function hostExecutable(): string {
  const file = path.join(nativeDir(), 'plugstack-host');
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch (cause) {
    throw new PlugstackError(
      'NATIVE_NOT_FOUND',
      `plugstack-host is missing or not executable at ${file}; run \`npm rebuild plugstack\``,
      { cause },
    );
  }
  return file;
}

/** The directory to pass as `-I` when compiling a plugin against plugstack's headers. */
export const includeDir = path.join(packageRoot, 'include');
