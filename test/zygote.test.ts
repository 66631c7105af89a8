/**
 * Hosts forked by the zygote (lib/host/zygote.ts) start as spawned ones do:
 * the working directory and environment asked for, Node's umask, no signal
 * blocked, the same dispositions (glibc's internal signals too) and descriptors, a session and process
 * group of the host's own, the spawned host's command line; and a change
 * of Node's umask reaches the next hosts. The one difference is the
 * keeper: a spawned host's role runs below a keeper of its own (which
 * leads the session), a forked one's directly below the zygote, its keeper. Each side is a real srun whose
 * client and step hosts load a plugin that records its process.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Plugstack } from '../lib/plugstack.js';
import { compilePlugin, tempDir, writeFile } from './helpers/plugins.js';
import { leftBehind, ourProcesses, uniqueTag } from './helpers/processes.js';

const saved = process.env.PLUGSTACK_ZYGOTE;
afterEach(() => {
  if (saved === undefined) delete process.env.PLUGSTACK_ZYGOTE;
  else process.env.PLUGSTACK_ZYGOTE = saved;
});

async function states(zygote: boolean): Promise<{ lines: string[]; dir: string }> {
  if (zygote) delete process.env.PLUGSTACK_ZYGOTE;
  else process.env.PLUGSTACK_ZYGOTE = '0';
  const dir = tempDir();
  const out = path.join(dir, 'states.txt');
  const conf = writeFile(dir, 'plugstack.conf', `required ${compilePlugin('process_state.c')} out=${out}\n`);
  const stack = await Plugstack.load(conf, { pluginDir: [] });
  const r = await stack.srun({ args: ['-n', '1', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin', PROCESS_STATE_MARK: `mark-${zygote}` } });
  expect(r.exitCode, r.stderr).toBe(0);
  return { lines: fs.readFileSync(out, 'utf8').trim().split('\n'), dir };
}

const field = (line: string, name: string) => {
  const value = new RegExp(`(?:^| )${name}=(\\S*)`).exec(line)?.[1];
  // A descriptor of this Node process opened without close-on-exec (the
  // test runner has some, high up) reaches a spawned host, never a forked
  // one: only plugstack's own are compared.
  return name === 'fds' ? value?.split(',').filter((fd) => Number(fd) < 64).join(',') : value;
};

describe('hosts from the zygote', () => {
  it('start as spawned hosts do: directory, environment, umask, signals, descriptors, session, command line', async () => {
    const forked = await states(true);
    const spawned = await states(false);
    // The client (local, 1) and the step (remote, 2), in that order.
    expect(forked.lines.map((l) => field(l, 'ctx'))).toEqual(['1', '2']);
    expect(spawned.lines.map((l) => field(l, 'ctx'))).toEqual(['1', '2']);
    const umask = process.umask().toString(8).padStart(3, '0');
    for (const [side, { lines, dir }] of [['zygote', forked], ['spawned', spawned]] as const) {
      // srun runs where and with what it was asked (slurmstepd, slurmd's child, has slurmd's: compared below).
      expect(field(lines[0]!, 'cwd'), side).toBe(fs.realpathSync(dir));
      expect(field(lines[0]!, 'mark'), side).toBe(`mark-${side === 'zygote'}`);
      // The session and process group are the host's: led by its keeper when it has one of its own.
      const leader = side === 'zygote' ? 'self' : 'parent';
      expect(field(lines[0]!, 'group'), side).toBe(leader);
      for (const line of lines) {
        expect(field(line, 'umask'), `${side}: ${line}`).toBe(umask);
        expect(field(line, 'session'), `${side}: ${line}`).toBe(leader);
        // What ps shows: the host, its role, and this Node process; above it, its keeper.
        const role = field(line, 'ctx') === '1' ? 'client' : 'stepd';
        const keeper = side === 'zygote' ? `zygote --parent ${process.pid} --fd \\d+ --room -+` : `${role} --fd 3:4 --parent ${process.pid}`;
        expect(line, side).toMatch(new RegExp(` cmd=\\S*plugstack-host ${role} --fd 3:4 --parent ${process.pid} parent=\\S*plugstack-host ${keeper}$`));
      }
    }
    // Everything else is the same whichever way the host was started.
    const comparable = (line: string) => ['blocked', 'disp', 'ignored', 'fds', 'cwd', 'mark'].map((f) => `${f}=${field(line, f)}`).join(' ');
    expect(forked.lines.slice(1).map(comparable)).toEqual(spawned.lines.slice(1).map(comparable));
    const clientOnly = (line: string) => ['blocked', 'disp', 'ignored', 'fds'].map((f) => `${f}=${field(line, f)}`).join(' ');
    expect(clientOnly(forked.lines[0]!)).toBe(clientOnly(spawned.lines[0]!));
    // srun's own mask, as init_srun blocks it before its plugins load.
    const srunBlocked = ['SIGINT', 'SIGQUIT', 'SIGCONT', 'SIGTERM', 'SIGHUP', 'SIGALRM', 'SIGUSR1', 'SIGUSR2', 'SIGPIPE', 'SIGWINCH'] as const;
    const mask = srunBlocked.reduce((m, name) => m | (1 << (os.constants.signals[name] - 1)), 0);
    expect(field(forked.lines[0]!, 'blocked')).toBe(mask.toString(16));
    expect(await leftBehind()).toEqual([]);
  });

  it('give the next hosts a umask Node has changed since', async () => {
    const before = process.umask(0o027);
    try {
      const { lines } = await states(true);
      expect(lines.map((l) => field(l, 'umask'))).toEqual(['027', '027']);
    } finally {
      process.umask(before);
    }
    const { lines } = await states(true);
    const umask = before.toString(8).padStart(3, '0');
    expect(lines.map((l) => field(l, 'umask'))).toEqual([umask, umask]);
  });
});

/** Node's children that are zygotes, by pid, from /proc. */
function zygotes(): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0')[1] === 'zygote') out.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const statusField = (pid: number, name: string) => new RegExp(`^${name}:\\s*(\\S+)`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];

