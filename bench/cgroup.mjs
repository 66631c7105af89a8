// What a call costs every process it involves, counted by the kernel: the
// bench moves itself into a cgroup of its own (cgroup v1's cpuacct and
// memory controllers), so that everything it starts afterwards — the
// zygote and its hosts and tasks, the floor's program, the real Slurm's
// daemons, their slurmstepds and the real sruns — is counted in it,
// whether or not anyone waits for it (a real slurmstepd is orphaned, so
// no rusage of a parent ever holds it).
//
// CPU is cpuacct.usage, exact at each read. Page faults are the memory
// controller's total_pgfault, which the kernel folds in from per-CPU
// counters lazily (every 2 s, or on a read once enough are pending): a
// block of calls is read only after a flush has surely happened, and the
// block's idle share (the daemons' timers, Node's own) is taken out at the
// rate measured while nothing ran.
//
// Forks come from /proc/stat's counter, which counts every new process and
// thread on the machine: they hold only on a quiet machine, and are
// printed as such.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = '/sys/fs/cgroup';
const FLUSH_MS = 2100;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** This process's group of a v1 controller, from /proc/self/cgroup. */
function ownGroup(controller) {
  for (const line of fs.readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const [, controllers, where] = line.split(':');
    if (controllers?.split(',').includes(controller)) return path.join(ROOT, controller, where);
  }
  return undefined;
}

function forks() {
  const m = /^processes (\d+)$/m.exec(fs.readFileSync('/proc/stat', 'utf8'));
  return m ? Number(m[1]) : NaN;
}

function faultsOf(group) {
  const m = /^total_pgfault (\d+)$/m.exec(fs.readFileSync(path.join(group, 'memory.stat'), 'utf8'));
  return m ? Number(m[1]) : NaN;
}

/**
 * Moves the bench into groups of its own; undefined (with why) where that
 * cannot be done: not root, no cgroup v1 cpuacct and memory here.
 */
export function enterAccounting() {
  if (process.getuid?.() !== 0) return { why: 'not root' };
  const parents = { cpuacct: ownGroup('cpuacct'), memory: ownGroup('memory') };
  if (!parents.cpuacct || !parents.memory || !fs.existsSync(path.join(parents.cpuacct, 'cpuacct.usage')))
    return { why: 'no cgroup v1 cpuacct and memory controllers' };
  const name = `plugstack-bench-${process.pid}`;
  const groups = {};
  try {
    for (const [controller, parent] of Object.entries(parents)) {
      groups[controller] = path.join(parent, name);
      fs.mkdirSync(groups[controller]);
      fs.writeFileSync(path.join(groups[controller], 'cgroup.procs'), String(process.pid));
    }
  } catch (error) {
    leave(parents, groups);
    return { why: `cgroups not writable (${error.code ?? error.message})` };
  }
  const snapshot = () => ({
    cpuNs: Number(fs.readFileSync(path.join(groups.cpuacct, 'cpuacct.usage'), 'utf8')),
    faults: faultsOf(groups.memory),
    forks: forks(),
    at: performance.now(),
  });
  let idle;
  return {
    /** The idle rate per ms (the daemons' timers, Node's own), taken out of every block. */
    async measureIdle(ms = 3000) {
      await sleep(FLUSH_MS);
      const a = snapshot();
      await sleep(ms);
      await sleep(FLUSH_MS);
      const b = snapshot();
      const wall = b.at - a.at;
      idle = { cpuNs: (b.cpuNs - a.cpuNs) / wall, faults: (b.faults - a.faults) / wall, forks: (b.forks - a.forks) / wall };
      return { cpuMsPerS: idle.cpuNs / 1e3, faultsPerS: idle.faults * 1e3, forksPerS: idle.forks * 1e3 };
    },
    /** Per call of fn, over `rounds` calls in a row: { cpuMs, faults, forks }. */
    async perCall(fn, rounds) {
      await sleep(FLUSH_MS);
      const a = snapshot();
      for (let i = 0; i < rounds; i++) await fn();
      await sleep(FLUSH_MS);
      const b = snapshot();
      const wall = b.at - a.at;
      const less = idle ?? { cpuNs: 0, faults: 0, forks: 0 };
      return {
        cpuMs: (b.cpuNs - a.cpuNs - less.cpuNs * wall) / 1e6 / rounds,
        faults: (b.faults - a.faults - less.faults * wall) / rounds,
        forks: (b.forks - a.forks - less.forks * wall) / rounds,
      };
    },
    /** Everything still in the groups (the zygote, this process) back to where this process was. */
    leave: () => leave(parents, groups),
  };
}

function leave(parents, groups) {
  for (const [controller, group] of Object.entries(groups)) {
    try {
      const pids = fs.readFileSync(path.join(group, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean);
      for (const pid of pids) {
        try {
          fs.writeFileSync(path.join(parents[controller], 'cgroup.procs'), pid);
        } catch {
          // gone meanwhile
        }
      }
      fs.rmdirSync(group);
    } catch (error) {
      if (error.code !== 'ENOENT') console.error(`bench: could not remove ${group}: ${error.message}`);
    }
  }
}
