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

/** glibc's strerror text for the errno names opening or executing a file can fail with. */
const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'No such file or directory',
  EACCES: 'Permission denied',
  EPERM: 'Operation not permitted',
  ENOTDIR: 'Not a directory',
  EISDIR: 'Is a directory',
  ELOOP: 'Too many levels of symbolic links',
  ENAMETOOLONG: 'File name too long',
  EMFILE: 'Too many open files',
  ENXIO: 'No such device or address',
  ENOEXEC: 'Exec format error',
  ETXTBSY: 'Text file busy',
  E2BIG: 'Argument list too long',
  ENOMEM: 'Cannot allocate memory',
};

/** strerror's text for an errno name ('ENOENT'), where the table has it. */
export function errnoText(code: string): string | undefined {
  return ERRNO_TEXT[code];
}

/** strerror's text for a Node error (its code), else the error's own message. */
export function strerrorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  return ERRNO_TEXT[code] ?? (error instanceof Error ? error.message : String(error));
}
