/** A small command-line parser: long options with values, flags, positionals. */

export class UsageError extends Error {}

export interface OptionSpec {
  /** Takes a value (`--name value` or `--name=value`). */
  value?: boolean;
}

export interface ParsedArgs {
  positionals: string[];
  values: Map<string, string>;
  flags: Set<string>;
}

export function parseArgs(argv: string[], spec: Record<string, OptionSpec>): ParsedArgs {
  const out: ParsedArgs = { positionals: [], values: new Map(), flags: new Set() };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--') || arg === '-') {
      out.positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    const s = spec[name];
    if (!s) throw new UsageError(`unknown option --${name}`);
    if (s.value) {
      const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(`option --${name} needs a value`);
      out.values.set(name, value);
    } else {
      if (eq >= 0) throw new UsageError(`option --${name} takes no value`);
      out.flags.add(name);
    }
  }
  return out;
}
