/**
 * The picture of a run: a failed 64-task srun on four nodes, drawn by
 * renderTimeline. The SVG must hold every call of the result, a lane per
 * process and the fault, named; a real headless browser (Debian's
 * chromium) must draw it: the screenshot is read back pixel by pixel.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommandResult } from '../lib/commands/types.js';
import { PlugstackError } from '../lib/errors.js';
import { Plugstack } from '../lib/plugstack.js';
import { renderTimeline } from '../lib/timeline/index.js';
import { haveChromium, screenshot } from './helpers/browser.js';
import { compilePlugin, tempDir, writeFile } from './helpers/plugins.js';
import { readPng } from './helpers/png.js';
import { leftBehind } from './helpers/processes.js';

const dirs: string[] = [];
let result: CommandResult;
let svg = '';
let svgFile = '';

beforeAll(async () => {
  const dir = tempDir();
  dirs.push(dir);
  const hello = compilePlugin('../../../examples/hello/hello.c');
  const recorder = compilePlugin('recorder.c');
  // Task 37's task_init crashes; every other call goes well.
  const conf = writeFile(dir, 'plugstack.conf', `required ${hello}\nrequired ${recorder} log=${dir}/rec.log crash=task_init only=37\n`);
  const stack = await Plugstack.load(conf, { pluginDir: [] });
  result = await stack.srun({ args: ['-N', '4', '-n', '64', '--greeting=hej', 'true'], cwd: dir, env: { PATH: '/usr/bin:/bin' } });
  svg = renderTimeline(result);
  svgFile = path.join(dir, 'timeline.svg');
  fs.writeFileSync(svgFile, svg);
});

afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function attributes(tag: string): Record<string, string> {
  return Object.fromEntries([...tag.matchAll(/ (data-[a-z]+|class)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
}

const unescape = (s: string) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

describe('renderTimeline of a failed 64-task srun', () => {
  it('is the run it draws: srun failed with task 37’s SIGSEGV', () => {
    expect(result.exitCode).toBe(139);
    expect(result.steps[0]!.tasks).toHaveLength(64);
    expect(result.steps[0]!.problems).toContainEqual(expect.objectContaining({ code: 'PLUGIN_CRASHED', task: 37, hook: 'slurm_spank_task_init' }));
  });

  it('holds every call of the result, each with its plugin, hook and rc', () => {
    const calls = [...result.client.calls, ...result.jobScripts.flatMap((j) => j.calls), ...result.steps.flatMap((s) => s.calls)];
    const expected = calls.map((c) => `${c.plugin}|${c.hook}|${c.rc ?? ''}`).sort();
    const drawn = [...svg.matchAll(/<g class="call [^>]*>/g)].map((m) => attributes(m[0])).map((a) => `${unescape(a['data-plugin']!)}|${unescape(a['data-hook']!)}|${a['data-rc'] ?? ''}`);
    expect(drawn.sort()).toEqual(expected);
    expect(calls.length).toBeGreaterThan(64 * 2);
    // Every call started at a known time.
    expect(calls.every((c) => typeof c.at === 'number')).toBe(true);
  });

  it('has a lane per process: srun, each prolog, each node’s stepd, each task', () => {
    const kinds = [...svg.matchAll(/<g class="lane [^"]*" data-lane="\d+" data-kind="([a-z]+)"/g)].map((m) => m[1]);
    const count = (k: string) => kinds.filter((x) => x === k).length;
    expect(count('client')).toBe(1);
    expect(count('stepd')).toBe(4);
    expect(count('task')).toBe(64);
    expect(count('prolog')).toBe(result.jobScripts.filter((j) => j.mode === 'prolog').length);
    expect(count('prolog')).toBe(4);
    expect(kinds).toHaveLength(1 + count('prolog') + 4 + 64 + count('epilog'));
  });

  it('marks and names the fault on task 37’s lane, with its exit status', () => {
    const lane = /<g class="lane task" data-lane="\d+" data-kind="task">(?:(?!<\/g>\n<g class="lane)[\s\S])*?task 37<\/text>[\s\S]*?(?=<g class="lane |<rect x="\d+" y="\d+" width="12")/.exec(svg)?.[0] ?? '';
    expect(lane).toContain('SIGSEGV');
    expect(lane).toContain('data-code="PLUGIN_CRASHED"');
    expect(lane).toMatch(/PLUGIN_CRASHED [^<]*recorder[^<]* task_init/);
    // The other tasks exited 0.
    expect(svg.match(/>exit 0</g)).toHaveLength(63);
  });

  it('gives hover text with the details of each call', () => {
    const first = /<g class="call ok"[^>]*><title>([^<]*)<\/title>/.exec(svg)![1]!;
    expect(first).toMatch(/: slurm_spank_init|: dlopen|: init\(\)/);
    expect(first).toMatch(/started at \+/);
    expect(first).toMatch(/took \d/);
  });

  it('draws a step, a prolog and a slurmd record too; anything else is INVALID_ARGUMENT', async () => {
    expect(renderTimeline(result.steps[0]!)).toContain('data-kind="stepd"');
    expect(renderTimeline(result.jobScripts[0]!)).toContain('data-kind="prolog"');
    expect(renderTimeline({ node: 'node0', record: { calls: [], items: [], env: [], log: [], problems: [] } })).toContain('data-kind="slurmd"');
    expect(() => renderTimeline(42 as never)).toThrow(PlugstackError);
    expect(() => renderTimeline({} as never)).toThrow(/Expected the result of srun/);
  });
});

const browser = haveChromium();

describe.skipIf(!browser)(browser ? 'in a headless chromium' : 'in a headless chromium: skipped, /usr/bin/chromium is not installed (apt-get install chromium)', () => {
  it('draws every lane label, the bars and the fault mark', async () => {
    const width = Number(/ width="(\d+)"/.exec(svg)![1]);
    const height = Number(/ height="(\d+)"/.exec(svg)![1]);
    const { png, profile } = await screenshot(svgFile, width, height);
    dirs.push(profile);
    expect(await leftBehind([profile])).toEqual([]);
    const img = readPng(png);
    expect(img.width).toBeGreaterThanOrEqual(width);
    const dark = (x: number, y: number) => img.at(x, y).every((v) => v < 140);
    const band = (y: number, x0: number, x1: number, test: (x: number, y: number) => boolean) => {
      for (let yy = Math.max(0, y - 6); yy <= Math.min(img.height - 1, y + 6); yy++) for (let x = x0; x < x1; x++) if (test(x, yy)) return true;
      return false;
    };
    // Not blank: a good share of the picture is not white (a blank page has none).
    let ink = 0;
    for (let y = 0; y < img.height; y += 3) for (let x = 0; x < img.width; x += 3) if (img.at(x, y).some((v) => v < 235)) ink++;
    expect(ink / ((img.height / 3) * (img.width / 3))).toBeGreaterThan(0.02);
    // Each lane's label is drawn where the SVG puts it.
    const labels = [...svg.matchAll(/<text class="lane-label [a-z]+" x="8" y="([\d.]+)"><title>[^<]*<\/title>([^<]*)<\/text>/g)];
    expect(labels).toHaveLength(69 + result.jobScripts.length);
    const missing = labels.filter((m) => !band(Number(m[1]) - 4, 8, 120, dark)).map((m) => m[2]);
    expect(missing).toEqual([]);
    // Blue bars of calls, and the red mark on task 37's lane.
    const blue = (x: number, y: number) => {
      const [r, g, b] = img.at(x, y);
      return r < 90 && g > 110 && g < 150 && b > 170;
    };
    const red = (x: number, y: number) => {
      const [r, g, b] = img.at(x, y);
      return r > 180 && g < 40 && b < 40;
    };
    const lane37 = labels.find((m) => m[2]!.trim() === 'task 37')!;
    const y37 = Number(lane37[1]) - 4;
    expect(band(y37, 200, img.width, red)).toBe(true);
    const stepd = labels.find((m) => m[2]!.includes('node0 stepd'))!;
    expect(band(Number(stepd[1]) - 4, 200, 1200, blue)).toBe(true);
  });
});
