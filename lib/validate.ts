/** Checks of values the API takes, with PlugstackError INVALID_ARGUMENT on a bad one. */
import { invalidArgument } from './errors.js';

/** A uint32_t, as Slurm keeps ids and counts; `fallback` when absent. */
export function uint32(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > 0xffffffff)
    throw invalidArgument(name, 'an integer from 0 to 4294967295', value);
  return value as number;
}
