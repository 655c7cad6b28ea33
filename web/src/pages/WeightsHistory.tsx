// Weights over time: a line per top miner and one for the burn across the snapshots of
// `GET …/weights/history`, with the same numbers in a table below the chart.
import { useMemo } from 'preact/hooks';
import type uPlot from 'uplot';
import { Chart } from '../charts/Chart.js';
import { Loading } from '../components/Status.js';
import { counted, exact, pct, utc, weightOf } from '../format.js';
import { links, type PageProps } from '../links.js';
import { useData } from '../useData.js';
import { loadWeightsHistory, topMiners, type HistoryEntry } from '../weightsHistory.js';

/** Okabe–Ito colours for the miners; the burn is grey and dashed. */
const LINE_COLOURS = ['#E69F00', '#56B4E9', '#009E73', '#0072B2', '#D55E00', '#CC79A7'];
const TOP = 6;

function chart(history: HistoryEntry[], top: string[]) {
  const data: uPlot.AlignedData = [
    history.map((h) => Date.parse(h.takenAt) / 1000),
    ...top.map((hotkey) => history.map((h) => weightOf(h.finalWeights, hotkey) * 100)),
    history.map((h) => h.burnWeight * 100),
  ];
  const value = (_u: uPlot, v: number | null) => (v === null ? '–' : `${v.toFixed(2)}%`);
  const options: Omit<uPlot.Options, 'width' | 'height'> = {
    scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
    axes: [{ label: 'snapshot taken at (local time)' }, { label: 'final weight (%)' }],
    series: [
      { label: 'taken at' },
      ...top.map((hotkey, i) => ({ label: hotkey, stroke: LINE_COLOURS[i % LINE_COLOURS.length], width: 2, value })),
      { label: 'burned', stroke: '#666666', width: 2, dash: [6, 4], value },
    ],
  };
  return { data, options };
}

export function WeightsHistory({ id, competition, stages, tick }: PageProps) {
  const state = useData(() => loadWeightsHistory(id), [id, tick]);
  const to = links(id, stages);
  const view = useMemo(() => {
    if (!state.data) return null;
    const top = topMiners(state.data, TOP);
    return { top, ...chart(state.data, top) };
  }, [state.data]);
  return (
    <>
      <h1 tabIndex={-1}>{competition?.name ?? id}: weights over time</h1>
      <Loading state={state}>
        {(history) =>
          history.length === 0 || !view ? (
            <p class="note" id="no-snapshots">
              No snapshot taken yet: weights over time start with the first snapshot (
              <code>POST /v1/competitions/{id}/snapshots</code>).
            </p>
          ) : (
            <>
              <p class="summary">
                {counted(history.length, 'snapshot')} · the {counted(view.top.length, 'miner')} with the most final
                weight in any snapshot, and the burn
              </p>
              <Chart
                id="chart-weights-history"
                title="Final weight per snapshot, top miners and the burn"
                options={view.options}
                data={view.data}
                summary={`Lines of final weight over ${counted(history.length, 'snapshot')} for ${counted(view.top.length, 'miner')} and the burn; the table below lists every value.`}
              />
              <div class="table-wrap">
                <table id="weights-history">
                  <caption>Final weight per snapshot, oldest first (the miners of the chart, then the burn)</caption>
                  <thead>
                    <tr>
                      <th scope="col" class="num">
                        Snapshot
                      </th>
                      <th scope="col">Taken at (UTC)</th>
                      {view.top.map((hotkey) => (
                        <th key={hotkey} scope="col" class="num" data-hotkey={hotkey}>
                          <a class="hotkey" href={to.miner(hotkey)}>
                            {hotkey}
                          </a>
                        </th>
                      ))}
                      <th scope="col" class="num">
                        Burned
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {history.map((h) => (
                      <tr key={h.seq} data-key={h.seq}>
                        <th scope="row" class="num">
                          {h.seq}
                        </th>
                        <td>{utc(h.takenAt)}</td>
                        {view.top.map((hotkey) => (
                          <td key={hotkey} class="num" title={exact(weightOf(h.finalWeights, hotkey))}>
                            {pct(weightOf(h.finalWeights, hotkey))}
                          </td>
                        ))}
                        <td class="num" data-col="burn" title={exact(h.burnWeight)}>
                          {pct(h.burnWeight)}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          )
        }
      </Loading>
    </>
  );
}
