// Met and split rate by kind of criterion change and polarity, as horizontal bars with their
// counts: an SVG drawn from the report, so the numbers on the plot are the API's.
import type { StabilityReport } from '../api.js';
import { count, counted, pct } from '../format.js';

type Group = StabilityReport['groups'][number];

export const changeLabel = (change: string | null) => change ?? 'unchanged';

const ROW = 64;
const LABEL = 230;
const BAR = 300;
const WIDTH = LABEL + BAR + 190;
const TICKS = [0, 0.25, 0.5, 0.75, 1];

function Bar({ y, rate, n, of, kind }: { y: number; rate: number | null; n: number; of: number; kind: string }) {
  const w = (rate ?? 0) * BAR;
  return (
    <g class={`plot-${kind}`}>
      <rect x={LABEL} y={y} width={w} height={16} />
      <text x={LABEL + w + 6} y={y + 12}>
        {kind} {pct(rate)} ({count(n)} of {count(of)})
      </text>
    </g>
  );
}

/** The pooled verdicts of every group: one row each, a met and a split bar. */
export function RatePlot({ groups }: { groups: Group[] }) {
  const height = groups.length * ROW + 30;
  const label = groups
    .map(
      (g) =>
        `${changeLabel(g.change)} ${g.polarity}: met ${pct(g.pooled.metRate)}, split ${pct(g.pooled.splitRate)} of ${counted(g.pooled.verdicts, 'verdict')}`,
    )
    .join('; ');
  return (
    <figure class="rate-plot" id="criteria-plot">
      <svg viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-label={`Met and split rate by kind of change: ${label}`}>
        {TICKS.map((t) => (
          <g key={t} class="plot-tick">
            <line x1={LABEL + t * BAR} x2={LABEL + t * BAR} y1={0} y2={height - 24} />
            <text x={LABEL + t * BAR} y={height - 8} text-anchor="middle">
              {t * 100}%
            </text>
          </g>
        ))}
        {groups.map((g, i) => {
          const y = i * ROW + 8;
          return (
            <g key={`${g.change}/${g.polarity}`} data-group={`${changeLabel(g.change)}/${g.polarity}`}>
              <text x={0} y={y + 14} class="plot-label">
                {changeLabel(g.change)}, {g.polarity}
              </text>
              <text x={0} y={y + 32} class="plot-sub">
                {counted(g.criteria, 'criterion', 'criteria')} · {counted(g.pooled.verdicts, 'verdict')}
              </text>
              <Bar y={y} rate={g.pooled.metRate} n={g.pooled.met} of={g.pooled.verdicts} kind="met" />
              <Bar y={y + 20} rate={g.pooled.splitRate} n={g.pooled.split} of={g.pooled.verdicts} kind="split" />
            </g>
          );
        })}
      </svg>
      <figcaption>
        Every scored run (the baseline and every miner): met rate (green) and split rate (orange) by kind of criterion
        change and polarity; the tables below give the same numbers per baseline and miner.
      </figcaption>
    </figure>
  );
}
