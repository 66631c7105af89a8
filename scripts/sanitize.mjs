#!/usr/bin/env node
// `npm run test:sanitize` (and the last part of `npm test`): the fault tests
// against a libslurmhost.so and plugstack-host built with AddressSanitizer and
// UndefinedBehaviorSanitizer. Every sanitizer report, from any process (step
// hosts and their forked task children, client and slurmd hosts, prolog and
// epilog helpers), goes to a file in a fresh directory; any such file fails
// the run and is printed. Ends with "sanitizers: N passed, N failed".
//
// The build: binding.gyp stays the one build of record. node-gyp always
// builds into ./build of the directory it runs in, so the sanitized build
// runs in build-sanitize/ (git-ignored, kept between runs so that rebuilds
// are incremental), which holds only symlinks to binding.gyp, native/ and
// include/ plus one generated source, and is configured with
// `-Dsanitize=1`; only its libslurmhost.so and plugstack-host are built.
// The tests load the normal addon from build/Release and take
// plugstack-host (with the libslurmhost.so beside it) from build-sanitize/
// through PLUGSTACK_HOST_DIR (lib/native/paths.ts). build/ and prebuilds/
// are never touched.
//
// `--no-main-build` skips building build/Release and dist/ (scripts/test.mjs
// has just built them).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
export const sanitizeRoot = path.join(root, 'build-sanitize');
export const sanitizedHostDir = path.join(sanitizeRoot, 'build', 'Release', 'bin');
const sanitizedLibrary = path.join(sanitizeRoot, 'build', 'Release', 'libslurmhost.so');

// The options, ASan's and UBSan's alike, and why:
// - handle_segv/sigbus/sigfpe/sigill/abort=0: the fault tests make plugins
//   crash and abort on purpose, and expect the host (or task) to die of that
//   signal, as under Slurm; a sanitizer handler would turn each into a
//   report and an exit status. A memory error of our own is caught by
//   ASan's checks before it can become a SIGSEGV, and a null dereference of
//   ours still fails the tests as a crash.
// - detect_leaks=0: the fault tests are about plugin code misbehaving, and
//   a plugin's leak cannot be told from ours: plugins are unloaded before
//   the check at exit, so their frames are unnamed and cannot be
//   suppressed. A found leak also turns the host's exit status into 23,
//   which the tests check; task children leave with _exit (never checked);
//   plugstack, like Slurm, keeps refused plugins mapped on purpose; and a
//   host lives for one run, so a leak costs nothing, unlike a memory error.
//   (With detect_leaks=1 the whole suite currently reports nothing.)
// - print_stacktrace=1 (UBSan prints none by default), report_error_type=1;
//   UBSan keeps going after a report (halt_on_error=0, its default), so one
//   run shows all of them; ASan stops at its first error, as always.
// - detect_stack_use_after_return=1, check_initialization_order=1: more
//   checks at little cost.
// - log_path=DIR/asan, DIR/ubsan: each process writes DIR/asan.<pid> or
//   DIR/ubsan.<pid> when it has something to say, and nothing otherwise.
const common = ['handle_segv=0', 'handle_sigbus=0', 'handle_sigfpe=0', 'handle_sigill=0', 'handle_abort=0', 'color=never'];
const asanOptions = [...common, 'detect_leaks=0', 'detect_stack_use_after_return=1', 'check_initialization_order=1'];
const ubsanOptions = [...common, 'print_stacktrace=1', 'report_error_type=1', 'halt_on_error=0'];

// Not every host sees our environment: a prolog/epilog helper gets exactly
// the environment slurmd built, and a caller's `env` replaces ours. So the
// sanitized plugstack-host also carries default options (the sanitizers ask
// the program for them before reading ASAN_OPTIONS / UBSAN_OPTIONS): an
// include of these two files, which exist only while a run is under way.
const asanOptionsFile = path.join(sanitizeRoot, 'asan.options');
const ubsanOptionsFile = path.join(sanitizeRoot, 'ubsan.options');
// Reports go to this directory, made afresh for each run and removed after
// it; a fixed path, because the generated source below must know it.
const reportsDir = path.join(sanitizeRoot, 'reports');
const defaultsSource = 'sanitizer_options.cc';

