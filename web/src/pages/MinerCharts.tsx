// A miner's tasks as two scatter plots: each task's score, grouped by zone and pool; and r
// against the baseline's token use. Zone and pool names are in each series' legend label.
import { useMemo } from 'preact/hooks';
import type uPlot from 'uplot';
import type { MinerTaskScore } from '../api.js';
import { Chart, COLOURS, pointSeries } from '../charts/Chart.js';
import { counted, POOL_LABEL, score3, tokens } from '../format.js';

type Opts = Omit<uPlot.Options, 'width' | 'height'>;
const ZONES = ['penalty', 'maintain', 'bonus'] as const;
const colour = (zone: string) => (zone in COLOURS ? COLOURS[zone as keyof typeof COLOURS] : COLOURS.muted);

/** One y array per series key, null where a task belongs to another series. */
function split<T>(rows: T[], keys: string[], keyOf: (r: T) => string, y: (r: T) => number): (number | null)[][] {
  return keys.map((k) => rows.map((r) => (keyOf(r) === k ? y(r) : null)));
}

export function MinerCharts({ tasks }: { tasks: MinerTaskScore[] }) {
  const byScore = useMemo(() => {
    const scored = tasks.filter((t) => t.score !== null).sort((a, b) => a.score! - b.score!);
    const combos = (['main', 'hard_boost'] as const)
      .flatMap((p) => ZONES.map((z) => `${p}:${z}`))
      .filter((k) => scored.some((t) => `${t.pool}:${t.zone}` === k));
    const data = [
      scored.map((_, i) => i + 1),
      ...split(
        scored,
        combos,
        (t) => `${t.pool}:${t.zone}`,
        (t) => t.score!,
      ),
    ] as uPlot.AlignedData;
    const options: Opts = {
      scales: { x: { time: false }, y: { range: [-4.2, 3.2] } },
      axes: [{ label: 'tasks, ordered by score' }, { label: 'task score s (−4 to 3)' }],
      series: [
        { label: 'task', value: (_u, v) => (v === null ? '–' : (scored[v - 1]?.taskId ?? '')) },
        ...combos.map((k) => {
          const [pool, zone] = k.split(':') as [string, string];
          return {
            ...pointSeries(`${POOL_LABEL[pool]} · ${zone}`, colour(zone), pool === 'hard_boost'),
            value: (_u: uPlot, v: number | null) => score3(v),
          };
        }),
      ],
    };
    return { data, options, n: scored.length };
  }, [tasks]);

  const byTokens = useMemo(() => {
    const rows = tasks
      .filter((t) => t.baselineTokens !== null && t.baselineTokens > 0)
      .sort((a, b) => a.baselineTokens! - b.baselineTokens!);
    const zones = [...ZONES, 'excluded'].filter((z) => rows.some((t) => t.zone === z));
    const data = [
      rows.map((t) => t.baselineTokens!),
      ...split(
        rows,
        zones,
        (t) => t.zone,
        (t) => t.r,
      ),
    ] as uPlot.AlignedData;
    const options: Opts = {
      scales: { x: { time: false, distr: 3 }, y: { range: [-2.2, 2.2] } },
      axes: [
        {
          label: 'baseline tokens T_B (weighted tokens, log scale)',
          values: (_u, vals) => vals.map((v) => (v === null ? '' : tokens(v))),
        },
        { label: 'r = log2(T_B / T_A)' },
      ],
      series: [
        { label: 'T_B', value: (_u, v) => tokens(v) },
        ...zones.map((z) => ({ ...pointSeries(z, colour(z)), value: (_u: uPlot, v: number | null) => score3(v) })),
      ],
    };
    return { data, options, n: rows.length };
  }, [tasks]);

  return (
    <div class="charts">
      <Chart
        id="chart-task-scores"
        title="Task score by zone and pool"
        options={byScore.options}
        data={byScore.data}
        summary={`${counted(byScore.n, 'scored task')} ordered by score; series by pool and zone. The table below lists every task.`}
      />
      <Chart
        id="chart-r-tokens"
        title="r against baseline tokens"
        options={byTokens.options}
        data={byTokens.data}
        summary={`${counted(byTokens.n, 'task')} with baseline tokens: r (token thrift against the baseline) by T_B, coloured and labelled by zone.`}
      />
    </div>
  );
}
