/**
 * The object form of a command's options, turned into the words a user
 * would type, so both forms go through the same parser as the CLI:
 * `{ options: { ntasks: 2, label: true, greeting: 'hi' }, command: ['env'] }`
 * is `--ntasks=2 --label --greeting=hi env`.
 */
import { invalidArgument } from '../errors.js';

/** A long option's value: a flag (true), an argument, or the option given several times. */
export type OptionValue = string | number | boolean | null | undefined | (string | number)[];

export interface StructuredCommand {
  /** Long options of the command or of a plugin, by name without the dashes. */
  options?: Record<string, OptionValue>;
  /** srun and salloc: the program and its arguments; sbatch: the script and its arguments. */
  command?: string[];
}

const LONG_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export function structuredArgs(input: StructuredCommand): string[] {
  const args: string[] = [];
  for (const [name, value] of Object.entries(input.options ?? {})) {
    if (!LONG_NAME.test(name)) throw invalidArgument(`options name "${name}"`, 'a long option name without dashes', name);
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) {
      if (v === false || v === undefined) continue;
      if (v === true || v === null) args.push(`--${name}`);
      else if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) args.push(`--${name}=${v}`);
      else throw invalidArgument(`options.${name}`, 'a string, a number, true or a list of them', v);
    }
  }
  const command = input.command ?? [];
  if (!Array.isArray(command) || command.some((w) => typeof w !== 'string'))
    throw invalidArgument('command', 'an array of strings', command);
  return [...args, ...command];
}
