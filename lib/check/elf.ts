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
/** An unsigned 64-bit field as a number: exact below 2^53, beyond every bound checked here. */
function u64(buf: Buffer, at: number): number {
  return buf.readUInt32LE(at + 4) * 0x1_0000_0000 + buf.readUInt32LE(at);
}

/**
 * Where a file's ranges are read: one 64 KB buffer kept from file to file,
 * each range a part of it, so that reading the 40 plugins of a stack does
 * not touch fresh memory for each (on a virtual machine a fresh page costs
 * a page fault of ~14 µs, more than the read). When it is full a new one
 * takes its place; a range bigger than it gets a buffer of its own, which
 * is not kept. What a caller keeps is strings, never these bytes.
 */
const SCRATCH_SIZE = 64 * 1024;
let scratch = Buffer.allocUnsafe(SCRATCH_SIZE);

class RangeReader {
  private used = 0;

  constructor(private readonly fd: number) {}

  at(offset: number, length: number): Buffer | undefined {
    if (length < 0 || length > MAX_SECTION || offset < 0) return undefined;
    let buf: Buffer;
    if (length > SCRATCH_SIZE) buf = Buffer.allocUnsafe(length);
    else {
      if (this.used + length > SCRATCH_SIZE) {
        scratch = Buffer.allocUnsafe(SCRATCH_SIZE);
        this.used = 0;
      }
      buf = scratch.subarray(this.used, this.used + length);
      this.used += (length + 7) & ~7;
    }
    const n = fs.readSync(this.fd, buf, 0, length, offset);
    return n === length ? buf : undefined;
  }
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
    const elf = new RangeReader(fd);
    const header = elf.at(0, 64);
    // \x7fELF, ELFCLASS64, ELFDATA2LSB
    if (!header || header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2 || header[5] !== 1) return undefined;
    const shoff = u64(header, 0x28);
    const shentsize = header.readUInt16LE(0x3a);
    const shnum = header.readUInt16LE(0x3c);
    if (shentsize < 64 || shnum === 0) return undefined;
    const table = elf.at(shoff, shentsize * shnum);
    if (!table) return undefined;
    const sections: Section[] = [];
    for (let i = 0; i < shnum; i++) {
      const at = i * shentsize;
      sections.push({ type: table.readUInt32LE(at + 4), offset: u64(table, at + 0x18), size: u64(table, at + 0x20), link: table.readUInt32LE(at + 0x28) });
    }
    const strings = (s: Section): Buffer | undefined => {
      const str = sections[s.link];
      return str ? elf.at(str.offset, str.size) : undefined;
    };
    const info: DynamicInfo = { needed: [], undefinedFunctions: [], definedFunctions: [] };
    for (const s of sections) {
      if (s.type === SHT_DYNAMIC) {
        const data = elf.at(s.offset, s.size);
        const str = strings(s);
        if (!data || !str) continue;
        for (let at = 0; at + 16 <= data.length; at += 16) {
          // d_tag is signed, but both tags looked at are small and positive.
          const tagLow = data.readUInt32LE(at);
          const tagHigh = data.readUInt32LE(at + 4);
          if (tagLow === 0 && tagHigh === 0) break;
          if (tagLow === DT_NEEDED && tagHigh === 0) info.needed.push(cString(str, u64(data, at + 8)));
        }
      } else if (s.type === SHT_DYNSYM) {
        const data = elf.at(s.offset, s.size);
        const str = strings(s);
        if (!data || !str) continue;
        for (let at = 24; at + 24 <= data.length; at += 24) {
          const type = data[at + 4]! & 0xf;
          if (type !== STT_FUNC && type !== STT_NOTYPE) continue;
          const undefinedHere = data.readUInt16LE(at + 6) === SHN_UNDEF;
          if (!undefinedHere && type !== STT_FUNC) continue;
          const name = cString(str, data.readUInt32LE(at));
          if (!name) continue;
          (undefinedHere ? info.undefinedFunctions : info.definedFunctions).push(name);
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
