/**
 * A real headless browser (Debian's chromium) to look at what plugstack
 * draws: it opens a file and writes a screenshot. Each run has a fresh
 * profile directory of its own, and its whole process group is killed if it
 * does not end in time, so no browser process outlives the test.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './plugins.js';

export const CHROMIUM = '/usr/bin/chromium';

export function haveChromium(): boolean {
  return fs.existsSync(CHROMIUM) && spawnSync(CHROMIUM, ['--version'], { stdio: 'ignore', timeout: 30_000 }).status === 0;
}

export async function screenshot(file: string, width: number, height: number): Promise<{ png: string; profile: string }> {
  const profile = tempDir('plugstack-chromium-');
  const png = path.join(profile, 'shot.png');
  const child = spawn(
    CHROMIUM,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--hide-scrollbars',
      `--user-data-dir=${path.join(profile, 'profile')}`,
      `--window-size=${width},${height}`,
      `--screenshot=${png}`,
      `file://${file}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }, 60_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  clearTimeout(timer);
  // Helpers of the browser (zygote, renderer) go with it; make sure.
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    /* the group is gone */
  }
  if (!fs.existsSync(png)) throw new Error(`chromium wrote no screenshot (status ${code}): ${stderr.slice(-2000)}`);
  return { png, profile };
}
