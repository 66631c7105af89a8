/**
 * compilePlugin: a SPANK plugin from a C file or a C string, built against
 * plugstack's headers for the Slurm release of your choice, exactly as
 * `plugstack cc` builds it, and cached by content (source, arguments,
 * compiler, headers).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ccCommand, parseRelease } from '../cli/cc.js';
import { invalidArgument, PlugstackError } from '../errors.js';
import { includeDir } from '../native/paths.js';
import { cacheRoot, contentKey, writeAtomically } from './cache.js';

export interface CompileOptions {
  /** The release the plugin is built for: its version goes into plugin_version. "24.11" (default) or "22.05". */
  slurmVersion?: string;
  /** -D definitions: { DEBUG: true, LEVEL: 3 }. */
  defines?: Record<string, string | number | true>;
  /** More compiler or linker arguments (-O2, -lm, ...). */
  args?: string[];
  /** The file name of the plugin, without .so (default: the source's name, or "plugin" for a string). */
  name?: string;
  /** The compiler (default: $CC, else cc). */
  compiler?: string;
}

/** C source text to compile instead of a file. */
export interface PluginSource {
  code: string;
  /** The plugin's file name, without .so (default "plugin"). */
  name?: string;
}

let headers: string | undefined;
function headersDigest(): string {
  if (headers) return headers;
  const dir = path.join(includeDir, 'slurm');
  headers = contentKey(...fs.readdirSync(dir).sort().flatMap((f) => [f, fs.readFileSync(path.join(dir, f))]));
  return headers;
}

/**
 * Compiles the plugin and returns the path of its shared object. A source
 * already built with the same arguments is not built again. Compiler
 * errors are thrown as a PlugstackError (INVALID_ARGUMENT) with the
 * compiler's output.
 */
export function compilePlugin(source: string | PluginSource, options: CompileOptions = {}): string {
  if (typeof source !== 'string' && (source === null || typeof source !== 'object' || typeof source.code !== 'string'))
    throw invalidArgument('source', 'a path to a C file or { code: string }', source);
  const release = options.slurmVersion === undefined ? undefined : parseReleaseOrThrow(options.slurmVersion);
  const file = typeof source === 'string' ? path.resolve(source) : undefined;
  let code: Buffer;
  try {
    code = file ? fs.readFileSync(file) : Buffer.from((source as PluginSource).code);
  } catch (cause) {
    throw new PlugstackError('INVALID_ARGUMENT', `cannot read the plugin source ${file}: ${(cause as Error).message}`, { cause });
  }
  const name = options.name ?? (file ? path.basename(file).replace(/\.[^.]*$/, '') : ((source as PluginSource).name ?? 'plugin'));
  if (!/^[A-Za-z0-9_.+-]+$/.test(name)) throw invalidArgument('options.name', 'a file name without a directory', name);
  const defines = Object.entries(options.defines ?? {}).map(([k, v]) => (v === true ? `-D${k}` : `-D${k}=${v}`));
  const compiler = options.compiler ?? (process.env.CC || 'cc');
  const extra = [...defines, ...(options.args ?? [])];
  const key = contentKey(code, JSON.stringify([extra, compiler, release ?? '24.11', file ? path.extname(file) : '.c']), headersDigest());
  const dir = path.join(cacheRoot(), 'plugins', key);
  const out = path.join(dir, `${name}.so`);
  if (fs.existsSync(out)) return out;
  fs.mkdirSync(dir, { recursive: true });
  // A string is compiled from a file next to the result, so that compiler
  // messages name a file the author can open.
  const input = file ?? path.join(dir, `${name}.c`);
  if (!file) fs.writeFileSync(input, code);
  writeAtomically(out, (tmp) => {
    const command = ccCommand([...extra, '-o', tmp, input], release, compiler);
    try {
      execFileSync(command[0]!, command.slice(1), { stdio: 'pipe' });
    } catch (cause) {
      const e = cause as { stderr?: Buffer; message: string };
      throw new PlugstackError('INVALID_ARGUMENT', `compiling ${input} failed:\n${e.stderr?.toString() || e.message}`, { cause });
    }
  });
  return out;
}

function parseReleaseOrThrow(value: string) {
  try {
    return parseRelease(value);
  } catch {
    throw new PlugstackError('UNSUPPORTED_SLURM_VERSION', `Slurm ${value} is not emulated; use 24.11 or 22.05`);
  }
}
