/**
 * slurmd's job_container calls for a job, each in a slurmd process of its
 * own on the node (a slurmd host that loads JobContainerType, makes the one
 * call and ends; slurmd's restore at start is stack.slurmd()'s): 22.05's
 * create before the job's first step there and delete once it has ended;
 * 24.11's send_stepd for every slurmstepd it starts, whose bytes are handed
 * to that slurmstepd's recv_stepd (through Node: a real process boundary).
 */
import { runHost } from '../host/host-process.js';
import type { HostEvent } from '../host/protocol.js';
import { processRecord } from '../host/process-record.js';
import type { Problem } from '../check/types.js';
import type { JobContainerSettings } from './settings.js';

export interface SlurmdOpResult {
  ok: boolean;
  events: HostEvent[];
  /** send_stepd: what the plugins wrote, hex. */
  data?: string;
  /** send_stepd failed (slurmd then gives up on the slurmstepd). */
  failed?: boolean;
  problems: Problem[];
  log: { level: string; message: string }[];
}

export async function runSlurmdOp(
  stack: { conf: string; slurmVersion: string; pluginDirs: readonly string[]; hostEnv: NodeJS.ProcessEnv | undefined },
  settings: JobContainerSettings,
  op: 'restore' | 'create' | 'delete' | 'send_stepd',
  node: string,
  jobId: number,
  uid: number,
  timeoutMs: number,
): Promise<SlurmdOpResult> {
  const run = await runHost(
    'slurmd',
    {
      conf: stack.conf,
      context: 'slurmd',
      slurmVersion: stack.slurmVersion,
      pluginDirs: stack.pluginDirs,
      jobContainer: settings,
      jobContainerOp: { op, jobId, uid },
    },
    { label: `slurmd on ${node} (job_container ${op})`, timeoutMs, env: { ...(stack.hostEnv ?? process.env), SLURMD_NODENAME: node }, cwd: '/' },
  );
  const record = processRecord(run, 'slurmd');
  const transport = run.events.find((e) => e.t === 'jobContainer' && e.data !== undefined);
  const result: SlurmdOpResult = {
    ok: run.done?.ok === true,
    events: run.events,
    problems: record.problems,
    log: record.log.map((l) => ({ level: l.level, message: l.message })),
  };
  if (transport && transport.t === 'jobContainer') {
    result.data = transport.data!;
    if (transport.rc !== 0) result.failed = true;
  }
  return result;
}