describe('the zygote', () => {
  it('starts as a fresh process (only its own SIGPIPE ignored, every signal but faults read through its signalfd, a session of its own), and once killed is reaped and replaced', async () => {
    delete process.env.PLUGSTACK_ZYGOTE;
    const dir = tempDir();
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [] });
    const run = async () => {
      const r = await stack.srun({ args: ['-n', '1', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
      expect(r.exitCode, r.stderr).toBe(0);
    };
    await run();
    const [first] = zygotes();
    expect(first).toBeDefined();
    // Node ignores SIGPIPE, and glibc's posix_spawn leaves its signals 32 and 33 ignored: the zygote keeps
    // only its own SIGPIPE (it writes to sockets Node may close), so what it forks starts with the defaults.
    expect(statusField(first!, 'SigIgn')).toBe('0000000000001000');
    // Blocked, and read through a signalfd: every signal but SIGKILL and SIGSTOP (which cannot be), a fault's
    // (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS) and SIGABRT, and glibc's own 32 and 33.
    const unblocked = [9, 19, 11, 7, 8, 4, 5, 31, 6, 32, 33];
    let blocked = 0n;
    for (let sig = 1; sig <= 64; sig++) if (!unblocked.includes(sig)) blocked |= 1n << BigInt(sig - 1);
    expect(statusField(first!, 'SigBlk')).toBe(blocked.toString(16).padStart(16, '0'));
    const stat = fs.readFileSync(`/proc/${first}/stat`, 'utf8');
    expect(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3])).toBe(first);
    process.kill(first!, 'SIGKILL');
    // Node does not reap a child it did not spawn: plugstack does, once the zygote's socket closes.
    for (let i = 0; i < 200 && fs.existsSync(`/proc/${first}`); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(fs.existsSync(`/proc/${first}`), 'the killed zygote is still there (a zombie?)').toBe(false);
    await run();
    const [second] = zygotes();
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(await leftBehind()).toEqual([]);
  });
});

describe('the zygote under many starts at once', () => {
  it("reports each host's start before its end, for hosts that end as soon as they start, many in flight", async () => {
    delete process.env.PLUGSTACK_ZYGOTE;
    const dir = tempDir();
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', `required ${compilePlugin('recorder.c')}\n`), { pluginDir: [] });
    // check() starts a short-lived host per context at once: starts and ends
    // cross in the zygote. A host whose end came before its start was never
    // seen to end, and its check never returned.
    for (let round = 0; round < 25; round++) {
      const reports = await Promise.race([
        Promise.all(Array.from({ length: 8 }, () => stack.check())),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`round ${round}: a check never returned`)), 20_000).unref()),
      ]);
      for (const report of reports) expect(report.ok, JSON.stringify(report.problems)).toBe(true);
    }
    expect(await leftBehind()).toEqual([]);
  }, 60_000);
});

