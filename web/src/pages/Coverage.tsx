// The coverage page: what still has to be run. Progress per stage, then the task × miner heatmap
// of the chosen stage set, with every pair in a CSV download.
import { useEffect, useMemo } from 'preact/hooks';
import { Loading } from '../components/Status.js';
import { EmptyStage } from '../components/EmptyStage.js';
import { StageProgress } from '../coverage/StageProgress.js';
import { Heatmap } from '../coverage/Heatmap.js';
import { toCsv, toGrid } from '../coverage/grid.js';
import { loadCoverage, loadSummary } from '../coverage/load.js';
import { count, counted, pct } from '../format.js';
import type { PageProps } from '../links.js';
import { STAGES } from '../stages.js';
import { useData } from '../useData.js';

export function Coverage({ id, competition, stages, tick }: PageProps) {
  const state = useData(async () => {
    const [coverage, perStage] = await Promise.all([
      loadCoverage(id, stages),
      Promise.all(STAGES.map(async (stage) => ({ stage, summary: await loadSummary(id, stage) }))),
    ]);
    return { coverage, perStage };
  }, [id, stages?.join(','), tick]);
  const grid = useMemo(() => (state.data ? toGrid(state.data.coverage) : null), [state.data]);
  const csv = useMemo(
    () => (state.data ? URL.createObjectURL(new Blob([toCsv(state.data.coverage.pairs)], { type: 'text/csv' })) : null),
    [state.data],
  );
  useEffect(() => () => (csv ? URL.revokeObjectURL(csv) : undefined), [csv]);
  return (
    <>
      <h1 tabIndex={-1}>{competition?.name ?? id}: coverage</h1>
      <Loading state={state}>
        {({ coverage, perStage }) => {
          const s = coverage.summary;
          return (
            <>
              <StageProgress rows={perStage} />
              {s.pairs === 0 || !grid ? (
                <EmptyStage stages={coverage.stages} />
              ) : (
                <>
                  <p class="summary" id="coverage-summary">
                    {counted(s.pairs, 'pair')} over {counted(grid.tasks.length, 'task')} and{' '}
                    {counted(grid.miners.length, 'column')} (the baseline and each miner) · {count(s.have)} of{' '}
                    {counted(s.planned, 'planned run')} in ({pct(s.planned ? s.have / s.planned : 1)}) ·{' '}
                    {count(s.missing)} missing
                    {s.complete ? ' · complete' : ''} ·{' '}
                    <a href={csv ?? undefined} download={`coverage-${id}-${coverage.stages.join('+')}.csv`}>
                      Download every pair (CSV)
                    </a>
                  </p>
                  <Heatmap grid={grid} />
                </>
              )}
            </>
          );
        }}
      </Loading>
    </>
  );
}
