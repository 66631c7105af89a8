/**
 * Builds a StepResult from the stepd hosts, one per node. Each host's
 * events, folded by the shared reducer, are the only input, so a node whose
 * host died still contributes everything it reported, plus the fault named
 * by the shared classifier.
 */
import { hostStringToBytes } from '../host/bytes.js';
import { hostFault, leftovers, signalName, taskFaults, type FaultProblem } from '../host/faults.js';
import type { HostRun } from '../host/host-process.js';
import type { DoneEvent, FatalEvent, HostEvent } from '../host/protocol.js';
import type { NodeLayout } from './layout.js';
import { addMpiEvents } from '../mpi/record.js';
import { addJobContainerEvents } from '../job-container/record.js';
import type { NodeResult, StepEnvChange, StepItemRead, StepLogLine, StepResult, TaskResult } from './types.js';

type StepSummary = NonNullable<DoneEvent['step']>;

export function decodeStatus(status: number): { exitCode: number | null; signal: NodeJS.Signals | null } {
  const sig = status & 0x7f;
  if (sig === 0) return { exitCode: (status >> 8) & 0xff, signal: null };
  return { exitCode: null, signal: signalName(sig) };
}

type NodeProblem = StepResult['problems'][number];

/**
 * What only a step's host reports, folded from its events as they arrive
 * (launchStep feeds it each checked event): the node's tasks, their
 * output and statuses, whether the launch came, and a fatal refusal. Read
 * while each event is fresh rather than by passes over the whole run's
 * events at the end (a step of 64 tasks has thousands).
 */
export class NodeEvents {
  readonly tasks = new Map<number, TaskResult>();
  readonly taskOfPid = new Map<number, number>();
  readonly statusOfPid = new Map<number, number>();
  private readonly outputs = new Map<number, { out: Buffer[]; err: Buffer[] }>();
  /** The host reported the launch (its "launch" event). */
  launched = false;
  /** The host's first "fatal": it refused the request. */
  fatal: FatalEvent | undefined;

  constructor(private readonly layout: NodeLayout) {
    layout.gtids.forEach((_, local) => this.task(local));
  }

  /** The task of a local id, made when first named. */
  task(local: number): TaskResult {
    let t = this.tasks.get(local);
    if (!t) {
      t = {
        task: this.layout.gtids[local]!,
        node: this.layout.nodeId,
        localId: local,
        pid: -1,
        status: null,
        exitCode: null,
        signal: null,
        stdout: '',
        stderr: '',
        stdoutBytes: EMPTY,
        stderrBytes: EMPTY,
      };
      this.tasks.set(local, t);
      this.outputs.set(local, { out: [], err: [] });
    }
    return t;
  }

  add(e: HostEvent): void {
    switch (e.t) {
      case 'task': {
        const t = this.task(e.task);
        t.pid = e.pid;
        if (e.at !== undefined) t.forkedAt = e.at;
        this.taskOfPid.set(e.pid, e.task);
        break;
      }
      case 'exec':
        this.task(e.task).exec = e.path;
        break;
      case 'argv':
        this.task(e.task).argv = e.argv;
        break;
      case 'output': {
        this.task(e.task);
        const o = this.outputs.get(e.task)!;
        (e.stream === 'stdout' ? o.out : o.err).push(hostStringToBytes(e.data));
        break;
      }
      case 'exit': {
        const t = this.task(e.task);
        t.status = e.status;
        if (e.at !== undefined) t.reapedAt = e.at;
        this.statusOfPid.set(e.pid, e.status);
        Object.assign(t, decodeStatus(e.status));
        break;
      }
      case 'cloneExit':
        // A contain_spank child: not a task, but a call it left open ended with it.
        this.statusOfPid.set(e.pid, e.status);
        break;
      case 'tasks':
        // Statuses slurmstepd set without reaping anything (a task marked
        // failed by user_init or task_post_fork).
        for (const summary of e.tasks) {
          const t = this.task(summary.task);
          if (summary.exited && summary.status !== undefined && t.status === null) {
            t.status = summary.status;
            Object.assign(t, decodeStatus(summary.status));
          }
        }
        break;
      case 'launch':
        this.launched = true;
        break;
      case 'fatal':
        this.fatal ??= e;
        break;
      default:
        break;
    }
  }

  /** The tasks with their output, in the order they were first named. */
  finish(): TaskResult[] {
    const out: TaskResult[] = [];
    for (const [local, t] of this.tasks) {
      const o = this.outputs.get(local)!;
      t.stdoutBytes = Buffer.concat(o.out);
      t.stderrBytes = Buffer.concat(o.err);
      t.stdout = t.stdoutBytes.toString('utf8');
      t.stderr = t.stderrBytes.toString('utf8');
      out.push(t);
    }
    return out;
  }
}

/** What a task's output holds until finish() puts its own there. */
const EMPTY = Buffer.alloc(0);