describe('the zygote as keeper', () => {
  /** Starts a step whose task leaves a setsid daemon, and waits for both to run. */
  async function stepWithDaemon(stack: Plugstack, dir: string, tag: string): Promise<{ running: ReturnType<Plugstack['srun']> }> {
    const running = stack.srun({
      args: ['-n', '1', 'sh', '-c', `setsid perl -e 'sleep 300' ${tag} & exec perl -e 'sleep 301' ${tag}`],
      cwd: dir,
      env: { PATH: '/usr/bin:/bin' },
    });
    for (let i = 0; i < 200 && ourProcesses([tag]).filter((p) => p.includes('perl')).length < 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect(ourProcesses([tag]).filter((p) => p.includes('perl'))).toHaveLength(2);
    return { running };
  }
  const pidsOf = (lines: string[]) => lines.map((l) => Number(l.split(' ')[0]));

  // Node's request to end is a SIGTERM; any other signal whose default
  // would end the zygote is taken as one too when Node sends it.
  for (const signal of ['SIGTERM', 'SIGHUP', 'SIGINT', 'SIGUSR1'] as const) {
    it(`asked by Node to end (${signal}), kills its hosts and everything below them, a setsid daemon included; the run still ends`, async () => {
      delete process.env.PLUGSTACK_ZYGOTE;
      const dir = tempDir();
      const tag = uniqueTag();
      const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [] });
      const { running } = await stepWithDaemon(stack, dir, tag);
      const [z] = zygotes();
      expect(z).toBeDefined();
      try {
        // Stopped, the hosts and the task cannot end on their own when the
        // zygote goes: only the zygote's own sweep ends them.
        const ours = pidsOf(ourProcesses([tag]));
        for (const pid of ours) process.kill(pid, 'SIGSTOP');
        process.kill(z!, signal);
        const r = await running;
        expect(r.exitCode).not.toBe(0);
        expect(await leftBehind([tag])).toEqual([]);
        expect(zygotes()).not.toContain(z);
      } finally {
        for (const pid of pidsOf(ourProcesses([tag]))) process.kill(pid, 'SIGKILL');
      }
      // The next run has a new zygote.
      const next = await stack.srun({ args: ['-n', '1', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
      expect(next.exitCode, next.stderr).toBe(0);
      expect(await leftBehind()).toEqual([]);
    });
  }

  it("lets a signal from anyone but Node go (plugin code signalling its parent): its hosts run on, and it serves the next", async () => {
    delete process.env.PLUGSTACK_ZYGOTE;
    const dir = tempDir();
    const tag = uniqueTag();
    const stack = await Plugstack.load(writeFile(dir, 'plugstack.conf', ''), { pluginDir: [] });
    // A task that signals its host's parent, the zygote, with every signal
    // that would end a process by default, then a stop, and ends well.
    const names = ['TERM', 'HUP', 'INT', 'QUIT', 'USR1', 'USR2', 'ALRM', 'PIPE', 'VTALRM', 'PROF', 'IO', 'PWR', 'XCPU', 'XFSZ', 'STKFLT', 'TSTP', 'TTIN', 'TTOU'];
    const numbers = [...names.map((n) => os.constants.signals[`SIG${n}` as keyof typeof os.constants.signals]), 34, 64];
    expect(numbers.every((n) => Number.isInteger(n))).toBe(true);
    const script = `z=$(awk '{print $4}' /proc/$PPID/stat); for s in ${numbers.join(' ')}; do kill -$s $z || exit 9; done; echo ${tag}`;
    const r = await stack.srun({ args: ['-n', '1', 'sh', '-c', script], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(tag);
    const [z] = zygotes();
    expect(z).toBeDefined();
    expect(statusField(z!, 'State')).toBe('S');
    const next = await stack.srun({ args: ['-n', '1', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
    expect(next.exitCode, next.stderr).toBe(0);
    expect(zygotes()).toEqual([z]);
    expect(await leftBehind()).toEqual([]);
  });
});

describe("the addon's signals", () => {
  it('answer kill(2) with an errno instead of an exception, and never signal "this group" or "everyone"', async () => {
    const { spawn } = await import('node:child_process');
    const os = await import('node:os');
    const { native } = await import('../lib/native/binding.js');
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    await new Promise((resolve) => child.once('spawn', resolve));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    expect(native().signalProcess(child.pid!, 0)).toBe(0);
    expect(native().signalProcess(-child.pid!, os.constants.signals.SIGKILL)).toBe(0);
    expect(await exited).toBe('SIGKILL');
    expect(native().signalProcess(-child.pid!, os.constants.signals.SIGKILL)).toBe(os.constants.errno.ESRCH);
    expect(native().signalProcess(0, 0)).toBe(os.constants.errno.EINVAL);
    expect(native().signalProcess(-1, 0)).toBe(os.constants.errno.EINVAL);
  });
});
