/**
 * Node's names for signal and errno numbers, the first of aliases as Node
 * names them (SIGABRT, not SIGIOT), made when first asked for.
 */
import os from 'node:os';

let signals: Map<number, NodeJS.Signals> | undefined;
let errnos: Map<number, string> | undefined;

function firstNames<T extends string>(table: Record<string, number>): Map<number, T> {
  const names = new Map<number, T>();
  for (const [name, n] of Object.entries(table)) if (!names.has(n)) names.set(n, name as T);
  return names;
}

export function signalNameOf(n: number): NodeJS.Signals | undefined {
  return (signals ??= firstNames<NodeJS.Signals>(os.constants.signals)).get(n);
}

export function errnoNameOf(n: number): string | undefined {
  return (errnos ??= firstNames<string>(os.constants.errno)).get(n);
}
