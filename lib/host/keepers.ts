/**
 * The keepers of the hosts Node has started (native/core/lifecycle/
 * containment.h): what ends everything below a host when it ends, or when
 * Node asks, and with Node at the latest.
 *
 * A host the zygote forked is kept by the zygote itself (a subreaper that
 * ends what each of its hosts leaves, and every host when Node ends or asks
 * it to): Node ends such a host by killing it. A host Node spawned has a
 * keeper of its own, the process Node started, which runs no plugin code:
 * Node asks it to end the host (SIGTERM), and ends it when Node exits.
 */
import os from 'node:os';
import { native } from '../native/binding.js';
import type { HostChild } from './zygote.js';

/** The keepers of every spawned host still running, ended if Node exits first. */
const liveKeepers = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Synchronous, so it works on process.exit() too. The keepers would hear
  // of Node's death anyway (a parent-death signal); this is sooner.
  process.on('exit', () => {
    for (const k of liveKeepers) native().signalProcess(k, os.constants.signals.SIGTERM);
  });
}

/** A host's process now running (its pid known): a keeper of its own is ended with Node at the latest. */
export function keeperStarted(child: HostChild): void {
  if (child.pid === undefined || child.keptByZygote) return;
  installExitHook();
  liveKeepers.add(child.pid);
}

/** A host's process that has exited. */
export function keeperEnded(child: HostChild | undefined): void {
  if (child?.pid !== undefined) liveKeepers.delete(child.pid);
}

/**
 * Ends a host and everything below it. Its own keeper is asked (it kills
 * with SIGKILL everything below it, then itself); a host the zygote keeps
 * is killed, and the zygote kills what it leaves (a SIGTERM could meet a
 * handler of plugin code's).
 */
export function endHost(child: HostChild): void {
  // ESRCH: gone already. (The addon answers with an errno: process.kill
  // would build an exception, stack trace and all, for each host gone.)
  const pid = child.pid;
  if (pid !== undefined && pid > 0) native().signalProcess(pid, os.constants.signals[child.keptByZygote ? 'SIGKILL' : 'SIGTERM']);
}

/** Kills a host's process group; one already gone is fine. */
function killGroup(pid: number | undefined): void {
  if (pid !== undefined && pid > 1) native().signalProcess(-pid, os.constants.signals.SIGKILL);
}

/**
 * Kills by number what a host may have left: its process group and the
 * groups it made (a step's tasks), after its keeper's grace or its end.
 * Only for a host with a keeper of its own: the zygote has killed and
 * reaped everything below its hosts before it reports their end, and a
 * number it reaped may be another host's by then.
 */
export function killLeftGroups(child: HostChild, groups: Iterable<number> = []): void {
  if (child.keptByZygote) return;
  killGroup(child.pid);
  for (const g of groups) killGroup(g);
}
