/** Reading what the libslurm probe fixtures logged. */
import { readLog } from './plugins.js';

export interface ProbeLine {
  context: string;
  hook: string;
  /** field -> value, for every "key=value@offset" or "key=value" token. */
  values: Record<string, string>;
  /** field -> offset in the record, as the plugin's header lays it out. */
  offsets: Record<string, string>;
}

export function readProbe(file: string): ProbeLine[] {
  return readLog(file).map((line) => {
    const [context, hook, ...rest] = line.split(' ');
    const values: Record<string, string> = {};
    const offsets: Record<string, string> = {};
    for (const token of rest) {
      const eq = token.indexOf('=');
      if (eq < 0) continue;
      const key = token.slice(0, eq);
      const value = token.slice(eq + 1);
      const at = value.lastIndexOf('@');
      if (at >= 0 && /^\d+$/.test(value.slice(at + 1))) {
        values[key] = value.slice(0, at);
        offsets[key] = value.slice(at + 1);
      } else {
        values[key] = value;
      }
    }
    return { context: context!, hook: hook!, values, offsets };
  });
}

/** The record's fields of a probe line: what slurm_load_job returned, without the call's own results. */
export function recordOf(line: ProbeLine): Record<string, string> {
  const { rc: _rc, errno: _errno, msg: _msg, step: _step, ...record } = line.values;
  return record;
}
