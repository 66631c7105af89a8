/**
 * Timers for a job's time limit and srun's -W, which may be weeks away:
 * Node's timers hold at most 2^31 - 1 ms (about 24.8 days) and fire at
 * once (after 1 ms, with a warning) for anything longer, which ended a job
 * of `-t 30-0` as soon as it started. Longer waits are taken in turns.
 */

/** The longest delay setTimeout keeps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface Deadline {
  clear(): void;
}

/** Runs fn once at the time `at` (ms since the epoch), or at once if that has passed. */
export function deadlineAt(at: number, fn: () => void): Deadline {
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const left = at - Date.now();
    timer = setTimeout(left > MAX_TIMER_MS ? arm : fn, Math.min(Math.max(0, left), MAX_TIMER_MS));
  };
  arm();
  return { clear: () => clearTimeout(timer) };
}

/** Runs fn once after ms milliseconds. */
export function deadlineIn(ms: number, fn: () => void): Deadline {
  return deadlineAt(Date.now() + ms, fn);
}
