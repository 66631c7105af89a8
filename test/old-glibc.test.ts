/**
 * The package's binaries on an older Linux: a Debian bullseye root (glibc
 * 2.31; scripts/old-glibc-root.mjs makes it once and keeps it in .cache/),
 * with this machine's Node (which itself needs only glibc 2.28) and the
 * package laid out as npm installs it, binaries in prebuilds/. `plugstack
 * check` and `plugstack run` must work there. Each run happens in a mount
 * namespace of its own (/proc and /dev mounted into the root), which
 * disappears with its processes, so nothing stays mounted.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeFiles } from './helpers/native-files.js';
import { repoRoot } from './helpers/plugins.js';

const isRoot = process.getuid?.() === 0;

let root = '';
let stage = '';
/** The stage's path as seen from inside the root. */
let inside = '';

function inRoot(argv: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const envArgs = Object.entries({ PATH: '/usr/bin:/bin', HOME: '/root', LANG: 'C', ...env }).map(([k, v]) => `${k}=${v}`);
  const r = spawnSync(
    'unshare',
    [
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      'mount -t proc proc "$0/proc" && mount --bind /dev "$0/dev" && exec chroot "$0" env -i "$@"',
      root,
      ...envArgs,
      ...argv,
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.skipIf(!isRoot)(isRoot ? 'on Debian bullseye (glibc 2.31)' : 'on Debian bullseye: skipped, making the root needs root (debootstrap, chroot)', () => {
  beforeAll(() => {
    root = execFileSync(process.execPath, [path.join(repoRoot, 'scripts', 'old-glibc-root.mjs')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
    inside = `/tmp/plugstack-old-glibc-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
    stage = path.join(root, inside);
    const pkg = path.join(stage, 'pkg');
    const prebuilds = path.join(pkg, 'prebuilds', 'linux-x64');
    fs.mkdirSync(prebuilds, { recursive: true });
    for (const f of ['package.json', 'bin', 'dist', 'include']) fs.cpSync(path.join(repoRoot, f), path.join(pkg, f), { recursive: true });
    fs.cpSync(path.join(repoRoot, 'node_modules', 'node-gyp-build'), path.join(pkg, 'node_modules', 'node-gyp-build'), { recursive: true });
    // The binaries the suite runs against (prebuilds/ themselves with
    // PREBUILDS_ONLY=1), laid out as prebuildify lays them out.
    const native = nativeFiles();
    fs.copyFileSync(native.addon, path.join(prebuilds, 'plugstack.glibc.node'));
    fs.copyFileSync(native.library, path.join(prebuilds, 'libslurmhost.so'));
    fs.copyFileSync(native.host, path.join(prebuilds, 'plugstack-host'));
    fs.chmodSync(path.join(prebuilds, 'plugstack-host'), 0o755);
    fs.mkdirSync(path.join(stage, 'bin'));
    fs.copyFileSync(process.execPath, path.join(stage, 'bin', 'node'));
    fs.chmodSync(path.join(stage, 'bin', 'node'), 0o755);
    // A plugin built here, as a site would build it, and its stack.
    execFileSync('cc', ['-shared', '-fPIC', `-I${path.join(repoRoot, 'include')}`, '-o', path.join(stage, 'hello.so'), path.join(repoRoot, 'examples', 'hello', 'hello.c')]);
    fs.writeFileSync(path.join(stage, 'plugstack.conf'), `required ${inside}/hello.so\n`);
  }, 600_000);

  afterAll(() => {
    if (stage) fs.rmSync(stage, { recursive: true, force: true });
  });

  it('is an older glibc: a program built here against glibc 2.36 does not start there', () => {
    const src = path.join(stage, 'new.c');
    fs.writeFileSync(src, '#include <stdlib.h>\nint main(void) { return (int)(arc4random() & 0); }\n');
    execFileSync('cc', ['-o', path.join(stage, 'new'), src]);
    const r = inRoot([`${inside}/new`]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/GLIBC_2\.3\d' not found/);
    expect(inRoot(['ldd', '--version']).stdout).toMatch(/2\.31/);
  });

  it('plugstack check loads the stack from the prebuilt binaries', () => {
    const r = inRoot([`${inside}/bin/node`, `${inside}/pkg/bin/plugstack.cjs`, 'check', `${inside}/plugstack.conf`], { PREBUILDS_ONLY: '1' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/name hello, type spank/);
    expect(r.stdout).toMatch(/result: Slurm 24\.11\.5 would load this stack/);
    expect(r.status).toBe(0);
  });

  it('plugstack run runs a two-node step with real tasks', () => {
    const r = inRoot(
      [`${inside}/bin/node`, `${inside}/pkg/bin/plugstack.cjs`, 'run', '--conf', `${inside}/plugstack.conf`, '-N', '2', '-n', '4', '-l', '--greeting=hej', 'printenv', 'HELLO_GREETING'],
      { PREBUILDS_ONLY: '1' },
    );
    expect(r.stderr).toContain('srun: hello: launching step');
    expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual(['0: hej', '1: hej', '2: hej', '3: hej']);
    expect(r.status).toBe(0);
  });
});
