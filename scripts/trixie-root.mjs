#!/usr/bin/env node
// A Debian trixie root with Debian's Slurm 24.11 in it (slurmctld, slurmd,
// slurm-client, libslurm-dev, munge, and gcc to build plugins against 24.11's
// spank.h), for the conformance suite's second real Slurm. trixie's Slurm
// needs trixie's glibc (2.41), newer than this machine's, so it runs in a
// root of its own: made with `debootstrap --variant=minbase trixie` from the
// Debian archive apt on this machine uses, packages installed inside with
// apt-get.
//
//   node scripts/trixie-root.mjs        prints the root's path
//
// The root is made once and kept in .cache/ (git-ignored); a root whose
// making was interrupted has no .complete marker and is made again. Making
// it needs root (exit status 3 says it cannot be done here). The package
// scripts start no services (a policy-rc.d that says no). The root holds no
// mounts: /proc, /sys, /dev and /dev/pts are bind-mounted for apt-get in a
// mount namespace of its own (unshare), which disappears with its last
// process; scripts/real-slurm.mjs does the same for the running cluster.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SUITE = 'trixie';
export const PACKAGES = ['munge', 'slurmctld', 'slurmd', 'slurm-client', 'libslurm-dev', 'gcc', 'libc6-dev'];
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const rootDir = path.join(repo, '.cache', `${SUITE}-slurm-root`);
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

/** The shell lines that bind-mount what programs in the root need (run inside `unshare --mount`). */
export function bindMounts(root) {
  return ['proc', 'sys', 'dev', 'dev/pts'].map((d) => `mount --bind /${d} "${root}/${d}"`).join(' && ');
}

/** Runs argv in the root, in a mount namespace of its own with the bind mounts. */
function inRoot(root, argv, options = {}) {
  const r = spawnSync(
    'unshare',
    ['--mount', '--propagation', 'private', 'sh', '-c', `${bindMounts('$0')} && exec chroot "$0" "$@"`, root, ...argv],
    { stdio: ['ignore', 'ignore', 'inherit'], ...options },
  );
  if (r.status !== 0) throw new Error(`in the ${SUITE} root: ${argv.join(' ')} failed (status ${r.status})`);
}

/** The versions of the installed packages, as dpkg-query in the root shows them. */
export function packageVersions(root = rootDir) {
  const r = spawnSync('chroot', [root, 'dpkg-query', '-W', '-f=${Package} ${Version}\n', ...PACKAGES], { encoding: 'utf8' });
  return Object.fromEntries(
    r.stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ')),
  );
}

export function ensureRoot({ log = (s) => process.stderr.write(s + '\n') } = {}) {
  if (fs.existsSync(marker)) return rootDir;
  if (process.getuid?.() !== 0) {
    const e = new Error(`making the ${SUITE} root needs root (debootstrap, chroot, mount)`);
    e.code = 'NEEDS_ROOT';
    throw e;
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (!have('debootstrap')) {
    log('installing debootstrap');
    execFileSync('apt-get', ['update', '-qq'], { stdio: APT_STDIO });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'debootstrap'], { stdio: APT_STDIO, env });
  }
  fs.rmSync(rootDir, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(rootDir), { recursive: true });
  let started = Date.now();
  log(`making a ${SUITE} root in ${rootDir}`);
  const r = spawnSync('debootstrap', ['--variant=minbase', SUITE, rootDir, debianMirror()], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`debootstrap failed (status ${r.status})`);
  const debootstrapMs = Date.now() - started;
  log(`${SUITE} root made in ${(debootstrapMs / 1000).toFixed(1)} s`);
  // Package scripts start no services; names resolve (minbase has no /etc/hosts).
  fs.writeFileSync(path.join(rootDir, 'usr', 'sbin', 'policy-rc.d'), '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  fs.copyFileSync('/etc/hosts', path.join(rootDir, 'etc', 'hosts'));
  fs.copyFileSync('/etc/resolv.conf', path.join(rootDir, 'etc', 'resolv.conf'));
  started = Date.now();
  inRoot(rootDir, ['apt-get', 'update', '-qq'], { env });
  inRoot(rootDir, ['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...PACKAGES], { env });
  inRoot(rootDir, ['apt-get', 'clean'], { env });
  const installMs = Date.now() - started;
  log(`Slurm 24.11 installed in the root in ${(installMs / 1000).toFixed(1)} s`);
  const versions = packageVersions(rootDir);
  fs.writeFileSync(marker, JSON.stringify({ made: new Date().toISOString(), debootstrapMs, installMs, versions }, null, 1) + '\n');
  return rootDir;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.stdout.write(ensureRoot() + '\n');
  } catch (error) {
    process.stderr.write(`trixie-root: ${error.message}\n`);
    process.exitCode = error.code === 'NEEDS_ROOT' ? 3 : 1;
  }
}
