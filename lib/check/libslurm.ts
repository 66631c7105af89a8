/**
 * Which of Slurm's library functions a plugin calls, and who answers them
 * in plugstack's processes: read from the plugin's file (its undefined
 * dynamic symbols and the libraries it needs), Slurm's public API table
 * (generated from both releases' headers) and the functions
 * libslurmhost.so exports. A plugin linked with -lslurm whose libslurm is
 * not installed cannot load at all; the report names the missing library.
 */
import fs from 'node:fs';
import path from 'node:path';
import { hostExecutable } from '../native/paths.js';
import { readDynamicInfo, type DynamicInfo } from './elf.js';
import { LIBSLURM_API } from './libslurm-api.generated.js';
import { releaseOf } from '../releases.generated.js';
import type { LibslurmFunctionReport, LibslurmReport } from './types.js';

/** Names that belong to Slurm's libraries rather than to the SPANK API. */
function isLibslurmName(name: string): boolean {
  return /^(slurm_|slurmdb_|islurm_)/.test(name) || name in LIBSLURM_API;
}

let hostExports: Set<string> | undefined;

/** The functions libslurmhost.so defines (next to plugstack-host, or one level up). */
function plugstackExports(): Set<string> {
  if (hostExports) return hostExports;
  hostExports = new Set();
  try {
    const dir = path.dirname(hostExecutable());
    for (const d of [dir, path.dirname(dir)]) {
      const lib = path.join(d, 'libslurmhost.so');
      if (!fs.existsSync(lib)) continue;
      for (const name of readDynamicInfo(lib)?.definedFunctions ?? []) hostExports.add(name);
      break;
    }
  } catch {
    // no host: nothing is answered
  }
  return hostExports;
}

/** What is known of a plugin file while it stays the same file, unchanged. */
interface FileFacts {
  stamp: string;
  info: DynamicInfo | undefined;
  /** Its reports, by release and missing libraries. */
  reports: Map<string, LibslurmReport>;
}

const files = new Map<string, FileFacts>();

function fileFacts(file: string): FileFacts | undefined {
  let stamp: string;
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return undefined;
    stamp = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return undefined;
  }
  const hit = files.get(file);
  if (hit && hit.stamp === stamp) return hit;
  const facts: FileFacts = { stamp, info: readDynamicInfo(file), reports: new Map() };
  files.set(file, facts);
  return facts;
}

/** The library a dlopen error says could not be found, unless it is the plugin itself. */
export function missingLibrary(dlerror: string, pluginPath: string): string | undefined {
  const m = /([^\s:]+): cannot open shared object file/.exec(dlerror);
  if (!m || m[1] === pluginPath || path.resolve(m[1]!) === path.resolve(pluginPath)) return undefined;
  return m[1];
}

/**
 * The report for one plugin file's facts, for the emulated release
 * ("24.11", "22.05"); missing is what the dynamic loader could not find
 * when the plugin was loaded.
 */
function libslurmReport(info: DynamicInfo, slurmVersion: string, missing: string[]): LibslurmReport {
  const release = releaseOf(slurmVersion);
  const ours = plugstackExports();
  const linksLibslurm = info.needed.some((n) => /^libslurm(full)?[.-]/.test(n) && !missing.includes(n));
  const functions: LibslurmFunctionReport[] = [];
  for (const name of [...new Set(info.undefinedFunctions)].filter(isLibslurmName).sort()) {
    const api = LIBSLURM_API[name];
    let answer: LibslurmFunctionReport['answer'];
    if (!ours.has(name)) answer = linksLibslurm ? 'libslurm' : 'undefined';
    else if (api && !api.releases.includes(release)) answer = 'not-in-release';
    else if (api && !api.implemented) answer = 'not-emulated';
    else answer = 'plugstack';
    functions.push({ name, answer, ...(api ? { header: api.header } : {}) });
  }
  return {
    needed: info.needed,
    missing,
    functions,
  };
}

/** A report of its own for each context: what a caller does to one touches no other. */
function copyOf(report: LibslurmReport): LibslurmReport {
  return { needed: [...report.needed], missing: [...report.missing], functions: report.functions.map((f) => ({ ...f })) };
}

/**
 * A plugin file's report, by its path and what its loading found missing;
 * undefined when the file cannot be read as ELF.
 */
export type LibslurmReports = (file: string, missing: string[]) => LibslurmReport | undefined;

/**
 * The reports of one check, for the emulated release. A file is looked at
 * (a stat) once for all the contexts that load it, not once per context (a
 * check of 40 plugins in five contexts made 200 stats, about 3 ms of
 * Node's time per check on the PVM guest), read again only when it
 * changed, and its report made once per release and missing libraries.
 */
export function libslurmReports(slurmVersion: string): LibslurmReports {
  const seen = new Map<string, FileFacts | undefined>();
  return (file, missing) => {
    if (!seen.has(file)) seen.set(file, fileFacts(file));
    const facts = seen.get(file);
    if (!facts?.info) return undefined;
    const key = [slurmVersion, ...missing].join('\0');
    let report = facts.reports.get(key);
    if (!report) {
      report = libslurmReport(facts.info, slurmVersion, missing);
      facts.reports.set(key, report);
    }
    return copyOf(report);
  };
}
