#!/usr/bin/env node
// An older Linux to run plugstack's binaries on: a minimal Debian bullseye
// root (glibc 2.31, the oldest glibc whose packages this machine can
// fetch), made with debootstrap from the Debian archive that apt on this
// machine is set up to use. test/old-glibc.test.ts runs this machine's Node
// and the package's binaries inside it.
//
//   node scripts/old-glibc-root.mjs        prints the root's path
//
// The root is made once and kept in .cache/ (git-ignored); a root whose
// making was interrupted has no .complete marker and is made again.
// debootstrap is installed with apt-get when missing. Making a root needs
// root (exit status 3 says it cannot be done here). The root holds no
// mounts: whoever runs something in it mounts /proc and /dev in a mount
// namespace of its own, which disappears with its last process.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SUITE = 'bullseye';
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const rootDir = path.join(repo, '.cache', `${SUITE}-root`);
const marker = path.join(rootDir, '.complete');

/** The first Debian archive apt on this machine uses (deb822 or one-line sources). */
function debianMirror() {
  const files = ['/etc/apt/sources.list'];
  const dir = '/etc/apt/sources.list.d';
  if (fs.existsSync(dir)) for (const f of fs.readdirSync(dir).sort()) files.push(path.join(dir, f));
  for (const file of files) {
    if (!fs.existsSync(file)) continue;
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^\s*(?:URIs:\s*(\S+)|deb\s+(?:\[[^\]]*\]\s+)?(\S+))/gm)) {
      const uri = m[1] ?? m[2];
      if (uri && /\/debian\/?$/.test(uri)) return uri;
    }
  }
  throw new Error('no Debian archive found in apt sources');
}

/**
 * apt-get's output goes to our standard error: our standard output is the
 * root's path alone, which callers read (apt's progress there once made
 * the path a screenful of dpkg's lines).
 */
const APT_STDIO = ['ignore', 2, 'inherit'];

function have(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

export function ensureRoot({ log = (s) => process.stderr.write(s + '\n') } = {}) {
  if (fs.existsSync(marker)) return rootDir;
  if (process.getuid?.() !== 0) {
    const e = new Error(`making the ${SUITE} root needs root (debootstrap, chroot)`);
    e.code = 'NEEDS_ROOT';
    throw e;
  }
  if (!have('debootstrap')) {
    log('installing debootstrap');
    execFileSync('apt-get', ['update', '-qq'], { stdio: APT_STDIO });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'debootstrap'], {
      stdio: APT_STDIO,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  }
  fs.rmSync(rootDir, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(rootDir), { recursive: true });
  const started = Date.now();
  log(`making a ${SUITE} root in ${rootDir}`);
  const r = spawnSync('debootstrap', ['--variant=minbase', SUITE, rootDir, debianMirror()], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`debootstrap failed (status ${r.status})`);
  fs.writeFileSync(marker, `${new Date().toISOString()} ${Date.now() - started} ms\n`);
  log(`${SUITE} root made in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return rootDir;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.stdout.write(ensureRoot() + '\n');
  } catch (error) {
    process.stderr.write(`old-glibc-root: ${error.message}\n`);
    process.exitCode = error.code === 'NEEDS_ROOT' ? 3 : 1;
  }
}
