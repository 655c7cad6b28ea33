// Cost against size: reads benchmark results of several sizes (bench/run.ts) and draws, against
// the runs stored, the ingest time, the cold leaderboard, the first read after a restart and the
// server's peak memory, each beside its floor measured in the same run. Hand-written SVG.
//   npm run bench:plot [-- results-reference.json results-2x.json …] [--out docs/bench/cost-vs-size.svg]
// With no files: bench/results-<size>.json for reference, 2x and large, else docs/bench/'s copy.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

interface Result {
  size: string;
  scale: number;
  date: string;
  server?: string;
  machine: { cores: number; loadAverageAtStart: number };
  data: { runs: number };
  ingest: { seconds: number };
  cold: { leaderboard: { medianMs: number } };
  restart: { firstReadMs: number; readyMs: number };
  memory: { peakRssMb: number | null };
  floors: { rawInsert: { seconds: number }; groupByScan: { medianMs: number } };
}

interface Series {
  name: string;
  color: string;
  dashed?: boolean;
  /** Points only, no line between them. */
  markers?: boolean;
  points: { x: number; y: number }[];
}

interface Panel {
  title: string;
  unit: string;
  /** A logarithmic y axis: for a cost far below its floor. */
  log?: boolean;
  series: Series[];
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const COST = '#c0392b';
const FLOOR = '#2c7fb8';
const BOUND = '#888888';

function inputs(files: string[]): string[] {
  if (files.length > 0) return files;
  return ['reference', '2x', 'large']
    .map((s) => [`${ROOT}bench/results-${s}.json`, `${ROOT}docs/bench/results-${s}.json`].find((f) => existsSync(f)))
    .filter((f): f is string => f !== undefined);
}

/** A round step giving about `n` ticks up to `max`. */
function niceStep(max: number, n = 4): number {
  const raw = max / n;
  const p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const num = (v: number) => (v >= 100 ? String(Math.round(v)) : String(Math.round(v * 10) / 10));

function panel(p: Panel, x0: number, y0: number, w: number, h: number, xs: { x: number; label: string }[]): string {
  const left = x0 + 56;
  const right = x0 + w - 16;
  const top = y0 + 40;
  const bottom = y0 + h - 44;
  const xMax = Math.max(...xs.map((t) => t.x)) * 1.08;
  const ys = p.series.flatMap((s) => s.points.map((q) => q.y));
  let Y: (y: number) => number;
  let ticks: number[];
  if (p.log) {
    const lo = Math.log10(Math.min(...ys) / 1.6);
    const hi = Math.log10(Math.max(...ys) * 1.6);
    Y = (y: number) => bottom - ((Math.log10(y) - lo) / (hi - lo)) * (bottom - top);
    ticks = [];
    for (let e = Math.floor(lo); e <= Math.ceil(hi); e++)
      for (const m of [1, 2, 5])
        if (Math.log10(m * 10 ** e) >= lo && Math.log10(m * 10 ** e) <= hi) ticks.push(m * 10 ** e);
  } else {
    const yTop = Math.max(...ys) * 1.15 || 1;
    const step = niceStep(yTop);
    const yMax = Math.ceil(yTop / step) * step;
    Y = (y: number) => bottom - (y / yMax) * (bottom - top);
    ticks = [];
    for (let y = 0; y <= yMax + step / 2; y += step) ticks.push(y);
  }
  const X = (x: number) => left + (x / xMax) * (right - left);
  const out: string[] = [`<text x="${x0 + 8}" y="${y0 + 18}" class="title">${esc(p.title)}</text>`];
  for (const y of ticks) {
    out.push(`<line x1="${left}" x2="${right}" y1="${Y(y)}" y2="${Y(y)}" class="grid"/>`);
    out.push(`<text x="${left - 6}" y="${Y(y) + 4}" class="tick" text-anchor="end">${num(y)}</text>`);
  }
  for (const t of xs) {
    out.push(`<line x1="${X(t.x)}" x2="${X(t.x)}" y1="${bottom}" y2="${bottom + 4}" class="axis"/>`);
    out.push(`<text x="${X(t.x)}" y="${bottom + 17}" class="tick" text-anchor="middle">${esc(t.label)}</text>`);
  }
  out.push(`<line x1="${left}" x2="${right}" y1="${bottom}" y2="${bottom}" class="axis"/>`);
  out.push(`<line x1="${left}" x2="${left}" y1="${top}" y2="${bottom}" class="axis"/>`);
  out.push(`<text x="${x0 + 8}" y="${y0 + 32}" class="unit">${esc(p.unit)}</text>`);
  p.series.forEach((s, i) => {
    const pts = s.points.map((q) => `${X(q.x).toFixed(1)},${Y(q.y).toFixed(1)}`).join(' ');
    const dash = s.dashed ? ' stroke-dasharray="5 4"' : '';
    if (!s.markers) out.push(`<polyline points="${pts}" fill="none" stroke="${s.color}" stroke-width="2"${dash}/>`);
    for (const q of s.points) {
      out.push(`<circle cx="${X(q.x).toFixed(1)}" cy="${Y(q.y).toFixed(1)}" r="3" fill="${s.color}"/>`);
      out.push(
        `<text x="${(X(q.x) + 5).toFixed(1)}" y="${(Y(q.y) - 6).toFixed(1)}" class="val" fill="${s.color}">${num(q.y)}</text>`,
      );
    }
    const lx = left + 12;
    const ly = top + 4 + i * 15;
    out.push(`<line x1="${lx}" x2="${lx + 18}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="2"${dash}/>`);
    out.push(`<text x="${lx + 24}" y="${ly + 4}" class="legend">${esc(s.name)}</text>`);
  });
  return out.join('\n');
}

export function plot(results: Result[]): string {
  const rs = [...results].sort((a, b) => a.data.runs - b.data.runs);
  const mRuns = (r: Result) => r.data.runs / 1e6;
  const xs = rs.map((r) => ({ x: mRuns(r), label: `${r.scale}x, ${(r.data.runs / 1e6).toFixed(2)}M runs` }));
  const pts = (f: (r: Result) => number | null) =>
    rs.flatMap((r) => {
      const y = f(r);
      return y === null ? [] : [{ x: mRuns(r), y }];
    });
  const scan = {
    name: 'floor: GROUP BY task, miner',
    color: FLOOR,
    dashed: true,
    points: pts((r) => r.floors.groupByScan.medianMs),
  };
  const panels: Panel[] = [
    {
      title: 'Ingest, 4 clients x 1,000-run batches',
      unit: 'seconds for every run',
      series: [
        { name: 'server, over HTTP', color: COST, points: pts((r) => r.ingest.seconds) },
        {
          name: 'floor: raw SQLite insert',
          color: FLOOR,
          dashed: true,
          points: pts((r) => r.floors.rawInsert.seconds),
        },
      ],
    },
    {
      title: 'Cold leaderboard after a write (median)',
      unit: 'ms, log scale',
      log: true,
      series: [{ name: 'server', color: COST, points: pts((r) => r.cold.leaderboard.medianMs) }, scan],
    },
    {
      title: 'First leaderboard read after a restart',
      unit: 'ms after /readyz, log scale',
      log: true,
      series: [{ name: 'server', color: COST, points: pts((r) => r.restart.firstReadMs) }, scan],
    },
    {
      title: 'Server peak memory (VmHWM)',
      unit: 'MB',
      series: [
        { name: 'server', color: COST, points: pts((r) => r.memory.peakRssMb) },
        {
          name: 'bound: 200 MB at 1x, 400 up to 4x',
          color: BOUND,
          markers: true,
          points: pts((r) => (r.scale <= 1 ? 200 : 400)),
        },
      ],
    },
  ];
  const W = 1000;
  const H = 380;
  const body = panels.map((p, i) => panel(p, (i % 2) * (W / 2), 36 + Math.floor(i / 2) * H, W / 2, H, xs)).join('\n');
  const runs = rs
    .map(
      (r) =>
        `${r.size}: ${r.date.slice(0, 16).replace('T', ' ')} UTC, load at start ${r.machine.loadAverageAtStart}, ${r.server ?? 'tsx'}`,
    )
    .join('; ');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${2 * H + 60}" viewBox="0 0 ${W} ${2 * H + 60}" font-family="sans-serif">
<style>.title{font-size:14px;font-weight:bold}.unit,.tick{font-size:11px;fill:#555}.val{font-size:10px}.legend{font-size:11px}.grid{stroke:#e4e4e4}.axis{stroke:#333}.note{font-size:11px;fill:#555}</style>
<rect width="100%" height="100%" fill="white"/>
<text x="8" y="22" class="title">swe-scoring: cost against size, each beside its floor from the same run (npm run bench, ${rs[0]?.machine.cores ?? '?'} cores, shared machine)</text>
${body}
<text x="8" y="${2 * H + 52}" class="note">${esc(runs)}</text>
</svg>
`;
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { out: { type: 'string', default: `${ROOT}docs/bench/cost-vs-size.svg` } },
  });
  const files = inputs(positionals);
  if (files.length < 2) throw new Error(`need results of at least two sizes; found ${files.join(', ') || 'none'}`);
  const results = files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as Result);
  mkdirSync(dirname(values.out), { recursive: true });
  writeFileSync(values.out, plot(results));
  console.log(`[bench:plot] ${files.length} results (${files.join(', ')}) -> ${values.out}`);
}

main();
