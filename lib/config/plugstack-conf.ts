/** plugstack.conf as plugstack reads it in-process (no plugin code runs). */
import { native, type NativeDiagnostic, type NativeParsedConf, type NativePluginLine } from '../native/binding.js';

/**
 * A plugin line: `ref` is its position among the plugin lines (includes
 * expanded), which reports use to name the plugin; `path` is as written,
 * absolute or relative to the PluginDir list.
 */
export type ConfigPluginLine = NativePluginLine;
/** A problem in the file, with the lines Slurm itself logs for it (`slurmLog`). */
export type ConfigDiagnostic = NativeDiagnostic;
/**
 * `ok` is false when Slurm would fail to create the stack (unreadable file,
 * include loop); `missing` when the file does not exist, which Slurm treats
 * as an empty stack; `items` are plugin lines and diagnostics in the order
 * Slurm meets them.
 */
export type ParsedConfig = NativeParsedConf;

/** Parses a plugstack.conf with Slurm's rules (comments, keywords, includes). */
export function parseConfig(file: string): ParsedConfig {
  return native().parseConfig(file);
}
