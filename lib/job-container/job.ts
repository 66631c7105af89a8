/**
 * A job's job_container life around its steps, as slurmd and the extern
 * step carry it on every node (the launcher's part: launchStep calls it):
 *
 *   the run's own mount namespace (root: namespace.ts), entered by every
 *   host of the job first thing;
 *   22.05: slurmd's create on each node;
 *   PrologFlags=Contain: the extern step on each node (24.11: with what
 *   slurmd's send_stepd wrote for it): stepd_create, then it waits;
 *   each step: 24.11's send_stepd for each of its slurmstepds;
 *   at the job's end: the extern steps end (stepd_delete), 22.05's delete,
 *   the namespace goes.
 */
import fs from 'node:fs';
import { startHost, type HostHandle, type HostRun } from '../host/host-process.js';
import type { HostEvent } from '../host/protocol.js';
import type { Problem } from '../check/types.js';
import { PlugstackError } from '../errors.js';

type AdoptedEvent = Extract<HostEvent, { t: 'adopted' }>;

/** What an adopt request got: join_external's fd (<= 0: none, nothing ran), and the command's raw wait status and output. */
export interface AdoptResult {
  fd: number;
  status?: number;
  stdout?: string;
  stderr?: string;
  error?: string;
}
import { startRunMountNamespace, type RunMountNamespace } from './namespace.js';
import { addJobContainerEvents, type JobContainerRecord } from './record.js';
import { containsJobs, type JobContainerSettings } from './settings.js';
import { runSlurmdOp, type SlurmdOpResult } from './slurmd-ops.js';

/** SLURM_EXTERN_CONT */
export const EXTERN_STEP = 0xfffffffc;
const OP_TIMEOUT_MS = 30_000;

export interface JcStack {
  conf: string;
  slurmVersion: string;
  pluginDirs: readonly string[];
  hostEnv: NodeJS.ProcessEnv | undefined;
}

export interface JcNode {
  nodeId: number;
  name: string;
}

export interface JcJobResult {
  record: JobContainerRecord;
  log: { source: 'slurm'; level: string; message: string; node: number }[];
  problems: (Problem & { node: number })[];
}

export class JobContainerJob {
  readonly out: JcJobResult;
  private ns: RunMountNamespace | undefined;
  private externs: { node: JcNode; handle: HostHandle; events: HostEvent[]; folded: number; adopted: ((e: AdoptedEvent) => void)[] }[] = [];
  private readonly release2205: boolean;
  private baseline: Set<string> | undefined;

  constructor(
    private readonly stack: JcStack,
    private readonly settings: JobContainerSettings,
    private readonly nodes: JcNode[],
    private readonly job: { jobId: number; uid: number; gid: number; cwd: string; env: string[] },
  ) {
    this.release2205 = stack.slurmVersion.startsWith('22.');
    this.out = { record: { types: settings.types.map((t) => `job_container/${t}`), calls: [] }, log: [], problems: [] };
  }

  /** The environment every host of the job adds: the run's mount namespace. */
  env(): Record<string, string> {
    return this.ns ? { PLUGSTACK_MOUNT_NS: this.ns.path } : {};
  }

  /** The run's mount namespace (its holder's pid), when there is one. */
  get namespaceHolder(): number | undefined {
    return this.ns?.pid;
  }

  private add(events: readonly HostEvent[], node: number, step?: number): void {
    addJobContainerEvents(this.out.record, events, { node, ...(step !== undefined ? { step } : {}) });
  }

  private async ops(op: 'restore' | 'create' | 'delete' | 'send_stepd'): Promise<Map<number, SlurmdOpResult>> {
    const stack = { ...this.stack, hostEnv: { ...(this.stack.hostEnv ?? process.env), ...this.env() } };
    const done = await Promise.all(
      this.nodes.map((n) => runSlurmdOp(stack, this.settings, op, n.name, this.job.jobId, this.job.uid, OP_TIMEOUT_MS).then((r) => ({ n, r }))),
    );
    const out = new Map<number, SlurmdOpResult>();
    for (const { n, r } of done) {
      this.add(r.events, n.nodeId);
      for (const l of r.log) this.out.log.push({ source: 'slurm', level: l.level, message: l.message, node: n.nodeId });
      for (const p of r.problems) this.out.problems.push({ ...p, node: n.nodeId });
      out.set(n.nodeId, r);
    }
    return out;
  }

  /** What a slurmstepd of the job is told (24.11: with its send_stepd bytes). */
  async stepdSettings(): Promise<Map<number, JobContainerSettings>> {
    const out = new Map<number, JobContainerSettings>();
    const sent = this.release2205 ? undefined : await this.ops('send_stepd');
    for (const n of this.nodes) {
      const s = sent?.get(n.nodeId);
      out.set(n.nodeId, { ...this.settings, ...(s?.data !== undefined ? { stepdData: s.data } : {}), ...(s?.failed ? { stepdSendFailed: true } : {}) });
    }
    return out;
  }

