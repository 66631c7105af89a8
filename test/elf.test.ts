/**
 * The dynamic linking facts check reads from a plugin's file (lib/check/
 * elf.ts), held to binutils' readelf on real shared objects, and never an
 * error for a file that is not one: check must not fail on a strange file.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDynamicInfo } from '../lib/check/elf.js';
import { hostExecutable } from '../lib/native/paths.js';
import { compilePlugin, tempDir } from './helpers/plugins.js';

/** What readelf says of a shared object: DT_NEEDED, and its function (or untyped) dynamic symbols. */
function readelf(file: string) {
  const needed = [...execFileSync('readelf', ['-dW', file], { encoding: 'utf8' }).matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]!);
  const undefinedFunctions: string[] = [];
  const definedFunctions: string[] = [];
  for (const line of execFileSync('readelf', ['--dyn-syms', '-W', file], { encoding: 'utf8' }).split('\n')) {
    // Num: Value Size Type Bind Vis Ndx Name
    const f = line.trim().split(/\s+/);
    if (f.length < 8 || !/^\d+:$/.test(f[0]!) || f[0] === '0:') continue;
    const [type, ndx] = [f[3]!, f[6]!];
    const name = f[7]!.replace(/@.*$/, '');
    if (type !== 'FUNC' && type !== 'NOTYPE') continue;
    if (ndx === 'UND') undefinedFunctions.push(name);
    else if (type === 'FUNC') definedFunctions.push(name);
  }
  return { needed, undefinedFunctions, definedFunctions };
}

const sorted = (info: { needed: string[]; undefinedFunctions: string[]; definedFunctions: string[] }) => ({
  needed: info.needed,
  undefinedFunctions: [...info.undefinedFunctions].sort(),
  definedFunctions: [...info.definedFunctions].sort(),
});

describe('readDynamicInfo', () => {
  it("reads what readelf reads, for a plugin and for plugstack's own library, in any order", () => {
    const plugin = compilePlugin('recorder.c');
    const library = path.join(path.dirname(hostExecutable()), 'libslurmhost.so');
    const files = [plugin, library, plugin];
    // One after another, as check reads a stack: each file's ranges are
    // read into a buffer kept from file to file, a big file's into its own.
    const read = files.map((f) => readDynamicInfo(f));
    for (const [i, f] of files.entries()) expect(sorted(read[i]!), f).toEqual(sorted(readelf(f)));
    expect(read[0]!.undefinedFunctions).toContain('spank_get_item');
    expect(read[1]!.definedFunctions.length).toBeGreaterThan(100);
  });

  it('reads a symbol table bigger than the buffer it keeps (64 KB) into one of its own', () => {
    const dir = tempDir();
    const source = path.join(dir, 'many.c');
    // 4000 functions: a 96 KB .dynsym.
    fs.writeFileSync(source, Array.from({ length: 4000 }, (_, i) => `int exported_${i}(void) { return ${i}; }\n`).join(''));
    const many = path.join(dir, 'many.so');
    execFileSync('cc', ['-shared', '-fPIC', '-o', many, source]);
    const before = readDynamicInfo(compilePlugin('recorder.c'));
    const info = readDynamicInfo(many)!;
    expect(info.definedFunctions.filter((n) => n.startsWith('exported_'))).toHaveLength(4000);
    expect(sorted(info)).toEqual(sorted(readelf(many)));
    // and the kept buffer still serves the next file as before
    expect(readDynamicInfo(compilePlugin('recorder.c'))).toEqual(before);
  });

  it('gives undefined, never an error, for a file that is not a whole ELF shared object', () => {
    const plugin = fs.readFileSync(compilePlugin('recorder.c'));
    const dir = tempDir();
    const cases: [string, Buffer | null][] = [
      ['empty', Buffer.alloc(0)],
      ['text', Buffer.from('required foo.so\n')],
      ['header only', plugin.subarray(0, 64)],
      ['cut in its sections', plugin.subarray(0, plugin.length >> 1)],
      ['its section table cut', plugin.subarray(0, plugin.length - 100)],
      ['a directory', null],
    ];
    for (const [name, bytes] of cases) {
      const file = path.join(dir, name.replace(/ /g, '-'));
      if (bytes) fs.writeFileSync(file, bytes);
      else fs.mkdirSync(file);
      expect(readDynamicInfo(file), name).toBeUndefined();
    }
    expect(readDynamicInfo(path.join(dir, 'missing.so'))).toBeUndefined();
  });
});
