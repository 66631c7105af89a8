/**
 * The headers in include/ are ABI-identical to Slurm's: same enum values,
 * struct layout, prototypes and linkage. A probe prints every value; it is
 * compiled against our header and, where Debian's libslurm-dev (22.05) is
 * installed, against /usr/include/slurm/spank.h as well.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SPANK_CONTEXTS, SPANK_ERRORS, SPANK_ITEMS, SPANK_OPTION_MAXLEN } from '../lib/spank.js';
import { compilePlugin, compileProgram, includeDir, tempDir, writeFile } from './helpers/plugins.js';

const SYSTEM_HEADER = '/usr/include/slurm/spank.h';
const requireSystemHeader = process.env.PLUGSTACK_REQUIRE_SLURM_HEADERS === '1';
const haveSystemHeader = fs.existsSync(SYSTEM_HEADER);

function probe(include: string, extra: string[] = []): Map<string, string> {
  const exe = compileProgram('header_probe.c', [`-I${include}`, ...extra]);
  const out = execFileSync(exe, { encoding: 'utf8' });
  const values = new Map<string, string>();
  for (const line of out.trim().split('\n')) {
    const at = line.lastIndexOf(' ');
    values.set(line.slice(0, at), line.slice(at + 1));
  }
  return values;
}

describe('include/slurm/spank.h', () => {
  const ours = probe(includeDir, ['-DPROBE_PREPEND']);

  it('has the enum values the TypeScript constants mirror', () => {
    for (const [name, value] of Object.entries(SPANK_ITEMS)) expect(ours.get(`item ${name}`), name).toBe(String(value));
    expect(ours.get('item_count')).toBe('32');
    expect(ours.get('context S_CTX_ERROR')).toBe('0');
    for (const [name, value] of Object.entries(SPANK_CONTEXTS))
      expect(ours.get(`context S_CTX_${name.toUpperCase()}`), name).toBe(String(value));
    for (const [name, value] of Object.entries(SPANK_ERRORS)) expect(ours.get(`error ${name}`), name).toBe(String(value));
    expect(ours.get('error SLURM_SUCCESS')).toBe('0');
    expect(ours.get('error SLURM_ERROR')).toBe('-1');
    expect(ours.get('SPANK_OPTION_MAXLEN')).toBe(String(SPANK_OPTION_MAXLEN));
  });

  it('lays struct spank_option out in 40 bytes at offsets 0, 8, 16, 24, 28, 32', () => {
    expect(ours.get('sizeof struct_spank_option')).toBe('40');
    expect(['name', 'arginfo', 'usage', 'has_arg', 'val', 'cb'].map((f) => ours.get(`offset ${f}`))).toEqual([
      '0', '8', '16', '24', '28', '32',
    ]);
    expect(ours.get('sizeof spank_err_t')).toBe('4');
    expect(ours.get('table_end 1 1 1 0 0')).toBe('1');
  });

  it('declares every callback and API function with Slurm 24.11 types', () => {
    const mismatched = [...ours].filter(([k, v]) => /^(prototype|callback|spank_f|spank_opt_cb_f)/.test(k) && v !== '1');
    expect(mismatched).toEqual([]);
    expect(ours.has('prototype spank_prepend_task_argv')).toBe(true);
    expect(ours.get('version')).toBe('0x180b05');
    expect(ours.get('HAVE_S_CTX_SLURMD')).toBe('1');
    expect(ours.get('HAVE_S_CTX_JOB_SCRIPT')).toBe('1');
  });

  it.skipIf(!haveSystemHeader && !requireSystemHeader)(
    `matches ${SYSTEM_HEADER} except for the version number and the 24.11-only prototype`,
    () => {
      expect(haveSystemHeader, `${SYSTEM_HEADER} is required (install libslurm-dev)`).toBe(true);
      const theirs = probe('/usr/include');
      const differences = [...new Set([...ours.keys(), ...theirs.keys()])]
        .filter((k) => ours.get(k) !== theirs.get(k))
        .sort();
      expect(differences).toEqual(['prototype spank_prepend_task_argv', 'version']);
      expect(theirs.get('version')).toBe('0x160508');
    },
  );

  it('gives the API C linkage when included from C++, and leaves the callbacks as Slurm does', () => {
    const dir = tempDir();
    const src = writeFile(
      dir,
      'probe.cc',
      '#include <slurm/spank.h>\nint use(spank_t sp) { slurm_info("%d", 1); return spank_remote(sp); }\n',
    );
    const obj = path.join(dir, 'probe.o');
    execFileSync('g++', ['-c', `-I${includeDir}`, '-o', obj, src]);
    const undefinedSymbols = execFileSync('nm', ['-u', obj], { encoding: 'utf8' });
    expect(undefinedSymbols).toMatch(/\bspank_remote\b/);
    expect(undefinedSymbols).toMatch(/\bslurm_info\b/);
  });

  it('checks printf formats of the logging functions', () => {
    const dir = tempDir();
    const src = writeFile(dir, 'fmt.c', '#include <slurm/spank.h>\nvoid f(void) { slurm_error("%d", "not a number"); }\n');
    const result = spawnSync('cc', ['-c', '-Werror=format', `-I${includeDir}`, '-o', path.join(dir, 'fmt.o'), src], {
      encoding: 'utf8',
    });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/format/);
  });

  it('SPANK_PLUGIN defines the loader symbols as read-only data', () => {
    const so = compilePlugin('options_probe.c');
    const symbols = execFileSync('nm', ['-D', '--defined-only', so], { encoding: 'utf8' });
    for (const name of ['plugin_name', 'plugin_type', 'plugin_version', 'spank_plugin_version'])
      expect(symbols).toMatch(new RegExp(`\\sR ${name}$`, 'm'));
    expect(symbols).toMatch(/\sD spank_options$/m);
    expect(symbols).toMatch(/\sT slurm_spank_init$/m);
  });
});
