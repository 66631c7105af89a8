/**
 * Draws a timeline model as a standalone SVG: a label column, one lane per
 * process, a time axis in milliseconds from the first thing that happened.
 * Every element has a <title>, which browsers show on hover.
 */
import type { TimelineBar, TimelineLane, TimelineMark, TimelineModel } from './lanes.js';

const LABEL_W = 200;
const PLOT_W = 1000;
const RIGHT = 320;
const LANE_H = 20;
const BAR_H = 12;
const TOP = 58;
const CHAR_W = 6.2;

export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function duration(us: number): string {
  if (us < 1000) return `${us} µs`;
  if (us < 1_000_000) return `${(us / 1000).toFixed(us < 10_000 ? 2 : 1)} ms`;
  return `${(us / 1_000_000).toFixed(2)} s`;
}

function shortHook(hook: string): string {
  return hook.startsWith('slurm_spank_') ? hook.slice('slurm_spank_'.length) : hook;
}

/** Every moment the model knows of, to scale the axis. */
function span(model: TimelineModel): { t0: number; t1: number } {
  let t0 = Infinity;
  let t1 = -Infinity;
  const see = (t: number | undefined) => {
    if (t === undefined) return;
    t0 = Math.min(t0, t);
    t1 = Math.max(t1, t);
  };
  for (const lane of model.lanes) {
    for (const b of lane.bars) {
      see(b.at);
      if (b.at !== undefined && b.us !== undefined) see(b.at + b.us);
    }
    see(lane.life?.start);
    see(lane.life?.end);
  }
  if (!Number.isFinite(t0)) return { t0: 0, t1: 1 };
  return { t0, t1: Math.max(t1, t0 + 1) };
}

