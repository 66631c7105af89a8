/**
 * plugstack's own lines after a command: one "plugstack: " line per fault
 * of plugin code anywhere in the command (its client process, every node of
 * every step, prologs and epilogs) and per plugstack-level failure, so that
 * a crash Slurm itself would hide (a slurmstepd that dies leaves srun
 * waiting) is never silent on the command line.
 */
import type { Problem } from '../check/types.js';
import type { CommandConsole } from './console.js';
import type { CommandResult } from './types.js';

/** The problems that are faults of a process (the rest are Slurm's own findings, already in its lines). */
export const FAULT_CODES = new Set([
  'PLUGIN_CRASHED',
  'PLUGIN_EXITED',
  'PLUGIN_UNDEFINED_SYMBOL',
  'PLUGIN_TIMEOUT',
  'PLUGIN_LEFT_PROCESS',
  'PLUGIN_LEFT_DESCRIPTOR',
  'STEP_TIMEOUT',
  'HOST_TIMEOUT',
  'HOST_FAILED',
  'HOST_PROTOCOL',
  'ENVIRONMENT_TOO_LARGE',
  'FORK_FAILED',
  'COMMAND_TIMEOUT',
  // A libslurm call that plugstack answers differently from the emulated Slurm.
  'LIBSLURM_NOT_EMULATED',
  'LIBSLURM_NOT_IN_RELEASE',
]);

type Located = Problem & { node?: number; task?: number };

function where(p: Located, nodeNames: Map<number, string>): string {
  const parts = [`${p.context} context`];
  if (p.node !== undefined) parts.push(nodeNames.get(p.node) ?? `node${p.node}`);
  if (p.task !== undefined) parts.push(`task ${p.task}`);
  return parts.join(', ');
}

/** Every fault of the command, in the order its processes ran. */
export function commandFaults(result: CommandResult): { problem: Located; nodes: Map<number, string> }[] {
  const out: { problem: Located; nodes: Map<number, string> }[] = [];
  const none = new Map<number, string>();
  for (const p of result.client.problems) if (FAULT_CODES.has(p.code)) out.push({ problem: p, nodes: none });
  for (const step of result.steps) {
    const nodes = new Map(step.nodes.map((n) => [n.node, n.name]));
    for (const p of step.problems) if (FAULT_CODES.has(p.code)) out.push({ problem: p, nodes });
  }
  for (const s of result.jobScripts) for (const p of s.problems) if (FAULT_CODES.has(p.code)) out.push({ problem: p, nodes: none });
  return out;
}

/** One of plugstack's own lines about a fault: its severity and code, where it happened, what. */
export function faultLine(p: { severity: string; code: string; message: string }, place: string): string {
  return `plugstack: ${p.severity}: ${p.code} (${place}): ${p.message}\n`;
}

export function printFaults(console: CommandConsole, result: CommandResult): void {
  for (const { problem: p, nodes } of commandFaults(result)) console.stderr(faultLine(p, where(p, nodes)));
}