  async begin(): Promise<void> {
    if (process.getuid!() === 0) {
      this.ns = await startRunMountNamespace();
      this.baseline = new Set(this.mounts());
    } else
      for (const n of this.nodes)
        this.out.problems.push({
          severity: 'warning',
          context: 'remote',
          code: 'JOB_CONTAINER_NOT_ISOLATED',
          message:
            'not root: the job_container plugins run without a mount namespace of the run (that needs CAP_SYS_ADMIN); a plugin that mounts or unshares fails with EPERM, as it would in an unprivileged slurmd',
          node: n.nodeId,
        });
    // The job's slurmd has just started (plugstack starts none for long):
    // restore, as slurmd at its start.
    await this.ops('restore');
    if (this.release2205) await this.ops('create');
    if (!containsJobs({ prologFlags: this.settings.prologFlags ?? [] } as never)) return;
    const settings = await this.stepdSettings();
    const started = this.nodes.map((node) => {
      let launched!: () => void;
      const up = new Promise<void>((r) => (launched = r));
      const events: HostEvent[] = [];
      const adopted: ((e: AdoptedEvent) => void)[] = [];
      const handle = startHost(
        'stepd',
        {
          conf: this.stack.conf,
          context: 'remote',
          slurmVersion: this.stack.slurmVersion,
          pluginDirs: this.stack.pluginDirs,
          step: {
            jobId: this.job.jobId,
            stepId: EXTERN_STEP,
            nnodes: this.nodes.length,
            nodeId: node.nodeId,
            nodeName: node.name,
            ntasks: this.nodes.length,
            tasks: [{ gtid: node.nodeId }],
            uid: this.job.uid,
            gid: this.job.gid,
            argv: ['sleep', '100000000'],
            env: this.job.env,
            cwd: this.job.cwd,
            jobContainer: settings.get(node.nodeId)!,
          },
        },
        {
          label: `extern step on node ${node.nodeId} (${node.name})`,
          timeoutMs: 0,
          daemon: true,
          env: { ...(this.stack.hostEnv ?? process.env), SLURMD_NODENAME: node.name, ...this.env() },
          cwd: '/',
          onEvent: (e: HostEvent) => {
            events.push(e);
            if (e.t === 'launch') launched();
            if (e.t === 'adopted') adopted.shift()?.(e);
          },
        },
      );
      void handle.finished.then(() => launched());
      return { node, handle, up, events, folded: 0, adopted };
    });
    this.externs = started;
    // Each is up once it answered its launch (or ended).
    await Promise.all(started.map((s) => s.up));
    // What they did up to here (stepd_create) comes before the job's steps.
    for (const x of started) {
      const part: JobContainerRecord = { types: [], calls: [] };
      addJobContainerEvents(part, x.events, { node: x.node.nodeId, step: EXTERN_STEP });
      this.out.record.calls.push(...part.calls);
      x.folded = part.calls.length;
    }
  }

  /** The run namespace's mount points (and what is mounted there), from its holder. */
  private mounts(): string[] {
    if (!this.ns) return [];
    try {
      return fs
        .readFileSync(`/proc/${this.ns.pid}/mountinfo`, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const f = l.split(' ');
          const dash = f.indexOf('-');
          return `${f[4]} (${f[dash + 1]} ${f[dash + 2]})`;
        });
    } catch {
      return [];
    }
  }

  /** What no Slurm says: a mount the job's plugins made and left once the job has ended. */
  private checkMounts(): void {
    if (!this.baseline) return;
    const left = this.mounts().filter((m) => !this.baseline!.has(m));
    if (left.length)
      this.out.problems.push({
        severity: 'error',
        context: 'remote',
        code: 'JOB_CONTAINER_MOUNT_LEFT',
        message: `mounted by the job's plugins and still there once the job ended (on a node it would stay mounted): ${left.join(', ')}`,
        node: 0,
      });
  }

  /**
   * A process outside the job asks to join it on a node, as pam_slurm_adopt
   * does for an ssh session (REQUEST_GET_NS_FD): the extern step's
   * join_external gives a namespace fd, and a child of the extern step
   * setns()es into it and runs argv. Needs PrologFlags=Contain.
   */
  async adopt(nodeId: number, argv: string[]): Promise<AdoptResult> {
    const x = this.externs.find((e) => e.node.nodeId === nodeId);
    if (!x) throw new PlugstackError('INVALID_ARGUMENT', `no extern step on node ${nodeId} (adopting needs PrologFlags=Contain)`);
    const answer = new Promise<AdoptedEvent>((resolve) => x.adopted.push(resolve));
    x.handle.send({ t: 'adopt', argv });
    const e = await Promise.race([answer, x.handle.finished.then(() => undefined)]);
    if (!e) throw new PlugstackError('HOST_FAILED', `the extern step on node ${nodeId} ended before it answered`);
    return {
      fd: e.fd,
      ...(e.status !== undefined ? { status: e.status } : {}),
      ...(e.stdout !== undefined ? { stdout: e.stdout } : {}),
      ...(e.stderr !== undefined ? { stderr: e.stderr } : {}),
      ...(e.error !== undefined ? { error: e.error } : {}),
    };
  }

  /** The job has ended everywhere: extern steps, 22.05's delete, the namespace. */
  async end(): Promise<void> {
    try {
      const runs: { node: JcNode; run: HostRun; folded: number }[] = [];
      for (const { node, handle, folded } of this.externs) {
        handle.send({ t: 'stop' });
        const t = setTimeout(() => handle.kill('timeout'), OP_TIMEOUT_MS);
        runs.push({ node, run: await handle.finished, folded });
        clearTimeout(t);
      }
      for (const { node, run, folded } of runs) {
        const part: JobContainerRecord = { types: [], calls: [] };
        addJobContainerEvents(part, run.events, { node: node.nodeId, step: EXTERN_STEP });
        this.out.record.calls.push(...part.calls.slice(folded));
        for (const e of run.events)
          if (e.t === 'log') this.out.log.push({ source: 'slurm', level: e.level, message: e.msg, node: node.nodeId });
          else if (e.t === 'problem') this.out.problems.push({ severity: e.severity, code: e.code, message: e.message, node: node.nodeId } as Problem & { node: number });
      }
      this.externs = [];
      if (this.release2205) await this.ops('delete');
      this.checkMounts();
    } finally {
      await this.ns?.stop();
      this.ns = undefined;
    }
  }
}
