/**
 * The dynamic linking facts of a shared object, read from its ELF file:
 * the libraries it needs (DT_NEEDED) and the symbols of its dynamic symbol
 * table, undefined (what it expects its process to provide) or defined.
 * Only 64-bit little-endian files are read (x86-64, AArch64); reads are
 * bounded, and anything malformed gives undefined rather than an error:
 * `check` must never fail on a strange file.
 */
import fs from 'node:fs';

export interface DynamicInfo {
  needed: string[];
  /** Undefined function (or untyped) symbols: what the object calls and expects its process to define. */
  undefinedFunctions: string[];
  /** Defined function symbols: what the object provides. */
  definedFunctions: string[];
}

const SHT_DYNAMIC = 6;
const SHT_DYNSYM = 11;
const DT_NEEDED = 1;
const STT_NOTYPE = 0;
const STT_FUNC = 2;
const SHN_UNDEF = 0;
const MAX_SECTION = 64 * 1024 * 1024;

function readAt(fd: number, offset: number, length: number): Buffer | undefined {
  if (length < 0 || length > MAX_SECTION) return undefined;
  const buf = Buffer.alloc(length);
  const n = fs.readSync(fd, buf, 0, length, offset);
  return n === length ? buf : undefined;
}

function cString(buf: Buffer, offset: number): string {
  if (offset < 0 || offset >= buf.length) return '';
  const end = buf.indexOf(0, offset);
  return buf.toString('latin1', offset, end < 0 ? buf.length : end);
}

interface Section {
  type: number;
  offset: number;
  size: number;
  link: number;
}

export function readDynamicInfo(file: string): DynamicInfo | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const header = readAt(fd, 0, 64);
    // \x7fELF, ELFCLASS64, ELFDATA2LSB
    if (!header || header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2 || header[5] !== 1) return undefined;
    const shoff = Number(header.readBigUInt64LE(0x28));
    const shentsize = header.readUInt16LE(0x3a);
    const shnum = header.readUInt16LE(0x3c);
    if (shentsize < 64 || shnum === 0) return undefined;
    const table = readAt(fd, shoff, shentsize * shnum);
    if (!table) return undefined;
    const sections: Section[] = [];
    for (let i = 0; i < shnum; i++) {
      const at = i * shentsize;
      sections.push({
        type: table.readUInt32LE(at + 4),
        offset: Number(table.readBigUInt64LE(at + 0x18)),
        size: Number(table.readBigUInt64LE(at + 0x20)),
        link: table.readUInt32LE(at + 0x28),
      });
    }
    const strings = (s: Section): Buffer | undefined => {
      const str = sections[s.link];
      return str ? readAt(fd, str.offset, str.size) : undefined;
    };
    const info: DynamicInfo = { needed: [], undefinedFunctions: [], definedFunctions: [] };
    for (const s of sections) {
      if (s.type === SHT_DYNAMIC) {
        const data = readAt(fd, s.offset, s.size);
        const str = strings(s);
        if (!data || !str) continue;
        for (let at = 0; at + 16 <= data.length; at += 16) {
          const tag = Number(data.readBigInt64LE(at));
          if (tag === 0) break;
          if (tag === DT_NEEDED) info.needed.push(cString(str, Number(data.readBigUInt64LE(at + 8))));
        }
      } else if (s.type === SHT_DYNSYM) {
        const data = readAt(fd, s.offset, s.size);
        const str = strings(s);
        if (!data || !str) continue;
        for (let at = 24; at + 24 <= data.length; at += 24) {
          const name = cString(str, data.readUInt32LE(at));
          const type = data[at + 4]! & 0xf;
          if (!name || (type !== STT_FUNC && type !== STT_NOTYPE)) continue;
          if (data.readUInt16LE(at + 6) === SHN_UNDEF) info.undefinedFunctions.push(name);
          else if (type === STT_FUNC) info.definedFunctions.push(name);
        }
      }
    }
    return info;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}
