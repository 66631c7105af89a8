/** plugstack.conf as plugstack reads it in-process (no plugin code runs). */
import { native } from './native/binding.js';

export interface ConfigPluginLine {
  kind: 'plugin';
  /** Position among the plugin lines, includes expanded; reports use it as the plugin's ref. */
  ref: number;
  file: string;
  line: number;
  required: boolean;
  /** The path as written: absolute, or relative to the PluginDir list. */
  path: string;
  args: string[];
}

export interface ConfigDiagnostic {
  kind: 'diagnostic';
  severity: 'error' | 'warning';
  code: string;
  message: string;
  file?: string;
  line?: number;
  /** The lines Slurm itself logs for this input. */
  slurmLog: { level: string; text: string }[];
}

export interface ParsedConfig {
  /** False when Slurm would fail to create the stack (unreadable file, include loop). */
  ok: boolean;
  /** The file does not exist; Slurm treats that as an empty stack. */
  missing: boolean;
  /** Plugin lines and diagnostics in the order Slurm meets them. */
  items: (ConfigPluginLine | ConfigDiagnostic)[];
}

/** Parses a plugstack.conf with Slurm's rules (comments, keywords, includes). */
export function parseConfig(file: string): ParsedConfig {
  return native().parseConfig(file);
}
