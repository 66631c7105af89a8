/**
 * The one fault classifier: how a host run that did not end normally is
 * named, for every role. The same fault has the same code wherever it
 * happens (check, a step, srun/sbatch/salloc, slurmd, a prolog helper):
 *
 *   plugin code was running    a signal        PLUGIN_CRASHED
 *                              exit()          PLUGIN_EXITED (127 with a symbol lookup error: PLUGIN_UNDEFINED_SYMBOL)
 *                              the time limit  PLUGIN_TIMEOUT
 *   no plugin code running     the time limit  STEP_TIMEOUT (a step's tasks) or HOST_TIMEOUT
 *                              anything else   HOST_FAILED
 *   a malformed frame                          HOST_PROTOCOL
 *   the host could not start                   ENVIRONMENT_TOO_LARGE (E2BIG), FORK_FAILED (EAGAIN), HOST_FAILED
 *
 * Task children run plugin code too (task_init_privileged, task_init):
 * each call left open in one of them is named the same way, with its task.
 * Processes and descriptors plugin code left behind when the role ended
 * are PLUGIN_LEFT_PROCESS and PLUGIN_LEFT_DESCRIPTOR warnings: Slurm
 * carries on, but on a cluster they would outlive the job or leak.
 */
import { constants } from 'node:os';
import type { HostRun } from './host-process.js';
import type { ReducedCall, ReducedProblem } from './reducer.js';
import { signalNameOf } from './os-names.js';

export interface FaultProblem extends ReducedProblem {
  signal?: NodeJS.Signals;
  /** Local task id, for a fault in a task child. */
  task?: number;
  pid?: number;
}

function stderrTail(run: HostRun): string {
  return run.stderr.trim().split('\n').slice(-3).join(' | ');
}

function pinned(run: HostRun, call: ReducedCall | undefined): Pick<FaultProblem, 'plugin' | 'hook' | 'file' | 'line'> {
  if (!call) return {};
  const p = run.record.plugins.get(call.ref);
  return { plugin: run.record.plugin(call.ref), hook: call.hook, ...(p ? { file: p.file, line: p.line } : {}) };
}

/** The problem for the host process itself, when its run ended abnormally; undefined when cancelled or fine. */
export function hostFault(run: HostRun): FaultProblem | undefined {
  const fault = run.fault;
  if (!fault || fault.kind === 'cancelled') return undefined;
  // What the host process was running: the hook the fault names, or the
  // innermost open one.
  const call = run.record.running();
  const where = pinned(run, call);
  const inPlugin = call !== undefined;
  const prefix = `${run.label}: ${inPlugin ? `${where.plugin} in ${where.hook}: ` : ''}`;
  const p: FaultProblem = { severity: 'error', code: 'HOST_FAILED', message: '', ...where };
  switch (fault.kind) {
    case 'signal':
      p.code = inPlugin ? 'PLUGIN_CRASHED' : 'HOST_FAILED';
      p.signal = fault.signal!;
      p.message = `${prefix}killed by ${fault.signal}`;
      break;
    case 'exit': {
      const undefinedSymbol = fault.exitCode === 127 && /symbol lookup error/.test(run.stderr);
      p.code = inPlugin ? (undefinedSymbol ? 'PLUGIN_UNDEFINED_SYMBOL' : 'PLUGIN_EXITED') : 'HOST_FAILED';
      const tail = stderrTail(run);
      p.message = `${prefix}the process exited with status ${fault.exitCode}${tail ? ` (${tail})` : ''}`;
      break;
    }
    case 'timeout':
      p.code = inPlugin ? 'PLUGIN_TIMEOUT' : run.role === 'stepd' ? 'STEP_TIMEOUT' : 'HOST_TIMEOUT';
      p.message = `${prefix}still running after ${fault.timeoutMs} ms; killed`;
      break;
    case 'protocol':
      p.code = 'HOST_PROTOCOL';
      p.message = fault.message;
      break;
    case 'spawn':
      // execve refuses arguments and environment over its limits (E2BIG);
      // fork refuses past the process limit (EAGAIN).
      p.code = fault.errno === 'E2BIG' ? 'ENVIRONMENT_TOO_LARGE' : fault.errno === 'EAGAIN' ? 'FORK_FAILED' : 'HOST_FAILED';
      p.message =
        fault.errno === 'E2BIG'
          ? `${run.label}: the environment and arguments are too large for execve (E2BIG); the process cannot start`
          : `${run.label}: ${fault.message}`;
      break;
  }
  return p;
}

