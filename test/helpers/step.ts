/** Running steps with the recorder fixture and reading what it saw. */
import fs from 'node:fs';
import path from 'node:path';
import { Plugstack, type LoadOptions } from '../../lib/plugstack.js';
import type { StepOptions, StepResult } from '../../lib/step/types.js';
import { compilePlugin, readLog, tempDir, writeFile } from './plugins.js';

export interface RecordedLine {
  callback: string;
  fields: Record<string, string>;
  raw: string;
}

export function parseRecord(line: string): RecordedLine {
  const [callback, ...rest] = line.split(' ');
  const fields: Record<string, string> = {};
  for (const kv of rest) {
    const eq = kv.indexOf('=');
    if (eq > 0) fields[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  return { callback: callback!, fields, raw: line };
}

export function recorder(slurmVersion = '24.11'): string {
  return slurmVersion === '22.05'
    ? compilePlugin('recorder.c', { defines: { PLUGIN_VERSION: 0x160508 } })
    : compilePlugin('recorder.c');
}

export interface RecordedStep {
  result: StepResult;
  lines: RecordedLine[];
  dir: string;
  log: string;
}

/**
 * Runs a step with the recorder as a required plugin (args are appended to
 * its config line) and returns the result and what the recorder logged.
 */
export async function recordStep(
  args: string[],
  step: Partial<StepOptions> = {},
  options: LoadOptions & { extraLines?: string[] } = {},
): Promise<RecordedStep> {
  const dir = tempDir();
  const log = path.join(dir, 'recorder.log');
  const so = recorder(options.slurmVersion);
  const lines = [`required ${so} log=${log} ${args.join(' ')}`, ...(options.extraLines ?? [])];
  const conf = writeFile(dir, 'plugstack.conf', lines.join('\n') + '\n');
  if (step.uid !== undefined) {
    // Task children run as that user: they must reach the directory (the
    // job's cwd) and append to the log.
    fs.chmodSync(dir, 0o755);
    fs.writeFileSync(log, '', { mode: 0o666 });
    fs.chmodSync(log, 0o666);
  }
  const stack = await Plugstack.load(conf, { pluginDir: [], ...options });
  const result = await stack.launchStep({
    argv: ['true'],
    env: { PATH: '/usr/bin:/bin' },
    cwd: dir,
    ...step,
  });
  return { result, lines: readLog(log).map(parseRecord), dir, log };
}

export function callbacks(lines: RecordedLine[], pid?: string): string[] {
  return lines.filter((l) => pid === undefined || l.fields.pid === pid).map((l) => l.callback);
}
