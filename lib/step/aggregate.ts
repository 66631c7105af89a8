/**
 * Builds a StepResult from the events of the stepd hosts, one per node.
 * Events are the only input, so a node whose host died still contributes
 * everything it reported, plus a problem naming what was running.
 */
import os from 'node:os';
import type { Problem } from '../check/types.js';
import { hostStringToBytes } from '../host/bytes.js';
import type { DoneEvent, HostEvent } from '../host/events.js';
import type { HostRun } from '../host/host-process.js';
import type { NodeLayout } from './layout.js';
import type { NodeResult, StepResult, TaskResult } from './types.js';

interface StepSummary {
  failedAt: string | null;
  stepRc: number;
  exitCode: number;
  launchRc: number;
  exitCallbacksRan: boolean;
}

// The first name of each number (SIGABRT before its alias SIGIOT).
const signalNames = new Map<number, NodeJS.Signals>();
for (const [name, num] of Object.entries(os.constants.signals))
  if (!signalNames.has(num)) signalNames.set(num, name as NodeJS.Signals);

export function decodeStatus(status: number): { exitCode: number | null; signal: NodeJS.Signals | null } {
  const sig = status & 0x7f;
  if (sig === 0) return { exitCode: (status >> 8) & 0xff, signal: null };
  return { exitCode: null, signal: signalNames.get(sig) ?? (`SIG${sig}` as NodeJS.Signals) };
}

type NodeProblem = Problem & { node: number; task?: number };

