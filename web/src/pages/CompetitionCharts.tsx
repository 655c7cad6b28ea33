// The competition's two charts: how S_N spreads over the ranked miners, and who gets the weight.
import { useMemo } from 'preact/hooks';
import type uPlot from 'uplot';
import type { LeaderboardEntry } from '../api.js';
import { barSeries, Chart, COLOURS } from '../charts/Chart.js';
import { RANK_INCRS, rankRange, rankTicks } from '../charts/rankAxis.js';
import { count, counted, pct } from '../format.js';

const BIN = 0.1;

/** Miners per S_N bin of width 0.1 over [−1, 1]; x is the bin's centre. */
export function histogram(values: number[]): uPlot.AlignedData {
  const bins = Math.round(2 / BIN);
  const counts = new Array<number>(bins).fill(0);
  for (const v of values) counts[Math.min(bins - 1, Math.max(0, Math.floor((v + 1) / BIN)))]! += 1;
  return [counts.map((_, i) => -1 + (i + 0.5) * BIN), counts];
}

export function CompetitionCharts({ miners, burnRatio }: { miners: LeaderboardEntry[]; burnRatio: number | null }) {
  const ranked = miners.filter((m) => m.rank !== null && m.normalizedScore !== null);
  const dist = useMemo(() => {
    const data = histogram(ranked.map((m) => m.normalizedScore!));
    const options: Omit<uPlot.Options, 'width' | 'height'> = {
      scales: { x: { time: false, range: [-1, 1] }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      axes: [
        { label: 'S_N (normalized score, −1 to 1)' },
        { label: 'miners (count)', incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500] },
      ],
      series: [
        {
          label: 'S_N bin centre',
          value: (_u, v) => (v === null ? '–' : `${(v - BIN / 2).toFixed(1)} to ${(v + BIN / 2).toFixed(1)}`),
        },
        barSeries('miners', COLOURS.accent, (v) => (v === null ? '–' : String(v))),
      ],
      legend: { live: true },
    };
    return { data, options };
  }, [miners]);
  const weights = useMemo(() => {
    const data: uPlot.AlignedData = [ranked.map((_, i) => i + 1), ranked.map((m) => m.incentive.finalWeight * 100)];
    const options: Omit<uPlot.Options, 'width' | 'height'> = {
      scales: {
        x: { time: false, range: (_u, min, max) => rankRange(min, max) },
        y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
      },
      axes: [
        {
          label: 'rank (position on the leaderboard)',
          incrs: RANK_INCRS,
          values: (_u, splits) => rankTicks(splits),
        },
        { label: 'final weight (%)' },
      ],
      series: [
        { label: 'position', value: (_u, v) => (v === null ? '–' : `${v}: ${ranked[v - 1]?.hotkey ?? ''}`) },
        barSeries('final weight', COLOURS.bonus, (v) => (v === null ? '–' : `${v.toFixed(2)}%`)),
      ],
    };
    return { data, options };
  }, [miners]);
  const paid = ranked.filter((m) => m.incentive.finalWeight > 0).length;
  return (
    <div class="charts">
      <Chart
        id="chart-sn"
        title="S_N distribution over ranked miners"
        options={dist.options}
        data={dist.data}
        summary={`Histogram of the S_N of ${counted(ranked.length, 'miner')} in bins of ${BIN}.`}
      />
      <Chart
        id="chart-weight"
        title={`Final weight by rank${burnRatio === null ? '' : ` (burn ${pct(burnRatio)})`}`}
        options={weights.options}
        data={weights.data}
        summary={`${count(paid)} of ${counted(ranked.length, 'ranked miner')} ${paid === 1 ? 'receives' : 'receive'} weight; the table lists each miner's final weight.`}
      />
    </div>
  );
}
