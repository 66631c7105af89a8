/**
 * Where the test kit keeps what it builds: compiled plugins and generated
 * stacks, named by a hash of their content so that the same input is built
 * once. $PLUGSTACK_CACHE_DIR, else a directory of this user's in the
 * system's temporary directory. It must be ours and closed to others,
 * since a plugin found there is loaded and run.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PlugstackError } from '../errors.js';

export function cacheRoot(): string {
  const dir = process.env.PLUGSTACK_CACHE_DIR || path.join(os.tmpdir(), `plugstack-cache-${process.getuid?.() ?? 'user'}`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(dir);
  const uid = process.getuid?.();
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0)
    throw new PlugstackError('PERMISSION_DENIED', `${dir}: the test kit's cache must be a directory of this user's that others cannot write into`);
  return dir;
}

export function contentKey(...parts: (string | Buffer)[]): string {
  const hash = crypto.createHash('sha256');
  for (const p of parts) hash.update(typeof p === 'string' ? p : p).update('\0');
  return hash.digest('hex').slice(0, 20);
}

/** Writes `content` to `file` through a temporary name, so a concurrent reader never sees half of it. */
export function writeAtomically(file: string, write: (tmp: string) => void): void {
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  try {
    write(tmp);
    fs.renameSync(tmp, file);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}
