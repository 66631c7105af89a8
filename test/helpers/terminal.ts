/**
 * A real pseudo-terminal for a test: util-linux's `script` opens one and
 * runs a shell in it, as a terminal emulator would.
 */
import { spawn } from 'node:child_process';
import { tempDir } from './plugins.js';

/**
 * Runs `shell` in a new pseudo-terminal, its commands as jobs unless `jobs`
 * is false; once `waitFor` shows in its output, types `key`. The output,
 * with the terminal's \r\n as \n, and script's exit status (its command's).
 */
export function inTerminal(shell: string, options: { waitFor?: string; key?: string; jobs?: boolean } = {}): Promise<{ out: string; code: number | null }> {
  const { waitFor, key, jobs = true } = options;
  // set -m: the shell runs each command as a job of its own, in a process
  // group of its own, as an interactive shell does; `exit $?` keeps it from
  // exec'ing the last one. (A command in the session leader's group, which
  // the kernel treats as orphaned, is never stopped by the terminal.)
  const child = spawn('script', ['-qfec', jobs ? `set -m; ${shell}; exit $?` : shell, '/dev/null'], { cwd: tempDir(), env: { ...process.env, PATH: '/usr/bin:/bin' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let typed = false;
  child.stdout!.on('data', (c: Buffer) => {
    out += c;
    if (!typed && key !== undefined && waitFor !== undefined && out.includes(waitFor)) {
      typed = true;
      child.stdin!.write(key);
    }
  });
  child.stderr!.on('data', (c: Buffer) => (out += c));
  return new Promise((resolve) => child.on('close', (code) => resolve({ out: out.replace(/\r\n/g, '\n'), code })));
}

