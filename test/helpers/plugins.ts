/**
 * Fixture plugins are C files in test/fixtures/plugins, compiled at test
 * time exactly as a user compiles against the shipped headers:
 * `cc -shared -fPIC -I<package>/include`. Variants of one source are made
 * with -D macros. Builds are cached by source, flags and header content.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const fixturesDir = path.join(repoRoot, 'test', 'fixtures', 'plugins');
export const includeDir = path.join(repoRoot, 'include');
const buildDir = path.join(repoRoot, 'test', '.build');

function headersDigest(dir: string): string {
  const hash = crypto.createHash('sha256');
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else hash.update(p).update(fs.readFileSync(p));
    }
  };
  // Only the Slurm headers and plugstack's own matter (and /usr/include is large).
  if (fs.existsSync(path.join(dir, 'slurm'))) {
    walk(path.join(dir, 'slurm'));
    if (fs.existsSync(path.join(dir, 'plugstack'))) walk(path.join(dir, 'plugstack'));
  } else walk(dir);
  return hash.digest('hex');
}

export interface CompileOptions {
  /** -D definitions. */
  defines?: Record<string, string | number | true>;
  /** Extra compiler or linker arguments. */
  args?: string[];
  /** Include directory to compile against (default: plugstack's). */
  include?: string;
  /** Output file name (default derived from source and flags). */
  name?: string;
  compiler?: string;
}

/** Compiles test/fixtures/plugins/<source> into a shared object and returns its path. */
export function compilePlugin(source: string, options: CompileOptions = {}): string {
  const src = path.join(fixturesDir, source);
  const include = options.include ?? includeDir;
  const defines = Object.entries(options.defines ?? {}).map(([k, v]) => (v === true ? `-D${k}` : `-D${k}=${v}`));
  const args = ['-shared', '-fPIC', '-Wall', `-I${include}`, ...defines, ...(options.args ?? [])];
  const key = crypto
    .createHash('sha256')
    .update(fs.readFileSync(src))
    .update(JSON.stringify([args, options.compiler]))
    .update(headersDigest(include))
    .digest('hex')
    .slice(0, 16);
  const base = options.name ?? `${path.basename(source, path.extname(source))}-${key}.so`;
  const dir = path.join(buildDir, key);
  const out = path.join(dir, base);
  if (fs.existsSync(out)) return out;
  fs.mkdirSync(dir, { recursive: true });
  // Build under a temporary name and rename: a concurrent test never sees a
  // half-written object (and a loaded one is never overwritten in place).
  const tmp = `${out}.${process.pid}.tmp`;
  execFileSync(options.compiler ?? 'cc', [...args, '-o', tmp, src], { stdio: 'pipe' });
  fs.renameSync(tmp, out);
  return out;
}

/** The directories tempDir made in this test file, removed after it (cleanup-temp-dirs.ts). */
const madeDirs: string[] = [];

/** A fresh directory for one test's files, removed once the test file has run. */
export function tempDir(prefix = 'plugstack-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
}

/**
 * Removes the directories this test file made. One with something still
 * mounted below it is left, and said: removing it would reach into the
 * mount (and a mount left behind is a failure of its own).
 */
export function removeTempDirs(): void {
  const mounts = fs
    .readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((m): m is string => m !== undefined);
  for (const dir of madeDirs.splice(0)) {
    if (mounts.some((m) => m === dir || m.startsWith(`${dir}/`))) {
      process.stderr.write(`tempDir: ${dir} is left: something is mounted below it\n`);
      continue;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Writes a plugstack.conf (or any file) and returns its path. */
export function writeFile(dir: string, name: string, content: string): string {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

/** Reads the lines a recording fixture appended to its log file. */
export function readLog(file: string): string[] {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
}

/** Compiles a test program from test/fixtures/programs and returns the executable's path. */
export function compileProgram(source: string, args: string[] = []): string {
  const src = path.join(repoRoot, 'test', 'fixtures', 'programs', source);
  const key = crypto.createHash('sha256').update(fs.readFileSync(src)).update(JSON.stringify(args)).digest('hex').slice(0, 16);
  const dir = path.join(buildDir, key);
  const out = path.join(dir, path.basename(source, path.extname(source)));
  if (fs.existsSync(out)) return out;
  fs.mkdirSync(dir, { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  execFileSync('cc', [...args, '-o', tmp, src], { stdio: 'pipe' });
  fs.renameSync(tmp, out);
  return out;
}
