/**
 * Where the emulated controller keeps its jobs: a directory private to the
 * user. Job ids must be unique on the machine (an srun inside a batch
 * script, run by another process, finds its job by id), so the directory
 * has a fixed place per user: $XDG_RUNTIME_DIR/plugstack when the session
 * has one (private by construction); else, when TMPDIR names no other
 * directory than /tmp, /dev/shm/plugstack-<uid> if /dev/shm is a tmpfs
 * mounted without noexec (every command makes and removes a job directory
 * and a few files: on a disk's file system each of those waits for its
 * journal, a few ms per command, and a job's `srun` is run from there);
 * else $TMPDIR/plugstack-<uid>. The choice depends on nothing that differs
 * between a command and the sruns inside its jobs (slurmstepd gives a batch
 * script TMPDIR=/tmp when it has none, which chooses as an unset TMPDIR).
 *
 * A fixed name in a shared /tmp can be taken by someone else first, so it
 * is checked before every use, without following links: a real directory,
 * owned by this user, with no access for group or others. One of ours that
 * others could read but never write (an older plugstack made it 0755) is
 * closed to 0700; anything else is refused with PERMISSION_DENIED rather
 * than used: a job's PATH starts with a directory in here, and nobody else
 * may be able to put an `srun` there.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PlugstackError } from '../errors.js';

/** Owner-only: no one else may read the jobs, let alone write into them. */
const PRIVATE_MODE = 0o700;

/** /dev/shm when it is a tmpfs a job's srun can be run from (read once per process). */
let shmUsable: boolean | undefined;
function shm(): boolean {
  if (shmUsable === undefined) {
    try {
      const mount = fs
        .readFileSync('/proc/self/mounts', 'utf8')
        .split('\n')
        .map((line) => line.split(' '))
        .filter((f) => f[1] === '/dev/shm')
        .pop();
      shmUsable = mount !== undefined && mount[2] === 'tmpfs' && !mount[3]!.split(',').includes('noexec');
    } catch {
      shmUsable = false;
    }
  }
  return shmUsable;
}

function candidate(): string {
  const uid = process.getuid?.() ?? 0;
  const runtime = process.env.XDG_RUNTIME_DIR;
  if (runtime && path.isAbsolute(runtime)) {
    try {
      const st = fs.lstatSync(runtime);
      if (st.isDirectory() && st.uid === uid && (st.mode & 0o077) === 0) return path.join(runtime, 'plugstack');
    } catch {
      // no usable runtime directory: fall back to the temporary one
    }
  }
  const tmp = os.tmpdir();
  if (tmp === '/tmp' && shm()) return `/dev/shm/plugstack-${uid}`;
  return path.join(tmp, `plugstack-${uid}`);
}

/** Fails unless dir is a real directory of ours that only we can use. */
export function verifyPrivateDir(dir: string, seen?: fs.Stats): void {
  const uid = process.getuid?.() ?? 0;
  let st: fs.Stats;
  try {
    st = seen ?? fs.lstatSync(dir);
  } catch (cause) {
    throw new PlugstackError('PERMISSION_DENIED', `plugstack's state directory ${dir} cannot be checked: ${(cause as Error).message}`, { cause });
  }
  const problem = st.isSymbolicLink()
    ? 'is a symbolic link'
    : !st.isDirectory()
      ? 'is not a directory'
      : st.uid !== uid
        ? `belongs to uid ${st.uid}, not to this user (uid ${uid})`
        : (st.mode & 0o022) !== 0
          ? `has mode ${(st.mode & 0o777).toString(8)}: group or others may write into it`
          : undefined;
  if (problem)
    throw new PlugstackError(
      'PERMISSION_DENIED',
      `plugstack's state directory ${dir} ${problem}; refusing to keep jobs there (remove it, or set TMPDIR or XDG_RUNTIME_DIR elsewhere)`,
    );
  // Readable by others but never writable: nothing can have been put
  // there, only looked at. Close it.
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, PRIVATE_MODE);
}

/** A private directory, created 0700 if missing and verified before use. */
export function privateDir(dir: string): string {
  // Looked at first: a failed mkdir (EEXIST, the usual case) costs an
  // exception. What was seen is what is verified; a directory made here
  // is looked at again.
  const seen = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (seen === undefined) {
    try {
      fs.mkdirSync(dir, { mode: PRIVATE_MODE });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  verifyPrivateDir(dir, seen);
  return dir;
}

/** The user's state directory, verified; `sub` is created inside it (0700). */
export function stateDir(sub?: string): string {
  const root = privateDir(candidate());
  return sub ? privateDir(path.join(root, sub)) : root;
}
