/**
 * A job's job_container life on its nodes, as slurmd and the extern step
 * carry it (job-container/job.ts; the commands own one per job):
 *
 *   begin()        the run's own mount namespace (root: namespace.ts),
 *                  entered by every host of the job first thing, published
 *                  in the job's directory for the sruns inside; slurmd's
 *                  restore on the nodes whose emulated slurmd starts now
 *                  (once per stack and node: slurmdStarted);
 *   firstRun(n)    22.05: slurmd's create on each node at the job's first
 *                  launch there, before the job's prolog (req.c);
 *   startExtern()  PrologFlags=Contain: the extern step on every node of
 *                  the job, after its prolog (24.11: with what slurmd's
 *                  send_stepd wrote for it): stepd_create, then it waits;
 *   stepdSettings  each step: 24.11's send_stepd for each of its slurmstepds;
 *   stopExtern()   the job has ended: the extern steps end (stepd_delete),
 *                  before the job's epilog;
 *   finish()       22.05's delete on every node of the job after its
 *                  epilog, the mounts left, the namespace goes.
 *
 * What the calls were goes into three parts: the job's start (before its
 * first step), the steps' (taken by launchStep: a step's send_stepd, an
 * inner srun's create), and the job's end.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startHost, type HostHandle, type HostRun } from '../host/host-process.js';
import type { HostEvent } from '../host/protocol.js';
import type { Problem } from '../check/types.js';
import { PlugstackError } from '../errors.js';

import { startRunMountNamespace, type RunMountNamespace } from './namespace.js';
import { addJobContainerEvents, type JobContainerCall, type JobContainerRecord } from './record.js';
import { containsJobs, type JobContainerSettings } from './settings.js';
import { runSlurmdOp, type SlurmdOpResult } from './slurmd-ops.js';

type AdoptedEvent = Extract<HostEvent, { t: 'adopted' }>;

/** What an adopt request got: join_external's fd (<= 0: none, nothing ran), and the command's raw wait status and output. */
export interface AdoptResult {
  fd: number;
  status?: number;
  stdout?: string;
  stderr?: string;
  error?: string;
}

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

export interface JcJobInfo {
  jobId: number;
  uid: number;
  gid: number;
  cwd: string;
  env: string[];
  /** The job's directory (jobs.ts): where the sruns inside find the job's namespace and who launched first on a node. */
  dir?: string;
}

/** What a part of the job's life recorded. */
export interface JcPart {
  calls: JobContainerCall[];
  log: JcJobResult['log'];
  problems: JcJobResult['problems'];
}

const emptyPart = (): JcPart => ({ calls: [], log: [], problems: [] });

/** The job's directory's record of its job_container namespace, for the sruns inside. */
const STATE_FILE = 'job-container.json';

/** One set of started slurmds per emulated cluster (a stack): restore runs once per node in it. */
const slurmdLifetimes = new WeakMap<object, Set<string>>();

/** The nodes whose emulated slurmd has started (restore ran) in this cluster. */
export function slurmdsStarted(cluster: object): Set<string> {
  let set = slurmdLifetimes.get(cluster);
  if (!set) slurmdLifetimes.set(cluster, (set = new Set()));
  return set;
}

export class JobContainerJob {
  readonly out: JcJobResult;
  readonly start: JcPart = emptyPart();
  private pending: JcPart = emptyPart();
  readonly end: JcPart = emptyPart();
  private phase: 'start' | 'steps' | 'end' = 'start';
  private ns: RunMountNamespace | undefined;
  /** PLUGSTACK_MOUNT_NS of a job begun by another process (an srun inside it). */
  private nsPath: string | undefined;
  private externs: { node: JcNode; handle: HostHandle; events: HostEvent[]; folded: number; adopted: ((e: AdoptedEvent) => void)[] }[] = [];
  private readonly release2205: boolean;
  private baseline: Set<string> | undefined;
  private begun = false;
  /** Nodes whose extern step failed to start (stepd_create or SPANK's init failed). */
  readonly externFailed: number[] = [];
  private finished = false;

