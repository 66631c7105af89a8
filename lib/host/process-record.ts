/**
 * What one host process did in plugin code, in the public shape of the
 * roles that are a single process (slurmd, the prolog/epilog helper, the
 * client): calls, item reads, environment operations, log lines and
 * problems, plugins named by their path as written in the config. Built
 * from the one reducer and the one fault classifier.
 */
import type { Problem } from '../check/types.js';
import type { SpankContext } from '../spank.js';
import { hostFault, leftovers, type FaultProblem } from './faults.js';
import type { HostRun } from './host-process.js';
import type { HostReducer, ReducedProblem } from './reducer.js';

export interface ProcessHookCall {
  plugin: string;
  hook: string;
  rc?: number;
  /** Microseconds; absent when the call never returned. */
  us?: number;
  /** When the call started: microseconds of the system's monotonic clock (process.hrtime's), comparable across processes. */
  at?: number;
}

export interface ProcessItemRead {
  plugin: string;
  hook: string;
  item: string | number;
  rc: number;
  value?: unknown;
}

export interface ProcessEnvOperation {
  plugin: string;
  hook: string;
  op: string;
  name: string | null;
  value?: string;
  rc: number;
}

export interface ProcessLogLine {
  source: 'slurm' | 'plugin';
  level: string;
  message: string;
  plugin?: string;
  hook?: string;
}

export interface ProcessRecord {
  calls: ProcessHookCall[];
  items: ProcessItemRead[];
  env: ProcessEnvOperation[];
  log: ProcessLogLine[];
  problems: Problem[];
}

/** A reported or classified problem in the public shape. */
export function toProblem(p: ReducedProblem | FaultProblem, context: SpankContext): Problem {
  const out: Problem = { severity: p.severity, code: p.code, message: p.message, context };
  for (const k of ['file', 'line', 'plugin', 'hook', 'rc', 'option', 'command', 'signal', 'pid', 'function'] as const) {
    const v = (p as unknown as Record<string, unknown>)[k];
    if (v !== undefined) (out as unknown as Record<string, unknown>)[k] = v;
  }
  return out;
}

/** The record so far (a daemon's, while it runs). */
export function snapshot(record: HostReducer, context: SpankContext): ProcessRecord {
  return {
    calls: record.calls.map((c) => {
      const call: ProcessHookCall = { plugin: c.plugin, hook: c.hook };
      if (c.rc !== undefined) call.rc = c.rc;
      if (c.us !== undefined) call.us = c.us;
      if (c.at !== undefined) call.at = c.at;
      return call;
    }),
    items: record.items.map((i) => ({ ...i })),
    env: record.env.map(({ task: _task, ...e }) => ({ ...e })),
    log: record.log.map(({ bare: _bare, ...l }) => ({ ...l })),
    problems: record.problems.map((p) => toProblem(p, context)),
  };
}

/** The whole record of a finished run: what it reported, how it ended, what it left behind. */
export function processRecord(run: HostRun, context: SpankContext, options: { ignoreFault?: boolean } = {}): ProcessRecord {
  const record = snapshot(run.record, context);
  // The call that never returned is part of the record too.
  for (const call of run.record.open.get(run.record.hostPid) ?? [])
    record.calls.push({ plugin: call.plugin, hook: call.hook, ...(call.at !== undefined ? { at: call.at } : {}) });
  const fault = options.ignoreFault ? undefined : hostFault(run);
  if (fault) record.problems.push(toProblem(fault, context));
  for (const l of leftovers(run)) record.problems.push(toProblem(l, context));
  return record;
}
