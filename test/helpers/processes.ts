/**
 * Processes this test process is responsible for, and only those: other
 * runs of plugstack may be going on on the same machine. A host started by
 * this Node process carries "--parent <our pid>" on its command line; a
 * process a fixture plugin starts carries the unique tag the test gave it.
 */
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { zygoteDescriptors } from '../../lib/host/zygote.js';

function table(): { pid: number; stat: string; args: string }[] {
  return execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), stat: m[2]!, args: m[3]! }));
}

/** A tag no other run uses, for fixture processes (the daemon's argv[0]). */
export function uniqueTag(prefix = 'plugstack-test'): string {
  return `${prefix}-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
}

/** Live (not zombie) processes of ours: our hosts, and any with one of the tags. */
export function ourProcesses(tags: string[] = []): string[] {
  const parent = `--parent ${process.pid}`;
  return table()
    .filter((p) => !p.stat.startsWith('Z'))
    .filter((p) => (p.args.includes('plugstack-host') && p.args.endsWith(parent)) || tags.some((t) => p.args.includes(t)))
    .map((p) => `${p.pid} ${p.args}`);
}

/** Waits a little for our processes to be gone (a killed process takes a moment), then lists what is left. */
export async function leftBehind(tags: string[] = []): Promise<string[]> {
  for (let i = 0; i < 40; i++) {
    const found = ourProcesses(tags);
    if (found.length === 0) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  return ourProcesses(tags);
}

/**
 * Descriptors open in this process, less the zygote's control socket: the
 * zygote (lib/host/zygote.ts) lives as long as the process, by design.
 */
export function openDescriptors(): number {
  const zygote = new Set(zygoteDescriptors().map(String));
  return fs.readdirSync('/proc/self/fd').filter((fd) => !zygote.has(fd)).length;
}
