/**
 * slurmd's scan of plugstack.conf: it loads the stack when it starts
 * (short of init) and keeps whether any plugin has a job prolog or epilog.
 * The scan runs plugin code (constructors, the generic init), so it runs in
 * a host process of its own; its answer is kept, per stack, for as long as
 * what it read is unchanged — every configuration file the stack reads
 * (includes as they expand now), every plugin line, and each plugin file
 * where the PluginDir list finds it (device, inode, size, change times). A
 * slurmd that had been running since the first job would not even notice
 * a change; plugstack does. The scans are also kept in the user's state
 * directory, so that each `plugstack run` (a new Node process) need not
 * scan again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseConfig } from '../config/plugstack-conf.js';
import { startHost, type HostHandle } from '../host/host-process.js';
import type { StackRef } from '../commands/client.js';
import { stateDir } from './state-dir.js';

export interface SlurmdScan {
  prolog: boolean;
  epilog: boolean;
}

interface Owner {
  track(handle: HostHandle): HostHandle;
}

const SCAN_TIMEOUT_MS = 60_000;

/** Scans kept: one per stack (and loader environment), with what they read. */
const scans = new Map<string, { fingerprint: string; scan: SlurmdScan }>();
/** At most this many stacks remembered, in memory and on disk; the oldest go first. */
const MAX_SCANS = 64;
const MAX_SAVED = 256;

function fileState(file: string): string {
  try {
    const s = fs.statSync(file, { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'error';
  }
}

/** What the scan depends on, as it is now. */
function fingerprint(stack: StackRef): string {
  const parsed = parseConfig(stack.conf);
  const files = new Set<string>([stack.conf]);
  const parts: string[] = [JSON.stringify(parsed)];
  for (const item of parsed.items) {
    if (item.file) files.add(item.file);
    if (item.kind !== 'plugin') continue;
    const candidates = path.isAbsolute(item.path) ? [item.path] : stack.pluginDirs.map((d) => path.join(d, item.path));
    for (const c of candidates) parts.push(`${c}=${fileState(c)}`);
  }
  for (const f of files) parts.push(`${f}=${fileState(f)}`);
  return parts.join('\n');
}

/**
 * A file name for a key: two 32-bit FNV-1a hashes (node:crypto costs
 * milliseconds to load, and every plugstack command would pay them). The
 * file holds its key: another key with the same name is told apart.
 */
function nameOf(key: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x811c9dc5) >>> 0;
  }
  return `${a.toString(16).padStart(8, '0')}${b.toString(16).padStart(8, '0')}`;
}

function scanFile(key: string): string {
  return path.join(stateDir('scans'), `${nameOf(key)}.json`);
}

function readKept(key: string): { fingerprint: string; scan: SlurmdScan } | undefined {
  const kept = scans.get(key);
  if (kept) return kept;
  try {
    const saved = JSON.parse(fs.readFileSync(scanFile(key), 'utf8')) as { key: string; fingerprint: string; scan: SlurmdScan };
    if (saved.key === key && typeof saved.fingerprint === 'string' && typeof saved.scan?.prolog === 'boolean' && typeof saved.scan.epilog === 'boolean')
      return { fingerprint: saved.fingerprint, scan: saved.scan };
  } catch {
    // never scanned by this user, or being written
  }
  return undefined;
}

function keep(key: string, kept: { fingerprint: string; scan: SlurmdScan }): void {
  scans.delete(key);
  scans.set(key, kept);
  if (scans.size > MAX_SCANS) scans.delete(scans.keys().next().value!);
  try {
    const file = scanFile(key);
    const tmp = `${file}.${process.pid}`;
    fs.writeFileSync(tmp, JSON.stringify({ key, ...kept }), { mode: 0o600 });
    fs.renameSync(tmp, file);
    const dir = path.dirname(file);
    const saved = fs.readdirSync(dir);
    if (saved.length > MAX_SAVED) {
      const byAge = saved
        .map((name) => ({ name, at: fs.statSync(path.join(dir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
        .sort((a, b) => a.at - b.at);
      for (const { name } of byAge.slice(0, saved.length - MAX_SAVED)) fs.rmSync(path.join(dir, name), { force: true });
    }
  } catch {
    // kept in memory only
  }
}

/** The scan of a stack: a host process the first time, and whenever what it read has changed. */
export async function scanStack(stack: StackRef & { hostEnv?: NodeJS.ProcessEnv }, owner?: Owner): Promise<SlurmdScan> {
  const env = stack.hostEnv ?? process.env;
  // What dlopen finds depends on the loader's environment too.
  const key = JSON.stringify([stack.conf, stack.slurmVersion, stack.pluginDirs, env.LD_LIBRARY_PATH ?? null, env.LD_PRELOAD ?? null]);
  const now = fingerprint(stack);
  const kept = readKept(key);
  if (kept && kept.fingerprint === now) return kept.scan;
  const handle = startHost(
    'inspect',
    { conf: stack.conf, context: 'slurmd', slurmVersion: stack.slurmVersion, pluginDirs: [...stack.pluginDirs], scanOnly: true },
    { label: `slurmd's scan of ${stack.conf}`, timeoutMs: SCAN_TIMEOUT_MS, ...(stack.hostEnv ? { env: stack.hostEnv } : {}) },
  );
  owner?.track(handle);
  const run = await handle.finished;
  const scan = { prolog: run.done?.anyJobProlog === true, epilog: run.done?.anyJobEpilog === true };
  // Only a scan that ran to its end is an answer worth keeping.
  if (run.done && !run.fault) keep(key, { fingerprint: now, scan });
  return scan;
}
