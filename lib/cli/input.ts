/**
 * What a file named on the command line is: a plugstack.conf, a plugin (a
 * shared object, which check and help take as the one-line stack
 * "required <plugin>"), or something that is neither (a directory, a
 * device, an executable, another binary), which is a usage error.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PlugstackError } from '../errors.js';
import { UsageError } from './args.js';

export type InputKind = 'config' | 'plugin';

const ET_DYN = 3;
const PT_INTERP = 3;

/** A shared object: ELF of type ET_DYN without a program interpreter (a PIE executable has one). */
function elfKind(head: Buffer): 'shared object' | 'executable' | 'object file' | null {
  if (head.length < 64 || head.readUInt32BE(0) !== 0x7f454c46) return null;
  const is64 = head[4] === 2;
  const little = head[5] === 1;
  const u16 = (o: number) => (little ? head.readUInt16LE(o) : head.readUInt16BE(o));
  const u32 = (o: number) => (little ? head.readUInt32LE(o) : head.readUInt32BE(o));
  const type = u16(16);
  if (type !== ET_DYN) return type === 2 ? 'executable' : 'object file';
  const phoff = is64 ? Number(little ? head.readBigUInt64LE(32) : head.readBigUInt64BE(32)) : u32(28);
  const phentsize = u16(is64 ? 54 : 42);
  const phnum = u16(is64 ? 56 : 44);
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    if (at + 4 > head.length) break;
    if (u32(at) === PT_INTERP) return 'executable';
  }
  return 'shared object';
}

/**
 * Classifies `file`. Missing files are CONF_NOT_FOUND (Slurm would take a
 * missing plugstack.conf as an empty stack, but a file named on plugstack's
 * command line that is not there is a mistake worth stopping).
 */
export function inputKind(file: string): InputKind {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    throw new PlugstackError('CONF_NOT_FOUND', `${file}: no such file`, { file });
  }
  if (st.isDirectory()) throw new UsageError(`${file} is a directory, not a plugstack.conf or a plugin`);
  if (!st.isFile()) throw new UsageError(`${file} is not a regular file (a plugstack.conf or a plugin)`);
  const fd = fs.openSync(file, 'r');
  let head: Buffer;
  try {
    head = Buffer.alloc(4096);
    head = head.subarray(0, fs.readSync(fd, head, 0, head.length, 0));
  } finally {
    fs.closeSync(fd);
  }
  const elf = elfKind(head);
  if (elf === 'shared object') return 'plugin';
  if (elf) throw new UsageError(`${file} is an ELF ${elf}, not a plugin (a shared object) or a plugstack.conf`);
  if (head.includes(0)) throw new UsageError(`${file} is a binary file, not a plugstack.conf or a plugin`);
  return 'config';
}

/**
 * The stack to load for `file`: the file itself, or for a plugin a
 * one-line plugstack.conf in a temporary directory (removed by `dispose`).
 */
export function stackFile(file: string, onPlugin: (line: string) => void): { conf: string; dispose(): void } {
  if (inputKind(file) === 'config') return { conf: file, dispose() {} };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plugstack-check-'));
  const line = `required ${path.resolve(file)}`;
  const conf = path.join(dir, 'plugstack.conf');
  fs.writeFileSync(conf, line + '\n');
  onPlugin(line);
  return { conf, dispose: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
