/** Shortcuts for tests that check a stack built from fixture plugins. */
import path from 'node:path';
import type { ContextReport } from '../../lib/check/types.js';
import { Plugstack, type LoadOptions } from '../../lib/plugstack.js';
import type { SpankContext } from '../../lib/spank.js';
import { tempDir, writeFile } from './plugins.js';

/** Writes `lines` as a plugstack.conf in a fresh directory and loads it. */
export async function stackOf(lines: string[], options: LoadOptions = {}): Promise<{ stack: Plugstack; dir: string; conf: string }> {
  const dir = tempDir();
  const conf = writeFile(dir, 'plugstack.conf', lines.join('\n') + '\n');
  const stack = await Plugstack.load(conf, { pluginDir: [], ...options });
  return { stack, dir, conf };
}

/** Checks one context of a stack. */
export async function checkContext(lines: string[], context: SpankContext, options: LoadOptions = {}): Promise<ContextReport> {
  const { stack } = await stackOf(lines, options);
  const report = await stack.check({ context });
  return report.contexts[0]!;
}

export function codes(report: ContextReport): string[] {
  return report.problems.map((p) => p.code);
}

export function logPath(dir: string, name = 'plugin.log'): string {
  return path.join(dir, name);
}
