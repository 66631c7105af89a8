/**
 * pluginStack: a Plugstack from plugins and their arguments, without a
 * plugstack.conf written by hand. The file is generated (one line per
 * plugin, `required` unless optional) and kept by content in the kit's
 * cache, so the same stack is the same file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { invalidArgument } from '../errors.js';
import { Plugstack, type LoadOptions } from '../plugstack.js';
import { cacheRoot, contentKey, writeAtomically } from './cache.js';

export interface StackPlugin {
  /** The plugin's shared object (absolute, or relative to the current directory). */
  plugin: string;
  /** Its arguments in plugstack.conf (no whitespace inside one). */
  args?: string[];
  /** An `optional` line: Slurm carries on when the plugin fails to load. */
  optional?: boolean;
}

/** The plugstack.conf text for these plugins. */
export function stackConf(plugins: (string | StackPlugin)[]): string {
  if (!Array.isArray(plugins)) throw invalidArgument('plugins', 'an array of plugin paths or { plugin, args, optional }', plugins);
  return plugins
    .map((p, i) => {
      const entry = typeof p === 'string' ? { plugin: p } : p;
      if (!entry || typeof entry.plugin !== 'string' || entry.plugin === '') throw invalidArgument(`plugins[${i}]`, 'a plugin path or { plugin, args, optional }', p);
      for (const a of entry.args ?? [])
        if (typeof a !== 'string' || a === '' || /\s/.test(a)) throw invalidArgument(`plugins[${i}].args`, 'words without whitespace', a);
      if (/\s/.test(entry.plugin)) throw invalidArgument(`plugins[${i}].plugin`, 'a path without whitespace', entry.plugin);
      return [entry.optional ? 'optional' : 'required', path.resolve(entry.plugin), ...(entry.args ?? [])].join(' ');
    })
    .join('\n') + '\n';
}

/** Loads a stack of these plugins. LoadOptions are Plugstack.load's (slurmVersion, env, ...); pluginDir defaults to none. */
export async function pluginStack(plugins: (string | StackPlugin)[], options: LoadOptions = {}): Promise<Plugstack> {
  const text = stackConf(plugins);
  const dir = path.join(cacheRoot(), 'stacks', contentKey(text));
  const conf = path.join(dir, 'plugstack.conf');
  if (!fs.existsSync(conf)) {
    fs.mkdirSync(dir, { recursive: true });
    writeAtomically(conf, (tmp) => fs.writeFileSync(tmp, text));
  }
  return Plugstack.load(conf, { pluginDir: [], ...options });
}
