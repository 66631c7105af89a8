/** Command results as files (inner sruns leave theirs in the job directory). */
import type { CommandResult } from './types.js';

export function serializeResult(result: CommandResult): string {
  return JSON.stringify(result, (_key, value: unknown) => {
    if (value && typeof value === 'object' && (value as { type?: string }).type === 'Buffer')
      return { $bytes: Buffer.from((value as { data: number[] }).data).toString('base64') };
    return value;
  });
}

export function parseResult(text: string): CommandResult {
  return JSON.parse(text, (_key, value: unknown) => {
    if (value && typeof value === 'object' && '$bytes' in (value as object))
      return Buffer.from((value as { $bytes: string }).$bytes, 'base64');
    return value;
  }) as CommandResult;
}