function niceStep(total: number, ticks: number): number {
  const raw = total / ticks;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

interface Scale {
  x(t: number): number;
  t0: number;
  t1: number;
}

function barTitle(b: TimelineBar, lane: TimelineLane, t0: number): string {
  const lines = [`${b.plugin}: ${b.hook}`, lane.title];
  if (b.task !== undefined) lines.push(`task ${b.task}`);
  if (b.at !== undefined) lines.push(`started at +${duration(b.at - t0)}`);
  lines.push(b.us === undefined ? 'never returned' : `took ${duration(b.us)}`);
  if (b.rc !== undefined) lines.push(`rc ${b.rc}${b.failed ? ' (failed)' : ''}`);
  return lines.join('\n');
}

function drawBars(lane: TimelineLane, index: number, y: number, s: Scale, out: string[]): void {
  // Bars the host gave no start for follow the one before.
  let cursor = s.t0;
  for (const b of lane.bars) {
    const at = b.at ?? cursor;
    const end = b.us === undefined ? s.t1 : at + b.us;
    cursor = end;
    const x = s.x(at);
    const w = Math.max(2, s.x(end) - x);
    const cls = b.us === undefined ? 'open' : b.failed ? 'failed' : 'ok';
    const label = `${shortHook(b.hook)}${b.rc !== undefined && b.rc !== 0 ? ` rc ${b.rc}` : ''}${b.us === undefined ? ' (never returned)' : ''}`;
    out.push(
      `<g class="call ${cls}" data-lane="${index}" data-plugin="${escapeXml(b.plugin)}" data-hook="${escapeXml(b.hook)}"${b.rc !== undefined ? ` data-rc="${b.rc}"` : ''}${b.task !== undefined ? ` data-task="${b.task}"` : ''}>` +
        `<title>${escapeXml(barTitle(b, lane, s.t0))}</title>` +
        `<rect x="${x.toFixed(1)}" y="${y + (LANE_H - BAR_H) / 2}" width="${w.toFixed(1)}" height="${BAR_H}" rx="2"/>` +
        (w > label.length * CHAR_W + 6 ? `<text x="${(x + 3).toFixed(1)}" y="${y + LANE_H / 2 + 4}">${escapeXml(label)}</text>` : '') +
        `</g>`,
    );
  }
}

function drawLife(lane: TimelineLane, y: number, s: Scale, out: string[]): void {
  const life = lane.life;
  if (!life) return;
  const start = life.start ?? lane.bars.find((b) => b.at !== undefined)?.at ?? s.t0;
  const end = life.end ?? s.t1;
  const x = s.x(start);
  const w = Math.max(1, s.x(end) - x);
  const cls = life.ok ? 'life' : 'life bad';
  out.push(
    `<g class="${cls}"><title>${escapeXml(`${lane.title}\nforked at +${duration(start - s.t0)}${life.end !== undefined ? `, reaped at +${duration(end - s.t0)}` : ''}`)}</title>` +
      `<rect x="${x.toFixed(1)}" y="${y + LANE_H / 2 - 2}" width="${w.toFixed(1)}" height="4"/>` +
      `<text class="status" x="${(x + w + 8).toFixed(1)}" y="${y + LANE_H / 2 + 4}">${escapeXml(life.status)}</text></g>`,
  );
}

function drawMarks(marks: TimelineMark[], lane: TimelineLane, y: number, s: Scale, out: string[]): void {
  // A mark without a call to sit on goes where the process ended (a task's
  // reaping), else after the lane's last call.
  const ends = lane.bars.filter((b) => b.at !== undefined).map((b) => b.at! + (b.us ?? 0));
  const fallback = lane.life?.end ?? (ends.length ? Math.max(...ends) : s.t1);
  // Names follow the task's status, when there is one.
  let lastX = lane.life ? s.x(lane.life.end ?? s.t1) + 8 + lane.life.status.length * CHAR_W + 8 : -Infinity;
  for (const m of marks) {
    const x = s.x(m.at ?? fallback);
    const cy = y + LANE_H / 2;
    const name = `${m.code}${m.plugin ? ` ${m.plugin}` : ''}${m.hook ? ` ${shortHook(m.hook)}` : ''}`;
    const textX = Math.max(x + 8, lastX);
    lastX = textX + name.length * CHAR_W + 8;
    out.push(
      `<g class="mark ${m.severity}" data-code="${escapeXml(m.code)}"><title>${escapeXml(`${m.severity}: ${m.code}\n${m.message}\n${lane.title}`)}</title>` +
        `<path d="M${x.toFixed(1)} ${cy - 7} l6 12 h-12 z"/>` +
        `<text x="${textX.toFixed(1)}" y="${cy + 4}">${escapeXml(name)}</text></g>`,
    );
  }
}

const STYLE = `
  text { font-family: 'DejaVu Sans', Arial, sans-serif; font-size: 11px; fill: #222; }
  .head { font-size: 14px; font-weight: bold; }
  .sub { fill: #555; }
  .lane-bg { fill: #f4f6f8; }
  .lane-label { font-family: 'DejaVu Sans Mono', monospace; }
  .lane-label.stepd, .lane-label.client, .lane-label.prolog, .lane-label.epilog, .lane-label.slurmd { font-weight: bold; }
  .axis line { stroke: #ccc; }
  .axis text { fill: #666; font-size: 10px; }
  .call.ok rect { fill: #3b82c4; }
  .call.failed rect { fill: #d33; }
  .call.open rect { fill: #f0a020; }
  .call text { fill: #fff; font-size: 10px; }
  .life rect { fill: #9aa5b1; }
  .life.bad rect { fill: #e8a0a0; }
  .life .status { fill: #2a7a2a; font-size: 10px; }
  .life.bad .status { fill: #c00; font-weight: bold; }
  .mark path { stroke: #fff; stroke-width: 1; }
  .mark.error path { fill: #c00; }
  .mark.warning path { fill: #e6a100; }
  .mark.error text { fill: #c00; font-weight: bold; }
  .mark.warning text { fill: #a06f00; }
`;

function legend(y: number, out: string[]): void {
  const items: [string, string][] = [
    ['call ok', '#3b82c4'],
    ['call failed (rc < 0)', '#d33'],
    ['never returned', '#f0a020'],
    ['task alive', '#9aa5b1'],
    ['error', '#c00'],
    ['warning', '#e6a100'],
  ];
  let x = LABEL_W;
  for (const [name, color] of items) {
    out.push(`<rect x="${x}" y="${y}" width="12" height="10" fill="${color}"/><text x="${x + 16}" y="${y + 9}">${escapeXml(name)}</text>`);
    x += 28 + name.length * CHAR_W;
  }
}

export function renderSvg(model: TimelineModel): string {
  const { t0, t1 } = span(model);
  const s: Scale = { t0, t1, x: (t) => LABEL_W + ((t - t0) / (t1 - t0)) * PLOT_W };
  const width = LABEL_W + PLOT_W + RIGHT;
  const height = TOP + model.lanes.length * LANE_H + 44;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" class="plugstack-timeline">`,
    `<title>${escapeXml(`${model.title}: ${model.outcome}`)}</title>`,
    `<style>${STYLE}</style>`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text class="head" x="8" y="20">${escapeXml(model.title)}</text>`,
    `<text class="sub" x="8" y="38">${escapeXml(`${model.outcome} · ${model.lanes.length} processes · ${duration(t1 - t0)} from first to last`)}</text>`,
  );
  // The axis: ticks in milliseconds from the first event.
  const step = niceStep(t1 - t0, 10);
  out.push('<g class="axis">');
  for (let t = 0; t <= t1 - t0 + 1e-9; t += step) {
    const x = s.x(t0 + t);
    out.push(`<line x1="${x.toFixed(1)}" y1="${TOP - 6}" x2="${x.toFixed(1)}" y2="${TOP + model.lanes.length * LANE_H}"/>`);
    out.push(`<text x="${(x + 2).toFixed(1)}" y="${TOP - 8}">${escapeXml(duration(Math.round(t)))}</text>`);
  }
  out.push('</g>');
  model.lanes.forEach((lane, i) => {
    const y = TOP + i * LANE_H;
    out.push(`<g class="lane ${lane.kind}" data-lane="${i}" data-kind="${lane.kind}">`);
    if (i % 2 === 0) out.push(`<rect class="lane-bg" x="0" y="${y}" width="${width}" height="${LANE_H}"/>`);
    out.push(`<text class="lane-label ${lane.kind}" x="8" y="${y + LANE_H / 2 + 4}"><title>${escapeXml(lane.title)}</title>${escapeXml(lane.label)}</text>`);
    drawLife(lane, y, s, out);
    drawBars(lane, i, y, s, out);
    drawMarks(lane.marks, lane, y, s, out);
    out.push('</g>');
  });
  legend(TOP + model.lanes.length * LANE_H + 18, out);
  out.push('</svg>');
  return out.join('\n') + '\n';
}