  constructor(
    private readonly stack: JcStack,
    private readonly settings: JobContainerSettings,
    private readonly nodes: JcNode[],
    private readonly job: JcJobInfo,
    private readonly slurmdStarted: Set<string> = new Set(),
  ) {
    this.release2205 = stack.slurmVersion.startsWith('22.');
    this.out = { record: { types: settings.types.map((t) => `job_container/${t}`), calls: [] }, log: [], problems: [] };
  }

  /**
   * The job as an srun inside it sees it (a batch script's, salloc's): the
   * command that owns the job began it; this one only launches steps.
   */
  static inside(stack: JcStack, settings: JobContainerSettings, nodes: JcNode[], job: JcJobInfo & { dir: string }): JobContainerJob {
    const j = new JobContainerJob(stack, settings, nodes, job);
    j.phase = 'steps';
    try {
      const state = JSON.parse(fs.readFileSync(path.join(job.dir, STATE_FILE), 'utf8')) as { mountNs?: string };
      if (state.mountNs) j.nsPath = state.mountNs;
    } catch {
      // the job's owner made no namespace (not root)
    }
    return j;
  }

  /** The environment every host of the job adds: the run's mount namespace. */
  env(): Record<string, string> {
    const p = this.ns?.path ?? this.nsPath;
    return p ? { PLUGSTACK_MOUNT_NS: p } : {};
  }

  /** The run's mount namespace (its holder's pid), when there is one. */
  get namespaceHolder(): number | undefined {
    return this.ns?.pid;
  }

  /** The part calls, lines and problems go to now. */
  private part(): JcPart {
    return this.phase === 'start' ? this.start : this.phase === 'end' ? this.end : this.pending;
  }

  private add(events: readonly HostEvent[], node: number, step?: number): void {
    const part: JobContainerRecord = { types: [], calls: [] };
    addJobContainerEvents(part, events, { node, ...(step !== undefined ? { step } : {}) });
    this.out.record.calls.push(...part.calls);
    this.part().calls.push(...part.calls);
  }

  private note(log: JcJobResult['log'], problems: JcJobResult['problems']): void {
    this.out.log.push(...log);
    this.out.problems.push(...problems);
    this.part().log.push(...log);
    this.part().problems.push(...problems);
  }

  /** What the steps' part holds since the last step took it (launchStep). */
  takeStepPart(): JcPart {
    const p = this.pending;
    this.pending = emptyPart();
    return p;
  }

  private async ops(op: 'restore' | 'create' | 'delete' | 'send_stepd', nodes: JcNode[] = this.nodes): Promise<Map<number, SlurmdOpResult>> {
    const stack = { ...this.stack, hostEnv: { ...(this.stack.hostEnv ?? process.env), ...this.env() } };
    const done = await Promise.all(
      nodes.map((n) => runSlurmdOp(stack, this.settings, op, n.name, this.job.jobId, this.job.uid, OP_TIMEOUT_MS).then((r) => ({ n, r }))),
    );
    const out = new Map<number, SlurmdOpResult>();
    for (const { n, r } of done) {
      this.add(r.events, n.nodeId);
      this.note(
        r.log.map((l) => ({ source: 'slurm' as const, level: l.level, message: l.message, node: n.nodeId })),
        r.problems.map((p) => ({ ...p, node: n.nodeId })),
      );
      out.set(n.nodeId, r);
    }
    return out;
  }

  /** What a slurmstepd of the job is told (24.11: with its send_stepd bytes), for the step's nodes. */
  async stepdSettings(nodeIds: number[] = this.nodes.map((n) => n.nodeId)): Promise<Map<number, JobContainerSettings>> {
    const out = new Map<number, JobContainerSettings>();
    const nodes = this.nodes.filter((n) => nodeIds.includes(n.nodeId));
    const sent = this.release2205 ? undefined : await this.ops('send_stepd', nodes);
    for (const n of nodes) {
      const s = sent?.get(n.nodeId);
      out.set(n.nodeId, { ...this.settings, ...(s?.data !== undefined ? { stepdData: s.data } : {}), ...(s?.failed ? { stepdSendFailed: true } : {}) });
    }
    return out;
  }

