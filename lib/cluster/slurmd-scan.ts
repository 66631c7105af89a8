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
import path from 'node:path';
import { parseConfig } from '../config/plugstack-conf.js';
import { startHost, type HostHandle } from '../host/host-process.js';
import type { StackRef } from '../commands/client.js';
import { fileState, KeptAnswers } from './kept-answers.js';

export interface SlurmdScan {
  prolog: boolean;
  epilog: boolean;
}

interface Owner {
  track(handle: HostHandle): HostHandle;
}

const SCAN_TIMEOUT_MS = 60_000;

/** Scans kept, per stack (and loader environment), with what they read. */
const scans = new KeptAnswers<SlurmdScan>(
  'scans',
  (v): v is SlurmdScan => typeof (v as SlurmdScan | null)?.prolog === 'boolean' && typeof (v as SlurmdScan).epilog === 'boolean',
);

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

/** The scan of a stack: a host process the first time, and whenever what it read has changed. */
export async function scanStack(stack: StackRef & { hostEnv?: NodeJS.ProcessEnv }, owner?: Owner): Promise<SlurmdScan> {
  const env = stack.hostEnv ?? process.env;
  // What dlopen finds depends on the loader's environment too.
  const key = JSON.stringify([stack.conf, stack.slurmVersion, stack.pluginDirs, env.LD_LIBRARY_PATH ?? null, env.LD_PRELOAD ?? null]);
  const now = fingerprint(stack);
  const kept = scans.get(key, now);
  if (kept) return kept;
  const handle = startHost(
    'inspect',
    { conf: stack.conf, context: 'slurmd', slurmVersion: stack.slurmVersion, pluginDirs: [...stack.pluginDirs], scanOnly: true },
    { label: `slurmd's scan of ${stack.conf}`, timeoutMs: SCAN_TIMEOUT_MS, ...(stack.hostEnv ? { env: stack.hostEnv } : {}) },
  );
  owner?.track(handle);
  const run = await handle.finished;
  const scan = { prolog: run.done?.anyJobProlog === true, epilog: run.done?.anyJobEpilog === true };
  // Only a scan that ran to its end is an answer worth keeping.
  if (run.done && !run.fault) scans.set(key, now, scan);
  return scan;
}
