// Rank and S_N over snapshots, shown only when the server has the history route (API 1.1) and
// at least one snapshot holds the miner; a 404 hides it.
import { useMemo } from 'preact/hooks';
import type uPlot from 'uplot';
import { Chart, COLOURS } from '../charts/Chart.js';
import { counted, score } from '../format.js';
import { minerHistory } from '../optionalApi.js';
import { useData } from '../useData.js';

export function MinerHistory({ id, hotkey, tick }: { id: string; hotkey: string; tick: number }) {
  const state = useData(() => minerHistory(id, hotkey), [id, hotkey, tick]);
  const points = state.data;
  const chart = useMemo(() => {
    if (!points || points.length === 0) return null;
    const data: uPlot.AlignedData = [
      points.map((p) => Date.parse(p.takenAt) / 1000),
      points.map((p) => p.normalizedScore),
      points.map((p) => p.rank),
    ];
    const options: Omit<uPlot.Options, 'width' | 'height'> = {
      scales: {
        x: { time: true },
        sn: { range: [-1, 1] },
        rank: { dir: -1, range: (_u, _min, max) => [1, Math.max(2, max)] },
      },
      axes: [
        { label: 'snapshot time' },
        { scale: 'sn', label: 'S_N' },
        { scale: 'rank', side: 1, label: 'rank (1 at the top)', grid: { show: false } },
      ],
      series: [
        {},
        { label: 'S_N', scale: 'sn', stroke: COLOURS.accent, width: 2, value: (_u, v) => score(v) },
        { label: 'rank', scale: 'rank', stroke: COLOURS.rank, width: 2, dash: [6, 4] },
      ],
    };
    return { data, options };
  }, [points]);
  if (!chart) return null;
  return (
    <Chart
      id="chart-history"
      title="Rank and S_N over snapshots"
      options={chart.options}
      data={chart.data}
      summary={`${counted(points!.length, 'snapshot')}: S_N on the left axis, rank on the right.`}
    />
  );
}
