/**
 * The keepers of the hosts Node has started (the process the zygote or
 * Node starts for a host, native/core/lifecycle/containment.h): asked to
 * end what is below them, and ended with Node if they are still running
 * when it exits.
 */
import os from 'node:os';
import { native } from '../native/binding.js';

/** The keepers of every host still running, ended if Node exits first. */
const liveKeepers = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Synchronous, so it works on process.exit() too. The keepers would hear
  // of Node's death anyway (a parent-death signal); this is sooner.
  process.on('exit', () => {
    for (const k of liveKeepers) endKeeper(k);
  });
}

/** A keeper now running: ended with Node at the latest. */
export function keeperStarted(pid: number | undefined): void {
  if (pid === undefined) return;
  installExitHook();
  liveKeepers.add(pid);
}

/** A keeper that has exited. */
export function keeperEnded(pid: number | undefined): void {
  if (pid !== undefined) liveKeepers.delete(pid);
}

/** Asks a host's keeper to end everything below it (it kills with SIGKILL, then itself). */
export function endKeeper(pid: number | undefined): void {
  // ESRCH: gone already. (The addon answers with an errno: process.kill
  // would build an exception, stack trace and all, for each host gone.)
  if (pid !== undefined && pid > 0) native().signalProcess(pid, os.constants.signals.SIGTERM);
}

/** Kills a host's process group; one already gone is fine. */
export function killGroup(pid: number | undefined): void {
  if (pid !== undefined && pid > 1) native().signalProcess(-pid, os.constants.signals.SIGKILL);
}
