/**
 * The outer mount namespace of a run that loads job_container plugins
 * (native/core/lifecycle/mount_namespace.h): a holder process of its own
 * (plugstack-host --mount-namespace) whose namespace every host of the run
 * enters before any plugin code, so that nothing a plugin mounts outlives
 * the run or is seen by the machine. As root the holder unshares the mount
 * namespace; without root it first makes a user namespace of the run's own
 * that maps the caller's uid and gid to themselves, which gives the run's
 * processes the capabilities the namespace work needs while their ids, and
 * the tasks', stay the caller's. Hosts enter the user namespace, then the
 * mount namespace (lifecycle/mount_namespace.cc).
 */
import { childProcess } from '../lazy-modules.js';
import { PlugstackError } from '../errors.js';
import { hostExecutable } from '../native/paths.js';

export interface RunMountNamespace {
  /** /proc/<holder>/ns/mnt: what PLUGSTACK_MOUNT_NS names for the run's hosts. */
  path: string;
  /** The namespace's inode (what the result's mntNs values are compared with). */
  pid: number;
  /** Ends the holder; the namespace goes once the run's last process has. */
  stop(): Promise<void>;
}

export function startRunMountNamespace(): Promise<RunMountNamespace> {
  return new Promise((resolve, reject) => {
    const child = childProcess().spawn(hostExecutable(), ['--mount-namespace'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const exited = new Promise<void>((r) => child.once('close', () => r()));
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /^ready (\d+)\n/.exec(out);
      if (!m) return;
      const pid = Number(m[1]);
      resolve({
        path: `/proc/${pid}/ns/mnt`,
        pid,
        stop: async () => {
          child.stdin.end();
          const t = setTimeout(() => child.kill('SIGKILL'), 2000);
          await exited;
          clearTimeout(t);
        },
      });
    });
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.once('error', (e) => reject(new PlugstackError('HOST_FAILED', `the run's mount namespace: ${e.message}`)));
    child.once('close', (code) => {
      if (!/^ready /.test(out))
        reject(
          new PlugstackError(
            'PERMISSION_DENIED',
            `job_container plugins run in a mount namespace of the run's own, which needs root (CAP_SYS_ADMIN) or, without root, a user namespace of the run's own ` +
              `(unprivileged user namespaces: sysctl user.max_user_namespaces > 0, kernel.unprivileged_userns_clone=1 where it exists, and no AppArmor restriction on them): ${err.trim() || `status ${code}`}`,
          ),
        );
    });
  });
}