function quoted(p) {
  if (/["\n\\]/.test(p)) throw new Error(`cannot pass ${JSON.stringify(p)} to the sanitizers`);
  return `"${p}"`;
}

// GCC links ASan and UBSan as two runtimes, each with its own copy of the
// common code. UBSan applies its log_path through __sanitizer_set_report_path,
// which binds to ASan's copy (loaded first): UBSan's own reports would still
// go to stderr, which is a task's output in a task child. So the program
// sets UBSan's own report path itself, while a run is under way. (After a
// UBSan report, ASan's reports of that process land in ubsan.<pid> too:
// still a report file.)
function defaultsProgram() {
  const c = (text) => JSON.stringify(text);
  return `// Generated by scripts/sanitize.mjs, for the sanitized plugstack-host only.
#include <dlfcn.h>
#include <unistd.h>

extern "C" __attribute__((visibility("default"), used)) const char* __asan_default_options() {
  return ${c(`include_if_exists=${quoted(asanOptionsFile)}`)};
}

extern "C" __attribute__((visibility("default"), used)) const char* __ubsan_default_options() {
  return ${c(`include_if_exists=${quoted(ubsanOptionsFile)}`)};
}

__attribute__((constructor)) static void ubsanReportPath() {
  if (access(${c(reportsDir)}, W_OK) != 0) return;
  void* ubsan = dlopen("libubsan.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (!ubsan) return;
  // dlsym on the handle finds libubsan's own definition first.
  auto set = reinterpret_cast<void (*)(const char*)>(dlsym(ubsan, "__sanitizer_set_report_path"));
  if (set) set(${c(path.join(reportsDir, 'ubsan'))});
  dlclose(ubsan);
}
`;
}

function run(cmd, args, { cwd = root, env = {} } = {}) {
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

function symlink(target, link) {
  try {
    if (fs.readlinkSync(link) === target) return;
  } catch {
    // missing, or not a symlink
  }
  fs.rmSync(link, { recursive: true, force: true });
  fs.symlinkSync(target, link);
}

/** Builds the sanitized libslurmhost.so and plugstack-host (and the mpi plugins beside it); true when it worked. */
export function buildSanitized() {
  console.log('\n=== sanitized build (build-sanitize/, -Dsanitize=1) ===');
  fs.mkdirSync(sanitizeRoot, { recursive: true });
  for (const name of ['binding.gyp', 'native', 'include']) symlink(path.join('..', name), path.join(sanitizeRoot, name));
  const source = path.join(sanitizeRoot, defaultsSource);
  const program = defaultsProgram();
  // Rewritten only when it changes, so that make has nothing to redo.
  if (!fs.existsSync(source) || fs.readFileSync(source, 'utf8') !== program) fs.writeFileSync(source, program);
  // node-gyp from this package, as npx would find it; configure is quick and
  // leaves make nothing to redo when nothing changed.
  const nodeGyp = path.join(root, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  const gyp = (args) => run(process.execPath, [nodeGyp, ...args], { cwd: sanitizeRoot });
  if (gyp(['configure', '--', '-Dsanitize=1', `-Dsanitize_options=${defaultsSource}`]) !== 0) return false;
  // Only the host artifacts (plugstack-host depends on slurmhost), and
  // plugstack's own mpi plugins beside it, which slurmd and srun load.
  if (gyp(['build', '--jobs', 'max', 'plugstack-host', 'mpi_pmi2', 'mpi_none']) !== 0) return false;
  return checkLinkage();
}

// The sanitized executable must bind the sanitized library, never the one in
// build/Release or prebuilds/.
function checkLinkage() {
  const exe = path.join(sanitizedHostDir, 'plugstack-host');
  const ldd = spawnSync('ldd', [exe], { encoding: 'utf8' });
  const lib = /libslurmhost\.so => (\S+)/.exec(ldd.stdout ?? '')?.[1];
  const ok = ldd.status === 0 && lib !== undefined && fs.realpathSync(lib) === fs.realpathSync(sanitizedLibrary) && /libasan\.so/.test(ldd.stdout) && /libubsan\.so/.test(ldd.stdout);
  if (!ok) console.error(`sanitized plugstack-host does not bind ${sanitizedLibrary} and the sanitizer runtimes:\n${ldd.stdout}${ldd.stderr}`);
  return ok;
}

/** Test files run with the sanitizers: test/*fault*.test.ts. */
export function faultTests() {
  const dir = path.join(root, 'test');
  const files = new Set(['faults.test.ts', 'step-faults.test.ts']);
  for (const f of fs.readdirSync(dir)) if (/fault.*\.test\.ts$/.test(f)) files.add(f);
  return [...files].sort().map((f) => path.join('test', f));
}

function vitest(files, env, resultsFile) {
  console.log(`\n=== fault tests against the sanitized plugstack-host (${files.length} files) ===`);
  run(
    process.execPath,
    [
      path.join(root, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${resultsFile}`,
      ...files,
    ],
    { env },
  );
  if (!fs.existsSync(resultsFile)) return { passed: 0, failed: 1 };
  const r = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
  // A file that failed to load counts as one failure.
  const broken = r.testResults.filter((f) => f.status === 'failed' && f.assertionResults.length === 0).length;
  return { passed: r.numPassedTests, failed: r.numFailedTests + broken };
}

/**
 * The whole sanitizer run. Returns the counts; every sanitizer report and a
 * failed build count as one failure each.
 */
export function runSanitizers({ mainBuild = true } = {}) {
  let setupFailed = 0;
  if (mainBuild) {
    const configured = fs.existsSync(path.join(root, 'build', 'config.gypi'));
    if (run('npx', ['node-gyp', configured ? 'build' : 'rebuild']) !== 0) setupFailed++;
    if (run(npm, ['run', 'build:ts', '--silent']) !== 0) setupFailed++;
  }
  let started = Date.now();
  let built = false;
  try {
    built = buildSanitized();
  } catch (err) {
    console.error(err);
  }
  if (!built) {
    console.log(`sanitized build failed (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    console.log(`sanitizers: 0 passed, ${setupFailed + 1} failed`);
    return { passed: 0, failed: setupFailed + 1 };
  }
  console.log(`sanitized build: ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const resultsFile = path.join(sanitizeRoot, 'vitest-results.json');
  // A ^C reaches vitest as well; let this process live on to clean up.
  const ignore = () => {};
  process.on('SIGINT', ignore);
  process.on('SIGTERM', ignore);
  try {
    fs.rmSync(reportsDir, { recursive: true, force: true });
    fs.mkdirSync(reportsDir);
    const asan = [...asanOptions, `log_path=${quoted(path.join(reportsDir, 'asan'))}`].join(':');
    const ubsan = [...ubsanOptions, `log_path=${quoted(path.join(reportsDir, 'ubsan'))}`].join(':');
    fs.writeFileSync(asanOptionsFile, asan + '\n');
    fs.writeFileSync(ubsanOptionsFile, ubsan + '\n');
    started = Date.now();
    const counts = vitest(
      faultTests(),
      { PLUGSTACK_HOST_DIR: sanitizedHostDir, ASAN_OPTIONS: asan, UBSAN_OPTIONS: ubsan },
      resultsFile,
    );
    console.log(`sanitized fault tests: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // Whatever is in the directory is a report.
    const found = fs.readdirSync(reportsDir).sort();
    for (const f of found) {
      console.log(`\n--- sanitizer report ${f} ---`);
      console.log(fs.readFileSync(path.join(reportsDir, f), 'utf8').trimEnd());
    }
    if (found.length > 0) console.log(`\n${found.length} sanitizer report file(s) written; each counts as a failure`);
    const failed = counts.failed + found.length + setupFailed;
    console.log(`sanitizers: ${counts.passed} passed, ${failed} failed`);
    return { passed: counts.passed, failed };
  } finally {
    for (const f of [reportsDir, resultsFile, asanOptionsFile, ubsanOptionsFile]) fs.rmSync(f, { recursive: true, force: true });
    process.off('SIGINT', ignore);
    process.off('SIGTERM', ignore);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { failed } = runSanitizers({ mainBuild: !process.argv.includes('--no-main-build') });
  process.exitCode = failed === 0 ? 0 : 1;
}
