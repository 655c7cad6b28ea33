// The task × miner coverage heatmap on one canvas (tens of thousands of cells draw in one pass):
// a row per task, a column per miner (the baseline first), each cell shaded by the share of its
// planned runs that are in. The pointer's cell is named in a tooltip with its exact numbers; the
// CSV download beside it carries every cell for those who cannot use the picture.
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { CoveragePair } from '../api.js';
import { counted, noun } from '../format.js';
import type { Grid } from './grid.js';

/** Shade of a cell: light for nothing in, dark blue for all planned runs in. */
export function shade(p: CoveragePair | undefined): string {
  if (!p) return '#ffffff';
  const share = p.planned === 0 ? 1 : Math.min(1, p.have / p.planned);
  // From #f2e6d9 (none) to #0072B2 (all): a lightness ramp, readable in grey print too.
  const mix = (a: number, b: number) => Math.round(a + (b - a) * share);
  return `rgb(${mix(0xf2, 0x00)}, ${mix(0xe6, 0x72)}, ${mix(0xd9, 0xb2)})`;
}

/** Cells fill the width (2 to 64 px wide) and about 720 px of height (3 to 16 px high). */
const cellSize = (width: number, columns: number, rows: number) => ({
  w: Math.max(2, Math.min(64, Math.floor(width / columns))),
  h: Math.max(3, Math.min(16, Math.floor(720 / rows))),
});

interface Tip {
  x: number;
  y: number;
  pair: CoveragePair;
}

export function Heatmap({ grid }: { grid: Grid }) {
  const box = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [size, setSize] = useState({ w: 4, h: 4 });
  const [tip, setTip] = useState<Tip | null>(null);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setSize(cellSize(el.clientWidth, grid.miners.length, grid.tasks.length));
    measure();
    const resize = new ResizeObserver(measure);
    resize.observe(el);
    return () => resize.disconnect();
  }, [grid]);
  useLayoutEffect(() => {
    const c = canvas.current;
    const ctx = c?.getContext('2d');
    if (!c || !ctx) return;
    const ratio = window.devicePixelRatio || 1;
    c.width = grid.miners.length * size.w * ratio;
    c.height = grid.tasks.length * size.h * ratio;
    ctx.scale(ratio, ratio);
    for (let r = 0; r < grid.tasks.length; r++)
      for (let col = 0; col < grid.miners.length; col++) {
        ctx.fillStyle = shade(grid.at(r, col));
        ctx.fillRect(col * size.w, r * size.h, size.w, size.h);
      }
  }, [grid, size]);
  const onMove = (e: MouseEvent) => {
    const rect = (e.currentTarget as HTMLCanvasElement).getBoundingClientRect();
    const col = Math.floor((e.clientX - rect.left) / size.w);
    const row = Math.floor((e.clientY - rect.top) / size.h);
    const pair = grid.at(row, col);
    setTip(pair ? { x: col * size.w, y: row * size.h, pair } : null);
  };
  const width = grid.miners.length * size.w;
  const height = grid.tasks.length * size.h;
  return (
    <figure class="chart heatmap" id="coverage-heatmap">
      <figcaption>
        Coverage by task (rows, {grid.tasks.length}) and miner (columns, {grid.miners.length}, the baseline first):
        darker is more of the planned runs in
      </figcaption>
      <p class="legend hint">
        <span class="swatch" style={{ background: shade({ taskId: '', miner: '', planned: 1, have: 0, missing: 1 }) }} />{' '}
        none of the planned runs{' '}
        <span class="swatch" style={{ background: shade({ taskId: '', miner: '', planned: 2, have: 1, missing: 1 }) }} />{' '}
        half <span class="swatch" style={{ background: shade({ taskId: '', miner: '', planned: 1, have: 1, missing: 0 }) }} />{' '}
        all
      </p>
      <div ref={box} class="heatmap-box" tabIndex={0} role="region" aria-label="Coverage heatmap">
        <div class="heatmap-plot" style={{ width: `${width}px`, height: `${height}px` }}>
          <canvas
            ref={canvas}
            style={{ width: `${width}px`, height: `${height}px` }}
            role="img"
            aria-label={`Heatmap of ${counted(grid.tasks.length, 'task')} by ${counted(grid.miners.length, 'miner')}; the CSV download lists every cell.`}
            onMouseMove={onMove}
            onMouseLeave={() => setTip(null)}
          />
          {tip ? (
            <div
              id="coverage-tip"
              class="tip"
              role="tooltip"
              data-task={tip.pair.taskId}
              data-miner={tip.pair.miner}
              style={{ left: `${tip.x + size.w + 4}px`, top: `${tip.y + size.h + 4}px` }}
            >
              <strong>{tip.pair.taskId}</strong> · {tip.pair.miner}
              <br />
              <span data-field="have">{tip.pair.have}</span> of <span data-field="planned">{tip.pair.planned}</span>{' '}
              planned {noun(tip.pair.planned, 'run')} in, <span data-field="missing">{tip.pair.missing}</span> missing
            </div>
          ) : null}
        </div>
      </div>
    </figure>
  );
}
