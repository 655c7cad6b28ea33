// A uPlot chart in a <figure>: the title is its caption, `summary` its text alternative, and the
// table beside it carries the same data. The chart is rebuilt when its data changes and resized
// with its container.
import { useLayoutEffect, useRef } from 'preact/hooks';
import type uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

// uPlot is its own chunk, fetched while the page's data loads (main.tsx starts it), so that the
// app's first request does not wait for the charting code to parse.
type UPlot = typeof uPlot;
let loaded: UPlot | null = null;
export const loadUPlot = (): Promise<UPlot> => import('uplot').then((m) => (loaded = m.default));

/** Series marked `bars` get uPlot's bar path builder once uPlot is there. */
type Series = uPlot.Series & { bars?: boolean };
const withPaths = (U: UPlot, series: Series[]) =>
  series.map(({ bars, ...s }) => (bars ? { ...s, paths: U.paths.bars!({ size: [0.8, 40] }) } : s));

interface Props {
  title: string;
  /** What the chart shows, in words, for screen readers. */
  summary: string;
  options: Omit<uPlot.Options, 'width' | 'height'>;
  data: uPlot.AlignedData;
  height?: number;
  id?: string;
}

export function Chart({ title, summary, options, data, height = 240, id }: Props) {
  const box = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    // Drawn in the same task as the page's render when uPlot is there: one layout for both.
    const width = () => Math.max(280, el.clientWidth);
    let plot: uPlot | null = null;
    let gone = false;
    const draw = (U: UPlot) => {
      if (!gone) plot = new U({ ...options, series: withPaths(U, options.series), width: width(), height }, data, el);
    };
    if (loaded) draw(loaded);
    else void loadUPlot().then(draw);
    const resize = new ResizeObserver(() => {
      const w = width();
      if (plot && w !== plot.width) plot.setSize({ width: w, height });
    });
    resize.observe(el);
    return () => {
      gone = true;
      resize.disconnect();
      plot?.destroy();
    };
  }, [options, data, height]);
  return (
    <figure class="chart" id={id}>
      <figcaption>{title}</figcaption>
      <div ref={box} role="img" aria-label={summary} />
    </figure>
  );
}

/** Colours that stay apart for colour-blind readers (Okabe–Ito); names always go with them. */
export const COLOURS = {
  penalty: '#D55E00',
  maintain: '#0072B2',
  bonus: '#009E73',
  accent: '#0072B2',
  muted: '#999999',
  rank: '#CC79A7',
} as const;

/** Points only: a scatter series over uPlot's ordered x. */
export function pointSeries(label: string, colour: string, hollow = false): uPlot.Series {
  return {
    label,
    stroke: colour,
    paths: () => null,
    points: { show: true, size: 8, width: 2, stroke: colour, fill: hollow ? '#ffffff' : colour },
  };
}

export function barSeries(label: string, colour: string, format: (v: number | null) => string): Series {
  return {
    label,
    stroke: colour,
    fill: `${colour}99`,
    width: 1,
    bars: true,
    points: { show: false },
    value: (_u, v) => format(v),
  };
}
