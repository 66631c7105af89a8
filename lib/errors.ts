/**
 * Errors thrown by plugstack. Every error is a PlugstackError with a stable
 * `code`; tests and tools should switch on the code, never on the message.
 */

export type PlugstackErrorCode =
  /** An argument of an API call or CLI option is invalid. */
  | 'INVALID_ARGUMENT'
  /** The Slurm version asked for is not one plugstack emulates. */
  | 'UNSUPPORTED_SLURM_VERSION'
  /** A file named explicitly (a plugstack.conf given to the CLI) does not exist. */
  | 'CONF_NOT_FOUND'
  /** The native addon or the plugstack-host executable could not be found. */
  | 'NATIVE_NOT_FOUND'
  /** A host process broke the frame protocol (a plugstack bug, or a plugin writing to our socket). */
  | 'HOST_PROTOCOL'
  /** A host process failed outside any plugin code. */
  | 'HOST_FAILED'
  /** The step asks for another user, which needs root. */
  | 'PERMISSION_DENIED';

export interface PlugstackErrorDetails {
  /** The plugstack.conf involved, with the line when there is one. */
  file?: string;
  line?: number;
  /** The plugin (its path as written in the config) and the hook, when plugin code was running. */
  plugin?: string;
  hook?: string;
  cause?: unknown;
}

export class PlugstackError extends Error {
  readonly code: PlugstackErrorCode;
  readonly file?: string;
  readonly line?: number;
  readonly plugin?: string;
  readonly hook?: string;

  constructor(code: PlugstackErrorCode, message: string, details: PlugstackErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'PlugstackError';
    this.code = code;
    if (details.file !== undefined) this.file = details.file;
    if (details.line !== undefined) this.line = details.line;
    if (details.plugin !== undefined) this.plugin = details.plugin;
    if (details.hook !== undefined) this.hook = details.hook;
  }
}

/** One message shape for every invalid argument: what was expected, what came. */
export function invalidArgument(what: string, expected: string, got: unknown): PlugstackError {
  const shown = typeof got === 'string' ? JSON.stringify(got) : `${String(got)} (${typeof got})`;
  return new PlugstackError('INVALID_ARGUMENT', `Expected ${expected} for ${what} but received ${shown}`);
}
