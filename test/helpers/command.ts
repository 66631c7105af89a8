/** Running srun, sbatch and salloc on a stack of fixture plugins. */
import path from 'node:path';
import type { CommandOptions, CommandResult } from '../../lib/commands/types.js';
import { Plugstack, type LoadOptions } from '../../lib/plugstack.js';
import { readLog, tempDir, writeFile } from './plugins.js';
import { parseRecord, recorder, type RecordedLine } from './step.js';

export interface CommandRun {
  result: CommandResult;
  lines: RecordedLine[];
  dir: string;
  log: string;
  stack: Plugstack;
}

/**
 * A stack with the recorder (args appended to its line) and `extraLines`,
 * in a fresh directory that is also the command's working directory.
 */
export async function recordCommand(
  command: 'srun' | 'sbatch' | 'salloc',
  recorderArgs: string[],
  args: string[],
  options: { env?: Record<string, string>; extraLines?: string[]; files?: Record<string, string> } & LoadOptions = {},
): Promise<CommandRun> {
  const dir = tempDir();
  const log = path.join(dir, 'recorder.log');
  const lines = [`required ${recorder(options.slurmVersion)} log=${log} ${recorderArgs.join(' ')}`, ...(options.extraLines ?? [])];
  const conf = writeFile(dir, 'plugstack.conf', lines.join('\n') + '\n');
  for (const [name, content] of Object.entries(options.files ?? {})) writeFile(dir, name, content);
  const { env, extraLines, files, ...load } = options;
  void extraLines;
  void files;
  const stack = await Plugstack.load(conf, { pluginDir: [], ...load });
  const run: CommandOptions = { args, cwd: dir, env: { PATH: '/usr/bin:/bin', ...(env ?? {}) } };
  const result = await stack[command](run);
  return { result, lines: readLog(log).map(parseRecord), dir, log, stack };
}

/** The callbacks a process recorded, by its pid, in order. */
export function byProcess(lines: RecordedLine[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const l of lines) {
    if (!l.fields.pid) continue;
    out.set(l.fields.pid, [...(out.get(l.fields.pid) ?? []), l.callback]);
  }
  return out;
}

export function contextOf(lines: RecordedLine[], ctx: number): RecordedLine[] {
  return lines.filter((l) => l.fields.ctx === String(ctx));
}