/** A node's calls by when they started (stable: calls of one process keep their order on a tie). */
function callsInOrder<C extends { at?: number }>(calls: C[]): C[] {
  return calls
    .map((c, i) => ({ c, i }))
    .sort((x, y) => (x.c.at ?? Infinity) - (y.c.at ?? Infinity) || x.i - y.i)
    .map((x) => x.c);
}

/** Folds one node's run into `result`: the shared reducer's record, and what `events` folded of the host's events. */
export function addNode(result: StepResult, layout: NodeLayout, run: HostRun, events: NodeEvents): void {
  const node = layout.nodeId;
  const { taskOfPid, statusOfPid } = events;
  const record = run.record;
  const gtidOf = (local: number | undefined) => (local === undefined ? undefined : layout.gtids[local]);
  const nodeProblem = (p: FaultProblem): NodeProblem => {
    const { task, pid, ...rest } = p;
    const out: NodeProblem = { ...rest, context: 'remote', node };
    const gtid = gtidOf(task ?? (pid !== undefined ? taskOfPid.get(pid) : undefined));
    if (gtid !== undefined) out.task = gtid;
    if (p.code === 'PLUGIN_LEFT_PROCESS' && pid !== undefined) out.pid = pid;
    return out;
  };

  // Calls, items, environment operations and log lines from the reducer,
  // with the node and the global task id added. The calls in the order they
  // started: the host and each task child send theirs in batches of their
  // own, so the order they arrive in is not the order they ran in.
  for (const c of callsInOrder(record.calls)) {
    const call: StepResult['calls'][number] = {
      plugin: c.plugin,
      hook: c.hook,
      context: 'remote',
      role: c.pid === record.hostPid ? 'stepd' : 'task',
      node,
      us: c.us!,
    };
    const gtid = gtidOf(c.task ?? (c.pid === record.hostPid ? undefined : taskOfPid.get(c.pid)));
    if (gtid !== undefined) call.task = gtid;
    if (c.rc !== undefined) call.rc = c.rc;
    if (c.at !== undefined) call.at = c.at;
    result.calls.push(call);
  }
  // Copied field by field, in the reducer's order with the node after it,
  // rather than spread: a step of 64 tasks has thousands of these, and
  // spreading objects of a few shapes (rest destructuring most of all) is
  // V8's slow path.
  for (const i of record.items) {
    const read = { plugin: i.plugin, hook: i.hook, item: i.item, rc: i.rc } as StepItemRead;
    if ('value' in i) read.value = i.value;
    read.node = node;
    result.items.push(read);
  }
  for (const e of record.env) {
    const change = { plugin: e.plugin, hook: e.hook, op: e.op, name: e.name, rc: e.rc } as StepEnvChange;
    if (e.value !== undefined) change.value = e.value;
    change.node = node;
    const gtid = gtidOf(e.task);
    if (gtid !== undefined) change.task = gtid;
    result.env.push(change);
  }
  for (const l of record.log) {
    const line = { source: l.source, level: l.level, message: l.message } as StepLogLine;
    if (l.plugin !== undefined) line.plugin = l.plugin;
    if (l.hook !== undefined) line.hook = l.hook;
    line.node = node;
    result.log.push(line);
  }
  if (result.mpi) addMpiEvents(result.mpi, run.events, { process: 'slurmstepd', node, gtidOf });
  if (result.jobContainer) addJobContainerEvents(result.jobContainer, run.events, { node, step: result.stepId, gtidOf });
  for (const p of record.problems) result.problems.push({ ...p, context: 'remote', node } as NodeProblem);

  // Plugin code that never returned in a task child, then the host itself.
  for (const p of taskFaults(run, (pid) => statusOfPid.get(pid))) result.problems.push(nodeProblem(p));
  const summary: StepSummary = run.done?.step ?? { failedAt: 'host', stepRc: -1, exitCode: 0, launchRc: 0, exitCallbacksRan: false };
  const fault = hostFault(run);
  if (fault) {
    result.problems.push(nodeProblem(fault));
    summary.failedAt ??= 'host';
  }
  for (const p of leftovers(run)) result.problems.push(nodeProblem(p));

  const nodeResult: NodeResult = { node, name: layout.name, ...summary, launched: events.launched };
  const diedIn = fault && run.fault?.kind !== 'cancelled' ? record.running()?.hook : undefined;
  if (diedIn !== undefined) nodeResult.diedIn = diedIn;
  result.nodes.push(nodeResult);
  for (const t of events.finish()) result.tasks.push(t);
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
  // A node that could not fork its tasks ran none of them: never ok.
  result.ok =
    result.nodes.every((n) => n.launchRc !== SLURM_PLUGIN_NAME_INVALID && n.failedAt !== 'host' && n.failedAt !== 'fork') &&
    result.tasks.every((t) => t.status === null || t.status === 0);
  return result;
}