/**
 * Calls left open in task children: a task that died (or was killed at
 * the time limit) inside plugin code before exec. `status` gives each
 * child's raw wait status where it was reaped.
 */
export function taskFaults(run: HostRun, statusOf: (pid: number) => number | null | undefined): FaultProblem[] {
  const out: FaultProblem[] = [];
  const timedOut = run.fault?.kind === 'timeout' || run.endedBy === 'timeout';
  // A task killed inside plugin code by a cancel (Ctrl-C, scancel) is the
  // cancel's doing, not the plugin's.
  const cancelled = run.endedBy === 'cancel';
  for (const [pid, list] of run.record.open) {
    const top = list[list.length - 1];
    if (pid === run.record.hostPid || !top) continue;
    const status = statusOf(pid);
    // A child slurmstepd itself ended without reaping it as a task (the
    // step failed around it and proctrack killed what was left): Slurm's
    // own doing, not the plugin's.
    if ((status === null || status === undefined) && run.done && !run.fault && !run.endedBy) continue;
    const where = pinned(run, top);
    const p: FaultProblem = { severity: 'error', code: 'PLUGIN_EXITED', message: '', ...where, pid };
    if (top.task !== undefined) p.task = top.task;
    const sig = status === null || status === undefined ? 0 : status & 0x7f;
    if (cancelled && (sig === 9 || sig === 15)) continue;
    if (sig !== 0 && !(timedOut && (sig === 9 || sig === 15))) {
      p.code = 'PLUGIN_CRASHED';
      p.signal = signalName(sig);
      p.message = `${where.plugin} in ${where.hook}: killed by ${p.signal}`;
    } else if (status !== null && status !== undefined && sig === 0) {
      p.message = `${where.plugin} in ${where.hook}: exited with status ${(status >> 8) & 0xff}`;
    } else if (timedOut || status === null || status === undefined) {
      p.code = 'PLUGIN_TIMEOUT';
      p.message = `${where.plugin} in ${where.hook}: still running at the time limit${run.fault?.timeoutMs ? ` (${run.fault.timeoutMs} ms)` : ''}; killed`;
    } else {
      p.code = 'PLUGIN_CRASHED';
      p.signal = 'SIGKILL';
      p.message = `${where.plugin} in ${where.hook}: killed by SIGKILL`;
    }
    out.push(p);
  }
  return out;
}

/** Processes and descriptors plugin code left when the role ended. */
/** What Slurm calls the process a role plays, for messages. */
const PROCESS_NAMES: Record<HostRun['role'], string> = {
  inspect: 'the checking process',
  stepd: 'slurmstepd',
  client: 'the command',
  slurmd: 'slurmd',
  job_script: 'the prolog/epilog helper',
};

export function leftovers(run: HostRun): FaultProblem[] {
  const out: FaultProblem[] = [];
  for (const l of run.record.left) {
    if (l.plugin === undefined) continue; // a task's own leftovers: Slurm's proctrack kills those silently
    const p: FaultProblem = {
      severity: 'warning',
      code: 'PLUGIN_LEFT_PROCESS',
      message: `${run.label}: ${l.plugin} in ${l.hook}${l.task !== undefined ? ` (task ${l.task})` : ''} started process ${l.pid} (${l.command}), still running when ${PROCESS_NAMES[run.role]} ended; killed`,
      plugin: l.plugin,
      pid: l.pid,
    };
    if (l.hook !== undefined) p.hook = l.hook;
    if (l.task !== undefined) p.task = l.task;
    out.push(p);
  }
  for (const d of run.record.descriptorsLeft) {
    const who = d.plugin ? `${d.plugin} in ${d.hook}` : 'plugin code';
    const p: FaultProblem = {
      severity: 'warning',
      code: 'PLUGIN_LEFT_DESCRIPTOR',
      message:
        d.task !== undefined
          ? `${run.label}: ${who} opened descriptor ${d.fd} (${d.target}) without close-on-exec: task ${d.task}'s program inherits it`
          : `${run.label}: ${who} left descriptor ${d.fd} (${d.target}) open after the plugins were unloaded`,
    };
    if (d.plugin !== undefined) p.plugin = d.plugin;
    if (d.hook !== undefined) p.hook = d.hook;
    if (d.task !== undefined) p.task = d.task;
    out.push(p);
  }
  return out;
}

export function signalName(n: number): NodeJS.Signals {
  return signalNameOf(n) ?? (`SIG${n}` as NodeJS.Signals);
}

export function signalNumber(name: NodeJS.Signals): number {
  return (constants.signals as Record<string, number>)[name] ?? 0;
}