/** Folds one node's events into `result`. */
export function addNode(result: StepResult, layout: NodeLayout, run: HostRun): void {
  const node = layout.nodeId;
  const plugins = new Map<number, string>();
  const tasks = new Map<number, TaskResult>();
  const outputs = new Map<number, { out: Buffer[]; err: Buffer[] }>();
  const taskOfPid = new Map<number, number>();
  const open = new Map<number, { hook: string; task?: number }[]>();
  let hostPid = -1;
  const gtidOf = (local: number | undefined) => (local === undefined ? undefined : layout.gtids[local]);
  const pluginOf = (ref: number | undefined) => (ref === undefined ? '' : (plugins.get(ref) ?? String(ref)));
  const problem = (p: Omit<NodeProblem, 'context' | 'node'>): NodeProblem => ({ ...p, context: 'remote', node });

  const taskResult = (local: number): TaskResult => {
    let t = tasks.get(local);
    if (!t) {
      t = {
        task: layout.gtids[local]!,
        node,
        localId: local,
        pid: -1,
        status: null,
        exitCode: null,
        signal: null,
        stdout: '',
        stderr: '',
        stdoutBytes: Buffer.alloc(0),
        stderrBytes: Buffer.alloc(0),
      };
      tasks.set(local, t);
      outputs.set(local, { out: [], err: [] });
    }
    return t;
  };
  layout.gtids.forEach((_, local) => taskResult(local));

  for (const e of run.events as HostEvent[]) {
    switch (e.t) {
      case 'hello':
        hostPid = e.pid;
        break;
      case 'line':
        plugins.set(e.ref, e.configPath);
        break;
      case 'enter': {
        const stack = open.get(e.pid) ?? [];
        stack.push(e.task === undefined ? { hook: e.hook } : { hook: e.hook, task: e.task });
        open.set(e.pid, stack);
        break;
      }
      case 'leave': {
        const enter = open.get(e.pid)?.pop();
        const call: StepResult['calls'][number] = {
          plugin: pluginOf(e.ref),
          hook: e.hook,
          context: 'remote',
          role: e.pid === hostPid ? 'stepd' : 'task',
          node,
          us: e.us,
        };
        const gtid = gtidOf(enter?.task ?? (e.pid === hostPid ? undefined : taskOfPid.get(e.pid)));
        if (gtid !== undefined) call.task = gtid;
        if (e.rc !== undefined) call.rc = e.rc;
        result.calls.push(call);
        break;
      }
      case 'task': {
        const t = taskResult(e.task);
        t.pid = e.pid;
        taskOfPid.set(e.pid, e.task);
        break;
      }
      case 'exec':
        taskResult(e.task).exec = e.path;
        break;
      case 'argv':
        taskResult(e.task).argv = e.argv;
        break;
      case 'output': {
        taskResult(e.task);
        const o = outputs.get(e.task)!;
        (e.stream === 'stdout' ? o.out : o.err).push(hostStringToBytes(e.data));
        break;
      }
      case 'exit': {
        const t = taskResult(e.task);
        t.status = e.status;
        Object.assign(t, decodeStatus(e.status));
        break;
      }
      case 'tasks':
        // Statuses slurmstepd set without reaping anything (a task marked
        // failed by user_init or task_post_fork).
        for (const summary of e.tasks) {
          const t = taskResult(summary.task);
          if (summary.exited && summary.status !== undefined && t.status === null) {
            t.status = summary.status;
            Object.assign(t, decodeStatus(summary.status));
          }
        }
        break;
      case 'item': {
        const read: StepResult['items'][number] = { plugin: pluginOf(e.ref), hook: e.hook, node, item: e.item, rc: e.rc };
        if ('value' in e) read.value = e.value;
        result.items.push(read);
        break;
      }
      case 'env': {
        const change: StepResult['env'][number] = { plugin: pluginOf(e.ref), hook: e.hook, node, op: e.op, name: e.name, rc: e.rc };
        if (e.value !== undefined) change.value = e.value;
        const gtid = gtidOf(e.task);
        if (gtid !== undefined) change.task = gtid;
        result.env.push(change);
        break;
      }
      case 'log': {
        const line: StepResult['log'][number] = { source: e.source, level: e.level, message: e.msg, node };
        if (e.ref !== undefined) line.plugin = pluginOf(e.ref);
        if (e.hook !== undefined) line.hook = e.hook;
        result.log.push(line);
        break;
      }
      case 'problem':
      case 'warning': {
        const p = problem({
          severity: e.t === 'warning' ? 'warning' : e.severity,
          code: e.code,
          message: e.message,
        });
        if (e.ref !== undefined) p.plugin = pluginOf(e.ref);
        if (e.hook !== undefined) p.hook = e.hook;
        if (e.t === 'problem') {
          if (e.file !== undefined) p.file = e.file;
          if (e.line !== undefined) p.line = e.line;
          if (e.rc !== undefined) p.rc = e.rc;
        }
        result.problems.push(p);
        break;
      }
      default:
        break;
    }
  }

  // A task child that died inside plugin code: blame the plugin and hook.
  for (const [pid, open] of run.openHooks) {
    const top = open[open.length - 1];
    if (pid === hostPid || !top) continue;
    const local = taskOfPid.get(pid);
    const t = local === undefined ? undefined : tasks.get(local);
    const how = t?.signal ? `killed by ${t.signal}` : t?.exitCode !== null && t?.exitCode !== undefined ? `exited with status ${t.exitCode}` : 'ended';
    const p = problem({
      severity: 'error',
      code: t?.signal ? 'PLUGIN_CRASHED' : 'PLUGIN_EXITED',
      message: `${pluginOf(top.ref)} in ${top.hook}: task ${t?.task ?? '?'} ${how} inside the plugin`,
      plugin: pluginOf(top.ref),
      hook: top.hook,
    });
    if (t) p.task = t.task;
    if (t?.signal) p.signal = t.signal;
    result.problems.push(p);
  }

  const done = run.done as (DoneEvent & { step?: StepSummary }) | undefined;
  const summary: StepSummary = done?.step ?? {
    failedAt: 'host',
    stepRc: -1,
    exitCode: 0,
    launchRc: 0,
    exitCallbacksRan: false,
  };
  if (run.fault) {
    const open = run.openHooks.get(hostPid);
    const top = open?.[open.length - 1];
    const stderr = run.stderr.trim().split('\n').slice(-3).join(' | ');
    const codes = { signal: 'PLUGIN_CRASHED', timeout: 'STEP_TIMEOUT', exit: 'PLUGIN_EXITED', protocol: 'HOST_PROTOCOL' };
    const p = problem({
      severity: 'error',
      code: top ? codes[run.fault.kind] : run.fault.kind === 'timeout' ? 'STEP_TIMEOUT' : 'HOST_FAILED',
      message:
        `node ${node} (${layout.name}): ` +
        (top ? `${pluginOf(top.ref)} in ${top.hook}: ` : '') +
        run.fault.message +
        (stderr && run.fault.kind === 'exit' ? ` (${stderr})` : ''),
    });
    if (top) {
      p.plugin = pluginOf(top.ref);
      p.hook = top.hook;
    }
    if (run.fault.signal) p.signal = run.fault.signal;
    result.problems.push(p);
    summary.failedAt ??= 'host';
  }

  const nodeResult: NodeResult = { node, name: layout.name, ...summary };
  result.nodes.push(nodeResult);
  for (const [local, t] of tasks) {
    const o = outputs.get(local)!;
    t.stdoutBytes = Buffer.concat(o.out);
    t.stderrBytes = Buffer.concat(o.err);
    t.stdout = t.stdoutBytes.toString('utf8');
    t.stderr = t.stderrBytes.toString('utf8');
    result.tasks.push(t);
  }
}

/** The launch error of a node whose plugin stack did not start (init, init_post_opt). */
const SLURM_PLUGIN_NAME_INVALID = 1011;

/** The step as a whole, once every node is in. */
export function finishStep(result: StepResult): StepResult {
  result.nodes.sort((a, b) => a.node - b.node);
  result.tasks.sort((a, b) => a.task - b.task);
  result.exitCode = Math.max(0, ...result.nodes.map((n) => n.exitCode));
  // Slurm's verdict as srun sees it: the plugin stack started on every
  // node, and every task that reported an exit status reported 0. (A 22.05
  // user_init or task_post_fork failure fails the launch, ESLURMD_EXECVE_FAILED,
  // runs no task and reports none: srun says so, but that step does not fail.)
  result.ok =
    result.nodes.every((n) => n.launchRc !== SLURM_PLUGIN_NAME_INVALID && n.failedAt !== 'host') &&
    result.tasks.every((t) => t.status === null || t.status === 0);
  return result;
}