  /** The run's namespace and slurmd's start (restore) on the nodes whose emulated slurmd starts now. */
  async begin(): Promise<void> {
    if (this.begun) return;
    this.begun = true;
    // The run's own mount namespace (without root, in a user namespace of
    // the run's own: namespace.ts); where neither can be made, the run is
    // refused with what it needs.
    this.ns = await startRunMountNamespace();
    this.baseline = new Set(this.mounts());
    if (this.job.dir && this.ns) fs.writeFileSync(path.join(this.job.dir, STATE_FILE), JSON.stringify({ mountNs: this.ns.path }));
    // slurmd's restore, once when it starts: the first job of the stack on a node.
    const starting = this.nodes.filter((n) => !this.slurmdStarted.has(n.name));
    for (const n of starting) this.slurmdStarted.add(n.name);
    if (starting.length) await this.ops('restore', starting);
  }

  /**
   * The job's first launch on these nodes (a step, the batch script): 22.05's
   * slurmd calls create there before the job's prolog, a failure only logged.
   * Claimed through the job's directory, so an srun inside the job does it
   * on the nodes the job has not run on yet.
   */
  async firstRun(names: readonly string[]): Promise<void> {
    if (!this.release2205) return;
    const mine = this.nodes.filter((n) => names.includes(n.name) && this.claim(n.name));
    if (mine.length) await this.ops('create', mine);
  }

  private claim(node: string): boolean {
    if (!this.job.dir) return true;
    try {
      fs.writeFileSync(path.join(this.job.dir, `jc-first-${node}`), '', { flag: 'wx' });
      return true;
    } catch {
      return false;
    }
  }

  /** PrologFlags=Contain. */
  get contains(): boolean {
    return containsJobs({ prologFlags: this.settings.prologFlags ?? [] } as never);
  }

  /** PrologFlags=Contain: the extern step on every node of the job, once its prolog has run there. */
  async startExtern(): Promise<void> {
    if (this.phase !== 'start') return;
    if (!containsJobs({ prologFlags: this.settings.prologFlags ?? [] } as never)) {
      this.phase = 'steps';
      return;
    }
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
            if (e.t === 'launch') {
              if (e.rc !== 0) this.externFailed.push(node.nodeId);
              launched();
            }
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
      this.start.calls.push(...part.calls);
      x.folded = part.calls.length;
    }
    this.phase = 'steps';
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
      this.note([], [{
        severity: 'error',
        context: 'remote',
        code: 'JOB_CONTAINER_MOUNT_LEFT',
        message: `mounted by the job's plugins and still there once the job ended (on a node it would stay mounted): ${left.join(', ')}`,
        node: 0,
      }]);
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

  /** The job has ended: its extern steps end (stepd_delete), before its epilog. */
  async stopExtern(): Promise<void> {
    this.phase = 'end';
    const runs: { node: JcNode; run: HostRun; folded: number }[] = [];
    for (const { node, handle, folded } of this.externs) {
      handle.send({ t: 'stop' });
      const t = setTimeout(() => handle.kill('timeout'), OP_TIMEOUT_MS);
      runs.push({ node, run: await handle.finished, folded });
      clearTimeout(t);
    }
    this.externs = [];
    for (const { node, run, folded } of runs) {
      const part: JobContainerRecord = { types: [], calls: [] };
      addJobContainerEvents(part, run.events, { node: node.nodeId, step: EXTERN_STEP });
      const calls = part.calls.slice(folded);
      this.out.record.calls.push(...calls);
      this.end.calls.push(...calls);
      const log: JcJobResult['log'] = [];
      const problems: JcJobResult['problems'] = [];
      for (const e of run.events)
        if (e.t === 'log') log.push({ source: 'slurm', level: e.level, message: e.msg, node: node.nodeId });
        else if (e.t === 'problem') problems.push({ severity: e.severity, code: e.code, message: e.message, node: node.nodeId } as Problem & { node: number });
      this.note(log, problems);
    }
  }

  /** After the job's epilog: 22.05's delete on every node of the job, what was left mounted, the namespace. */
  async finish(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    try {
      await this.stopExtern();
      if (this.release2205 && this.begun) await this.ops('delete');
      this.checkMounts();
    } finally {
      await this.ns?.stop();
      this.ns = undefined;
      if (this.job.dir) fs.rmSync(path.join(this.job.dir, STATE_FILE), { force: true });
    }
  }
}
